/**
 * Stored conversations and the history index, read back from files that may hold anything: an
 * older version's shape, a hand edit, half a write, another program's junk. Reading never throws:
 * a field of the wrong type becomes absent (and is named in `dropped`, for one log line), a turn
 * without what it needs is left out, and only a file that is not a conversation at all is refused.
 */
import { isRecord } from '../../api/json';
import type { JsonObject } from '../../api/json';
import type {
  AssistantTurn,
  Citation,
  ConversationSummary,
  ErrorAction,
  ToolCallView,
  Turn,
  TurnError,
  TurnStatus,
  TurnUsage,
} from '../protocol/chatProtocol';
import { isValidId } from '../storage/storeFiles';
import { parseMediaCardRef } from '../protocol/mediaCardProtocol';
import type { Conversation } from './conversation';

export interface Parsed<T> {
  value: T;
  /** What was left out, e.g. "turn 3: usage"; empty when everything was read. */
  dropped: string[];
}

const STATUSES: readonly TurnStatus[] = ['streaming', 'complete', 'stopped', 'error'];
const ACTIONS: readonly ErrorAction[] = ['setApiKey', 'retry', 'openSettings', 'selectModel'];

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Copies the optional field if it has the type `check` wants; otherwise notes it as dropped. */
function optional<T>(
  source: JsonObject,
  name: string,
  check: (value: unknown) => T | undefined,
  dropped: string[],
  where: string,
): T | undefined {
  const raw = source[name];
  if (raw === undefined || raw === null) return undefined;
  const value = check(raw);
  if (value === undefined) dropped.push(`${where}${name}`);
  return value;
}

const asString = (v: unknown) => (typeof v === 'string' ? v : undefined);

function asUsage(v: unknown): TurnUsage | undefined {
  if (!isRecord(v)) return undefined;
  const usage: TurnUsage = {};
  for (const key of ['promptTokens', 'completionTokens', 'reasoningTokens', 'totalTokens', 'cost'] as const) {
    if (isCount(v[key])) usage[key] = v[key];
  }
  return usage;
}

function asToolCalls(v: unknown): ToolCallView[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const calls: ToolCallView[] = [];
  for (const c of v as unknown[]) {
    if (!isRecord(c) || typeof c.name !== 'string' || typeof c.arguments !== 'string') continue;
    calls.push(
      typeof c.id === 'string'
        ? { id: c.id, name: c.name, arguments: c.arguments }
        : { name: c.name, arguments: c.arguments },
    );
  }
  return calls;
}

function asCitations(v: unknown): Citation[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const citations: Citation[] = [];
  for (const c of v as unknown[]) {
    if (!isRecord(c) || typeof c.url !== 'string') continue;
    citations.push(typeof c.title === 'string' ? { url: c.url, title: c.title } : { url: c.url });
  }
  return citations;
}

function asTurnError(v: unknown): TurnError | undefined {
  if (!isRecord(v) || typeof v.message !== 'string') return undefined;
  const error: TurnError = {
    message: v.message,
    actions: Array.isArray(v.actions)
      ? (v.actions as unknown[]).filter((a): a is ErrorAction => ACTIONS.includes(a as ErrorAction))
      : [],
  };
  if (isCount(v.status)) error.status = v.status;
  if (typeof v.provider === 'string') error.provider = v.provider;
  if (isCount(v.retryAfter)) error.retryAfter = v.retryAfter;
  return error;
}

function parseTurn(value: unknown, where: string, dropped: string[]): Turn | undefined {
  if (!isRecord(value)) return undefined;
  const { id, role, content, createdAt } = value;
  if (typeof id !== 'string' || typeof content !== 'string' || !isTime(createdAt)) return undefined;
  if (role === 'user') return { id, role, content, createdAt };
  if (role !== 'assistant' || typeof value.model !== 'string') return undefined;
  const stored = STATUSES.includes(value.status as TurnStatus) ? (value.status as TurnStatus) : undefined;
  if (!stored) dropped.push(`${where}status`);
  const turn: AssistantTurn = {
    id,
    role,
    content,
    reasoning: typeof value.reasoning === 'string' ? value.reasoning : '',
    // A reply that was streaming when its window closed did not finish: say so.
    status: !stored || stored === 'streaming' ? 'stopped' : stored,
    model: value.model,
    createdAt,
  };
  const provider = optional(value, 'provider', asString, dropped, where);
  if (provider !== undefined) turn.provider = provider;
  const finishReason = optional(value, 'finishReason', asString, dropped, where);
  if (finishReason !== undefined) turn.finishReason = finishReason;
  const usage = optional(value, 'usage', asUsage, dropped, where);
  if (usage !== undefined) turn.usage = usage;
  const toolCalls = optional(value, 'toolCalls', asToolCalls, dropped, where);
  if (toolCalls !== undefined) turn.toolCalls = toolCalls;
  const citations = optional(value, 'citations', asCitations, dropped, where);
  if (citations !== undefined) turn.citations = citations;
  const error = optional(value, 'error', asTurnError, dropped, where);
  if (error !== undefined) turn.error = error;
  // Files written before media cards have no `media`; they load as before.
  const media = optional(value, 'media', parseMediaCardRef, dropped, where);
  if (media !== undefined) turn.media = media;
  return turn;
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
    const turn = parseTurn(raw, `turn ${i + 1}: `, dropped);
    if (!turn || seen.has(turn.id)) dropped.push(`turn ${i + 1}`);
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
  return {
    value: {
      id: value.id,
      title: typeof value.title === 'string' ? value.title : 'Chat',
      createdAt,
      updatedAt,
      turns,
    },
    dropped,
  };
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
