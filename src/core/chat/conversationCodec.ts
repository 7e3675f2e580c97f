/**
 * Stored conversations and the history index, read back from files that may hold anything: an
 * older version's shape, a hand edit, half a write, another program's junk. Reading never throws:
 * a field of the wrong type gets a safe value or becomes absent (and is named in `dropped`, for one
 * log line), a turn without an id or a role is left out, and only a file that is not a
 * conversation at all is refused.
 */
import { isRecord } from '../../api/json';
import { parseCompaction, parseTurn } from '../protocol/chatProtocol';
import { parseFileChange } from '../protocol/agentProtocol';
import type { FileChange } from '../agent/types';
import { MAX_TOOL_RESULT_CHARS } from '../agent/types';
import { isModeId } from '../agent/modes';
import type { ConversationSummary, Turn, TurnStatus, UserTurn } from '../protocol/chatProtocol';
import { isValidId } from '../storage/storeFiles';
import { parseAttachments } from './attachments';
import type { Conversation } from './conversation';

export interface Parsed<T> {
  value: T;
  /** What was left out, e.g. "turns[2].usage"; empty when everything was read. */
  dropped: string[];
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** Statuses a stored reply keeps; any other (streaming when its window closed, or none) did not finish. */
const FINISHED: ReadonlySet<unknown> = new Set<TurnStatus>(['complete', 'stopped', 'error']);

/**
 * A stored turn, read by the same parser as a turn the webview receives (chatProtocol.ts), so the
 * two boundaries cannot drift apart. Storage adds its own rules: a reply without a finished status
 * was cut off, and a turn without a time takes the conversation's.
 */
function parseStoredTurn(
  raw: unknown,
  index: number,
  dropped: string[],
  fallbackTime: number,
): Turn | undefined {
  const where = `turns[${index}]`;
  const attachmentsPath = `${where}.attachments`;
  const turn = parseTurn(
    raw,
    // Stored attachments are read by their own, stricter parser below.
    (path) => path.startsWith(attachmentsPath) || dropped.push(path),
    where,
    // What went to the model is kept whole, so a resumed chat sends the same history.
    MAX_TOOL_RESULT_CHARS,
  );
  if (!turn || !isRecord(raw)) return undefined;
  if (!isTime(raw.createdAt)) turn.createdAt = fallbackTime;
  if (turn.role === 'assistant') {
    if (!FINISHED.has(raw.status)) turn.status = 'stopped';
    // A call still waiting or running when its window closed never finished: it was not run.
    for (const call of turn.steps?.flatMap((step) => step.calls) ?? [])
      if (call.state === 'awaitingApproval' || call.state === 'running') call.state = 'cancelled';
    return turn;
  }
  // What a stored prompt carried: its image files must be bare names in our folder, and only the
  // image types we send. Files written before attachments were kept have none; that is no loss.
  const { attachments: _fromProtocol, leftOut, ...user } = turn;
  let attachments: UserTurn['attachments'];
  if (raw.attachments !== undefined && raw.attachments !== null) {
    const parsed = parseAttachments(raw.attachments);
    if (!parsed) dropped.push(attachmentsPath);
    else {
      const lost = (raw.attachments as unknown[]).length - parsed.length;
      if (lost > 0) dropped.push(`${attachmentsPath} (${lost} left out)`);
      if (parsed.length) attachments = parsed;
    }
  }
  return { ...user, ...(attachments ? { attachments } : {}), ...(leftOut ? { leftOut } : {}) };
}

/**
 * A conversation from a parsed file, or undefined when it is not one (no valid id, no turns
 * array). `fallbackTime` stands in for missing timestamps (the file's own age is not known here).
 */
export function parseConversation(value: unknown, fallbackTime = 0): Parsed<Conversation> | undefined {
  if (!isRecord(value) || !isValidId(value.id) || !Array.isArray(value.turns)) return undefined;
  const dropped: string[] = [];
  const turns: Turn[] = [];
  const seen = new Set<string>();
  (value.turns as unknown[]).forEach((raw, i) => {
    const turn = parseStoredTurn(raw, i, dropped, fallbackTime);
    if (!turn || seen.has(turn.id)) dropped.push(`turns[${i}]`);
    else {
      seen.add(turn.id);
      turns.push(turn);
    }
  });
  const lastTurn = turns.reduce((t, turn) => Math.max(t, turn.createdAt), 0);
  const createdAt = isTime(value.createdAt) ? value.createdAt : (turns[0]?.createdAt ?? fallbackTime);
  const updatedAt = isTime(value.updatedAt) ? value.updatedAt : Math.max(lastTurn, createdAt);
  if (typeof value.title !== 'string') dropped.push('title');
  if (!isTime(value.createdAt)) dropped.push('createdAt');
  if (!isTime(value.updatedAt)) dropped.push('updatedAt');
  const conversation: Conversation = {
    id: value.id,
    title: typeof value.title === 'string' ? value.title : 'Chat',
    createdAt,
    updatedAt,
    turns,
  };
  const changes = parseChanges(value.changes, new Set(turns.map((t) => t.id)), dropped);
  if (changes) conversation.changes = changes;
  if (isModeId(value.mode)) conversation.mode = value.mode;
  else if (value.mode !== undefined) dropped.push('mode');
  if (value.compaction !== undefined) {
    const compaction = parseCompaction(value.compaction);
    if (compaction && seen.has(compaction.throughTurnId)) conversation.compaction = compaction;
    else dropped.push('compaction');
  }
  return { value: conversation, dropped };
}

/** What agent turns changed, for undo: only turns the chat still has, only well-formed changes. */
function parseChanges(
  value: unknown,
  turnIds: ReadonlySet<string>,
  dropped: string[],
): Record<string, FileChange[]> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    dropped.push('changes');
    return undefined;
  }
  const changes: Record<string, FileChange[]> = {};
  for (const [turnId, list] of Object.entries(value)) {
    if (!turnIds.has(turnId) || turnId === '__proto__' || !Array.isArray(list)) {
      dropped.push(`changes.${turnId.slice(0, 40)}`);
      continue;
    }
    const parsed = list.map(parseFileChange);
    const kept = parsed.filter((change): change is FileChange => change !== undefined);
    if (kept.length !== parsed.length) dropped.push(`changes.${turnId.slice(0, 40)}[]`);
    if (kept.length) changes[turnId] = kept;
  }
  return Object.keys(changes).length ? changes : undefined;
}

/** What the history index keeps: the list, the chat last open, and deletions to respect. */
export interface ConversationIndex {
  currentId?: string;
  items: ConversationSummary[];
  /** Deleted conversation id → when. A merge never brings back an item older than its deletion. */
  deleted: Record<string, number>;
}

export const INDEX_VERSION = 2;

export function emptyIndex(): ConversationIndex {
  return { items: [], deleted: deletions() };
}

/** A map of deletions without a prototype, so an id such as `__proto__` is just a key. */
function deletions(entries: Iterable<[string, number]> = []): Record<string, number> {
  const map = Object.create(null) as Record<string, number>;
  for (const [id, at] of entries) map[id] = at;
  return map;
}

/**
 * The index from a parsed file (version 1 had no `deleted`), or undefined when the value is no
 * index at all. Bad items are left out and named in `dropped`.
 */
export function parseIndex(value: unknown): Parsed<ConversationIndex> | undefined {
  if (!isRecord(value) || !Array.isArray(value.items)) return undefined;
  const dropped: string[] = [];
  const items = new Map<string, ConversationSummary>();
  (value.items as unknown[]).forEach((raw, i) => {
    if (!isRecord(raw) || !isValidId(raw.id) || typeof raw.title !== 'string' || !isTime(raw.updatedAt)) {
      dropped.push(`item ${i + 1}`);
      return;
    }
    const item: ConversationSummary = {
      id: raw.id,
      title: raw.title,
      updatedAt: raw.updatedAt,
      turnCount:
        typeof raw.turnCount === 'number' && Number.isInteger(raw.turnCount) && raw.turnCount >= 0
          ? raw.turnCount
          : 0,
    };
    const other = items.get(item.id);
    if (!other || other.updatedAt < item.updatedAt) items.set(item.id, item);
  });
  const deleted = deletions();
  if (isRecord(value.deleted)) {
    for (const [id, at] of Object.entries(value.deleted)) {
      if (isValidId(id) && isTime(at)) deleted[id] = at;
      else dropped.push(`deletion of ${id.slice(0, 40)}`);
    }
  } else if (value.deleted !== undefined) dropped.push('deleted');
  const index: ConversationIndex = { items: [...items.values()], deleted };
  if (isValidId(value.currentId)) index.currentId = value.currentId;
  else if (value.currentId !== undefined && value.currentId !== null) dropped.push('currentId');
  return { value: index, dropped };
}

/** At most this many deletions are remembered (the oldest are forgotten first). */
export const MAX_DELETIONS = 1000;

/**
 * Merges two views of the index by id: the newer summary wins, a deletion removes summaries that
 * are not newer than it, and a summary newer than a deletion brings the conversation back (it was
 * written to after the deletion). `currentId` comes from `ours`.
 */
export function mergeIndex(theirs: ConversationIndex, ours: ConversationIndex): ConversationIndex {
  const deleted = deletions(Object.entries(theirs.deleted));
  for (const [id, at] of Object.entries(ours.deleted)) deleted[id] = Math.max(at, deleted[id] ?? 0);
  const items = new Map<string, ConversationSummary>();
  for (const item of [...theirs.items, ...ours.items]) {
    const other = items.get(item.id);
    if (!other || other.updatedAt < item.updatedAt) items.set(item.id, item);
  }
  for (const [id, item] of items) {
    const at = deleted[id];
    if (at === undefined) continue;
    if (item.updatedAt <= at) items.delete(id);
    else delete deleted[id];
  }
  const kept = Object.entries(deleted)
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_DELETIONS);
  const merged: ConversationIndex = { items: [...items.values()], deleted: deletions(kept) };
  const currentId = ours.currentId ?? theirs.currentId;
  if (currentId !== undefined && merged.deleted[currentId] === undefined) merged.currentId = currentId;
  return merged;
}

/** True when the two indexes list the same summaries (order aside). */
export function sameItems(a: ConversationIndex, b: ConversationIndex): boolean {
  if (a.items.length !== b.items.length) return false;
  const byId = new Map(a.items.map((i) => [i.id, i]));
  return b.items.every((i) => {
    const o = byId.get(i.id);
    return o && o.updatedAt === i.updatedAt && o.title === i.title && o.turnCount === i.turnCount;
  });
}
