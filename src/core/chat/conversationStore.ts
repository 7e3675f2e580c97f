/**
 * Keeps conversations in extension storage: one JSON file per conversation plus an index, so a
 * long history does not load at start-up and one chat's save does not rewrite the others.
 * Pure: the files come in through `ConversationFiles` (a vscode.workspace.fs folder in the
 * extension, a temporary folder in unit tests).
 */
import type { ConversationSummary, Turn } from '../protocol/chatProtocol';
import { summarize } from './conversation';
import type { Conversation } from './conversation';

export interface ConversationFiles {
  read(name: string): Promise<string | undefined>;
  write(name: string, text: string): Promise<void>;
  delete(name: string): Promise<void>;
}

interface Index {
  version: 1;
  currentId?: string;
  items: ConversationSummary[];
}

const INDEX = 'index.json';
const MAX_CONVERSATIONS = 200;

function isTurn(value: unknown): value is Turn {
  if (!value || typeof value !== 'object') return false;
  const t = value as Record<string, unknown>;
  if (typeof t.id !== 'string' || typeof t.content !== 'string' || typeof t.createdAt !== 'number')
    return false;
  if (t.role === 'user') return true;
  return t.role === 'assistant' && typeof t.status === 'string' && typeof t.model === 'string';
}

function parseConversation(text: string): Conversation | undefined {
  const value = JSON.parse(text) as Partial<Conversation>;
  if (!value || typeof value.id !== 'string' || !Array.isArray(value.turns)) return undefined;
  const turns = value.turns.filter(isTurn).map((t) =>
    // A reply that was streaming when the window closed did not finish: say so.
    t.role === 'assistant' && t.status === 'streaming'
      ? { ...t, reasoning: t.reasoning ?? '', status: 'stopped' as const }
      : t,
  );
  return {
    id: value.id,
    title: typeof value.title === 'string' ? value.title : 'Chat',
    createdAt: typeof value.createdAt === 'number' ? value.createdAt : Date.now(),
    updatedAt: typeof value.updatedAt === 'number' ? value.updatedAt : Date.now(),
    turns,
  };
}

function fileOf(id: string): string {
  return `${id.replace(/[^\w.-]/g, '_')}.json`;
}

export class ConversationStore {
  private index: Index | undefined;
  /** Writes run one after the other, so an older save never lands after a newer one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly files: ConversationFiles,
    /** Told (once per problem) when stored data is unreadable and skipped. */
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  private async loadIndex(): Promise<Index> {
    if (this.index) return this.index;
    let index: Index = { version: 1, items: [] };
    try {
      const text = await this.files.read(INDEX);
      if (text) {
        const parsed = JSON.parse(text) as Partial<Index>;
        const items = Array.isArray(parsed.items)
          ? parsed.items.filter(
              (i): i is ConversationSummary => !!i && typeof i.id === 'string' && typeof i.title === 'string',
            )
          : [];
        index = {
          version: 1,
          currentId: typeof parsed.currentId === 'string' ? parsed.currentId : undefined,
          items,
        };
      }
    } catch (error) {
      this.onProblem(`The chat history index could not be read and was reset (${(error as Error).message}).`);
    }
    this.index = index;
    return index;
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private writeIndex(index: Index): Promise<void> {
    return this.files.write(INDEX, JSON.stringify(index));
  }

  /** Summaries, most recently updated first. */
  async list(): Promise<ConversationSummary[]> {
    const index = await this.loadIndex();
    return [...index.items].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async currentId(): Promise<string | undefined> {
    return (await this.loadIndex()).currentId;
  }

  async load(id: string): Promise<Conversation | undefined> {
    try {
      const text = await this.files.read(fileOf(id));
      if (!text) return undefined;
      const conversation = parseConversation(text);
      if (!conversation) throw new Error('not a conversation');
      return conversation;
    } catch (error) {
      this.onProblem(`A saved chat could not be read and was skipped (${(error as Error).message}).`);
      return undefined;
    }
  }

  /** Saves the conversation (skipping empty ones) and makes it the current one. */
  save(conversation: Conversation, makeCurrent = true): Promise<void> {
    const snapshot = JSON.stringify(conversation);
    const summary = summarize(conversation);
    return this.enqueue(async () => {
      const index = await this.loadIndex();
      if (conversation.turns.length > 0) {
        await this.files.write(fileOf(conversation.id), snapshot);
        index.items = [summary, ...index.items.filter((i) => i.id !== conversation.id)];
      }
      if (makeCurrent) index.currentId = conversation.id;
      const dropped = index.items.splice(MAX_CONVERSATIONS);
      await this.writeIndex(index);
      for (const old of dropped) await this.files.delete(fileOf(old.id)).catch(() => undefined);
    });
  }

  delete(id: string): Promise<void> {
    return this.enqueue(async () => {
      const index = await this.loadIndex();
      index.items = index.items.filter((i) => i.id !== id);
      if (index.currentId === id) index.currentId = undefined;
      await this.writeIndex(index);
      await this.files.delete(fileOf(id)).catch(() => undefined);
    });
  }

  /** Resolves when every save so far has been written. */
  flush(): Promise<void> {
    return this.queue.then(() => undefined);
  }
}
