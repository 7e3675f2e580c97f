/**
 * Keeps conversations in extension storage: one JSON file per conversation plus an index, so a
 * long history does not load at start-up and one chat's save does not rewrite the others.
 * Pure: the files come in through `StoreFiles` (a vscode.workspace.fs folder in the extension,
 * a temporary folder in unit tests).
 *
 * Several windows share the folder for months, so:
 * - every write is atomic (see StoreFiles.write) and goes through one WriteQueue (in order per
 *   conversation, retried with backoff when it fails, never blocking its caller for long);
 * - the index is re-read and merged by id just before it is written (the newer summary wins,
 *   deletions are remembered so a merge does not bring a chat back), and `refresh()` follows what
 *   other windows wrote;
 * - a conversation's turns are merged with the copy on disk, so turns another window added to the
 *   same chat are not overwritten;
 * - a file that does not parse is moved aside and reported (`onKept`), never deleted or
 *   overwritten, and a missing or unreadable index is rebuilt from the conversation files.
 */
import { tryParseJson } from '../../api/json';
import type { ConversationSummary, Turn } from '../protocol/chatProtocol';
import { describeError, hashName, isAsideName, isValidId, keepAside } from '../storage/storeFiles';
import type { StoreEvents, StoreFiles } from '../storage/storeFiles';
import { WriteQueue } from '../storage/writeQueue';
import { Emitter } from '../util/emitter';
import type { Event } from '../util/emitter';
import { summarize } from './conversation';
import type { Conversation } from './conversation';
import { emptyIndex, INDEX_VERSION, mergeIndex, parseConversation, parseIndex } from './conversationCodec';
import type { ConversationIndex } from './conversationCodec';

/** The folder as the store sees it (kept under this name for its first users). */
export type ConversationFiles = StoreFiles;

export const INDEX_FILE = 'index.json';
const MAX_CONVERSATIONS = 200;

/** The file a conversation is written to: one per id, whatever characters the id has. */
export function conversationFile(id: string): string {
  return `${hashName(id)}.json`;
}

/** The name earlier versions used (different ids could share it); still read, then migrated. */
export function legacyConversationFile(id: string): string {
  return `${id.replace(/[^\w.-]/g, '_')}.json`;
}

export type ConversationStoreOptions = StoreEvents;

export interface ConversationsChange {
  /** Conversations another writer added, changed or deleted. */
  ids: string[];
}

type IndexRead =
  { kind: 'ok'; index: ConversationIndex; incomplete: boolean } | { kind: 'missing' } | { kind: 'corrupt' };

export class ConversationStore {
  private index: ConversationIndex | undefined;
  private loadingIndex: Promise<ConversationIndex> | undefined;
  private readonly queue: WriteQueue;
  /** Turn ids this window has seen per conversation: a turn on disk not among them is another window's. */
  private readonly seenTurns = new Map<string, Set<string>>();
  /** Conversations read from a file under the old name, to move on their next save. */
  private readonly legacy = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly keptIds = new Set<string>();
  /** Summaries of saves still queued (or being retried), shown in the list meanwhile. */
  private readonly unsaved = new Map<string, ConversationSummary>();
  private readonly changes = new Emitter<ConversationsChange>();
  private readonly options: ConversationStoreOptions;
  private readonly clock: { now(): number };

  /** Fires when `refresh()` or a save finds changes made by another window. */
  readonly onDidChange: Event<ConversationsChange> = this.changes.event;

  constructor(
    private readonly files: StoreFiles,
    options: ConversationStoreOptions | ((message: string) => void) = {},
  ) {
    this.options = typeof options === 'function' ? { onProblem: options } : options;
    this.clock = this.options.clock ?? { now: () => Date.now() };
    this.queue = new WriteQueue(
      (error) => this.options.onSaveFailed?.(error),
      () => this.options.onSaveRecovered?.(),
      this.options.clock,
    );
  }

  /** Summaries, most recently updated first. */
  async list(): Promise<ConversationSummary[]> {
    const index = await this.loadIndex();
    const items = new Map(index.items.map((i) => [i.id, i]));
    for (const [id, summary] of this.unsaved)
      if (index.deleted[id] === undefined || index.deleted[id] < summary.updatedAt) items.set(id, summary);
    return [...items.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async currentId(): Promise<string | undefined> {
    return (await this.loadIndex()).currentId;
  }

  /**
   * The conversation, or undefined when it is gone or unreadable. An unreadable file is moved
   * aside and reported; either way the chat leaves the list (a later save brings it back).
   */
  async load(id: string): Promise<Conversation | undefined> {
    if (!isValidId(id)) return undefined;
    const index = await this.loadIndex();
    for (const name of new Set([conversationFile(id), legacyConversationFile(id)])) {
      let text: string | undefined;
      try {
        text = await this.files.read(name);
      } catch (error) {
        // Unreadable just now (locked, permissions): not the file's fault; leave it alone.
        this.problem(`read:${name}`, `A saved chat could not be read (${describeError(error)}).`);
        return undefined;
      }
      if (text === undefined) continue;
      const json = tryParseJson(text);
      const parsed = json.ok ? parseConversation(json.value, this.clock.now()) : undefined;
      if (!parsed) {
        await this.keep(name, json.ok ? 'not a conversation' : 'not valid JSON');
        this.keptIds.add(id);
        this.dropFromList(id);
        return undefined;
      }
      // An old-style name that another id shared: not this conversation.
      if (parsed.value.id !== id) continue;
      if (parsed.dropped.length)
        this.problem(
          `dropped:${id}`,
          `Parts of a saved chat could not be read and were left out: ${parsed.dropped.slice(0, 10).join(', ')}.`,
        );
      if (name !== conversationFile(id)) this.legacy.add(id);
      this.seenTurns.set(id, new Set(parsed.value.turns.map((t) => t.id)));
      return parsed.value;
    }
    if (index.items.some((i) => i.id === id)) this.dropFromList(id);
    return undefined;
  }

  /** True when `load(id)` found the chat's file unreadable and kept it aside (and reported that). */
  wasKeptAside(id: string): boolean {
    return this.keptIds.has(id);
  }

  /** Saves the conversation (skipping empty ones) and, unless told otherwise, makes it the current one. */
  save(conversation: Conversation, makeCurrent = true): Promise<void> {
    const snapshot: Conversation = structuredClone(conversation);
    const id = snapshot.id;
    if (!isValidId(id)) {
      this.problem('save-id', 'A chat with an unusable id was not saved.');
      return Promise.resolve();
    }
    const seen = this.seenTurns.get(id) ?? new Set<string>();
    for (const turn of snapshot.turns) seen.add(turn.id);
    this.seenTurns.set(id, seen);
    // The list shows the change at once; the files follow through the queue.
    // The list shows the change at once; the index takes it only once the chat's file is
    // written, so another window never finds a summary newer than the file it summarizes.
    const summary = summarize(snapshot);
    if (snapshot.turns.length > 0) this.unsaved.set(id, summary);
    if (makeCurrent && this.index) this.index.currentId = id;
    return this.queue.run(id, async () => {
      const ours = await this.loadIndex();
      if (snapshot.turns.length > 0) {
        const written = await this.writeConversation(snapshot, seen);
        this.applyLocally(await this.loadIndex(), written, makeCurrent);
        if (this.unsaved.get(id) === summary) this.unsaved.delete(id);
      } else if (makeCurrent) ours.currentId = id;
      await this.writeIndex();
    });
  }

  delete(id: string): Promise<void> {
    const deletedAt = this.clock.now();
    this.unsaved.delete(id);
    if (this.index) this.deleteLocally(this.index, id, deletedAt);
    return this.queue.run(id, async () => {
      this.deleteLocally(await this.loadIndex(), id, deletedAt);
      await this.writeIndex();
      await this.deleteFiles(id);
    });
  }

  /**
   * Reads what other windows wrote and merges it in; fires `onDidChange` for the conversations
   * they added, changed or deleted. Never throws.
   */
  async refresh(): Promise<void> {
    try {
      const before = await this.loadIndex();
      const read = await this.readIndex();
      let theirs: ConversationIndex;
      if (read.kind === 'ok') theirs = read.index;
      else {
        theirs = await this.rebuild();
        // Write the rebuilt index back (merged like any write).
        void this.queue.run('', () => this.writeIndex());
      }
      const after = mergeIndex(theirs, this.index ?? before);
      this.index = after;
      const ids = changedIds(before, after);
      if (ids.length) this.changes.fire({ ids });
      // Two windows that wrote at the same moment: the later write may lack the other's chats.
      // Whoever notices writes the merge back, so the windows converge on the union.
      if (read.kind === 'ok' && changedIds(theirs, after).length > 0)
        void this.queue.run('', () => this.writeIndex());
    } catch (error) {
      this.problem('refresh', `The chat history could not be re-read (${describeError(error)}).`);
    }
  }

  /** Resolves when every save so far has been written (or is being retried after a failure). */
  async flush(): Promise<void> {
    await this.queue.whenIdle();
  }

  /** True while saves fail and are being retried. */
  get isFailing(): boolean {
    return this.queue.isFailing;
  }

  dispose(): void {
    this.queue.dispose();
    this.changes.dispose();
  }

  // ---- the index ------------------------------------------------------------------------

  private loadIndex(): Promise<ConversationIndex> {
    if (this.index) return Promise.resolve(this.index);
    this.loadingIndex ??= (async () => {
      let index: ConversationIndex;
      try {
        const read = await this.readIndex();
        if (read.kind === 'ok' && !read.incomplete) index = await this.adoptOrphans(read.index);
        else {
          index = await this.rebuild(read);
          // Put the repaired index on disk now, not at the next save.
          if (read.kind !== 'missing' || index.items.length > 0)
            void this.queue.run('', () => this.writeIndex());
        }
      } catch (error) {
        // Not readable now: start empty in memory; writes merge with the file, so it is not lost.
        this.problem('index-read', `The chat history could not be read (${describeError(error)}).`);
        index = emptyIndex();
      }
      this.index ??= index;
      return this.index;
    })();
    return this.loadingIndex;
  }

  /** The index file as it is on disk; a corrupt one is moved aside first. Throws on I/O errors. */
  private async readIndex(): Promise<IndexRead> {
    const text = await this.files.read(INDEX_FILE);
    if (text === undefined) return { kind: 'missing' };
    const json = tryParseJson(text);
    const parsed = json.ok ? parseIndex(json.value) : undefined;
    if (!parsed) {
      await this.keep(INDEX_FILE, json.ok ? 'not a chat history index' : 'not valid JSON');
      return { kind: 'corrupt' };
    }
    if (parsed.dropped.length)
      this.problem(
        'index-dropped',
        `Entries of the chat history index could not be read (${parsed.dropped.slice(0, 10).join(', ')}); they are rebuilt from the chats.`,
      );
    return { kind: 'ok', index: parsed.value, incomplete: parsed.dropped.length > 0 };
  }

  /**
   * Adds conversations whose files the index does not account for (an index written by an older
   * version, by hand, or by a window that lost a race): a listing and a hash per id, and a read
   * only of the files left over.
   */
  private async adoptOrphans(index: ConversationIndex): Promise<ConversationIndex> {
    const known = new Set<string>();
    for (const id of [...index.items.map((i) => i.id), ...Object.keys(index.deleted)])
      known.add(conversationFile(id)).add(legacyConversationFile(id));
    const orphans = (await this.files.list()).filter(
      (name) => name.endsWith('.json') && name !== INDEX_FILE && !isAsideName(name) && !known.has(name),
    );
    if (orphans.length === 0) return index;
    const found = await this.summariesOf(orphans);
    if (found.length === 0) return index;
    this.problem('orphans', `${found.length} saved chat(s) missing from the history index were added back.`);
    const merged = mergeIndex(index, { items: found, deleted: emptyIndex().deleted });
    void this.queue.run('', () => this.writeIndex());
    return merged;
  }

  /** Summaries of the given conversation files; unreadable ones are kept aside. */
  private async summariesOf(names: readonly string[]): Promise<ConversationSummary[]> {
    const items = new Map<string, ConversationSummary>();
    for (const name of names) {
      let text: string | undefined;
      try {
        text = await this.files.read(name);
      } catch {
        continue;
      }
      if (text === undefined) continue;
      const json = tryParseJson(text);
      const parsed = json.ok ? parseConversation(json.value, this.clock.now()) : undefined;
      if (!parsed) {
        await this.keep(name, json.ok ? 'not a conversation' : 'not valid JSON');
        continue;
      }
      const conversation = parsed.value;
      if (name !== conversationFile(conversation.id)) {
        if (name !== legacyConversationFile(conversation.id)) continue;
        this.legacy.add(conversation.id);
      }
      const summary = summarize(conversation);
      const other = items.get(summary.id);
      if (!other || other.updatedAt < summary.updatedAt) items.set(summary.id, summary);
    }
    return [...items.values()];
  }

  /**
   * The index from the conversation files themselves (each carries its id, title and times),
   * merged with what could be read of the old index (deletions, the current chat).
   */
  private async rebuild(read?: IndexRead): Promise<ConversationIndex> {
    const index = emptyIndex();
    if (read?.kind === 'ok') {
      index.deleted = read.index.deleted;
      if (read.index.currentId) index.currentId = read.index.currentId;
    }
    const names = (await this.files.list()).filter(
      (name) => name.endsWith('.json') && name !== INDEX_FILE && !isAsideName(name),
    );
    const items = await this.summariesOf(names);
    index.items = items;
    const merged = mergeIndex(index, emptyIndex());
    if (read?.kind === 'ok') merged.items = mergeIndex(read.index, merged).items;
    if (read && (read.kind !== 'missing' || merged.items.length > 0)) {
      this.problem(
        'rebuilt',
        `The chat history index was ${read.kind === 'missing' ? 'missing' : 'unreadable'}; it was rebuilt from ${merged.items.length} saved chat(s).`,
      );
    }
    return merged;
  }

  /** Re-reads the index, merges ours into it, applies the size limit and writes it (atomically). */
  private async writeIndex(): Promise<void> {
    const read = await this.readIndex();
    const theirs = read.kind === 'ok' ? read.index : await this.rebuild();
    const ours = await this.loadIndex();
    const merged = mergeIndex(theirs, ours);
    merged.items.sort((a, b) => b.updatedAt - a.updatedAt);
    const dropped = merged.items.splice(MAX_CONVERSATIONS);
    const now = this.clock.now();
    for (const old of dropped) merged.deleted[old.id] = Math.max(now, old.updatedAt);
    const before = this.index ?? ours;
    this.index = merged;
    await this.files.write(
      INDEX_FILE,
      JSON.stringify({
        version: INDEX_VERSION,
        currentId: merged.currentId,
        items: merged.items,
        deleted: merged.deleted,
      }),
    );
    for (const old of dropped) await this.deleteFiles(old.id);
    const ids = changedIds(before, merged);
    if (ids.length) this.changes.fire({ ids });
  }

  private applyLocally(index: ConversationIndex, conversation: Conversation, makeCurrent: boolean): void {
    if (conversation.turns.length > 0) {
      const summary = summarize(conversation);
      index.items = [summary, ...index.items.filter((i) => i.id !== conversation.id)];
      const deletedAt = index.deleted[conversation.id];
      if (deletedAt !== undefined && deletedAt < summary.updatedAt) delete index.deleted[conversation.id];
    }
    if (makeCurrent) index.currentId = conversation.id;
  }

  private deleteLocally(index: ConversationIndex, id: string, deletedAt: number): void {
    index.items = index.items.filter((i) => i.id !== id);
    index.deleted[id] = Math.max(deletedAt, index.deleted[id] ?? 0);
    if (index.currentId === id) delete index.currentId;
  }

  /** Takes a chat that cannot be opened out of the list, without hiding a newer save of it. */
  private dropFromList(id: string): void {
    const index = this.index;
    const item = index?.items.find((i) => i.id === id);
    if (!index || !item) return;
    this.deleteLocally(index, id, item.updatedAt);
    void this.queue.run(id, () => this.writeIndex());
  }

  // ---- conversation files ---------------------------------------------------------------

  /**
   * Writes the conversation, first merging in turns another window added to the copy on disk;
   * returns what was written. A copy on disk that does not parse is moved aside, not overwritten.
   */
  private async writeConversation(conversation: Conversation, seen: Set<string>): Promise<Conversation> {
    const name = conversationFile(conversation.id);
    let written = conversation;
    const text = await this.files.read(name);
    if (text !== undefined) {
      const json = tryParseJson(text);
      const disk = json.ok ? parseConversation(json.value, this.clock.now()) : undefined;
      if (!disk) await this.keep(name, json.ok ? 'not a conversation' : 'not valid JSON');
      else if (disk.value.id === conversation.id) {
        const ours = new Set(conversation.turns.map((t) => t.id));
        const theirs = disk.value.turns.filter((t) => !ours.has(t.id) && !seen.has(t.id));
        if (theirs.length) {
          written = {
            ...conversation,
            turns: mergeTurns(conversation.turns, theirs),
            updatedAt: Math.max(conversation.updatedAt, disk.value.updatedAt),
          };
          this.changes.fire({ ids: [conversation.id] });
        }
      }
    }
    await this.files.write(name, JSON.stringify(written));
    if (this.legacy.has(conversation.id)) {
      const old = legacyConversationFile(conversation.id);
      if (old !== name) await this.files.delete(old).catch(() => undefined);
      this.legacy.delete(conversation.id);
    }
    return written;
  }

  private async deleteFiles(id: string): Promise<void> {
    await this.files.delete(conversationFile(id)).catch(() => undefined);
    // The old name only if it really holds this conversation (another id may share it).
    const old = legacyConversationFile(id);
    const text = await this.files.read(old).catch(() => undefined);
    if (text === undefined) return;
    const json = tryParseJson(text);
    if (json.ok && parseConversation(json.value)?.value.id === id)
      await this.files.delete(old).catch(() => undefined);
  }

  private async keep(name: string, reason: string): Promise<void> {
    const kept = await keepAside(this.files, name, reason, this.clock.now());
    if (kept) this.options.onKept?.(kept);
    else
      this.problem(
        `keep:${name}`,
        `A saved chat file (${name}) is unreadable (${reason}) and could not be moved aside.`,
      );
  }

  private problem(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.onProblem?.(message);
  }
}

/** Ours in order, theirs slotted in by creation time (a stable merge). */
function mergeTurns(ours: readonly Turn[], theirs: readonly Turn[]): Turn[] {
  const merged = [...ours];
  for (const turn of [...theirs].sort((a, b) => a.createdAt - b.createdAt)) {
    const at = merged.findIndex((t) => t.createdAt > turn.createdAt);
    if (at < 0) merged.push(turn);
    else merged.splice(at, 0, turn);
  }
  return merged;
}

function changedIds(before: ConversationIndex, after: ConversationIndex): string[] {
  const old = new Map(before.items.map((i) => [i.id, i]));
  const ids = new Set<string>();
  for (const item of after.items) {
    const o = old.get(item.id);
    if (!o || o.updatedAt !== item.updatedAt || o.title !== item.title || o.turnCount !== item.turnCount)
      ids.add(item.id);
    old.delete(item.id);
  }
  for (const id of old.keys()) ids.add(id);
  return [...ids];
}
