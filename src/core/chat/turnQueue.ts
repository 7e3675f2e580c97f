/**
 * The chat's turn and queue state machine, pure: one turn runs at a time; a prompt sent while one
 * runs waits in the queue and goes out when the turn ends, however it ends; an operation that
 * stops the running turn to start the next itself (retry, edit-and-resend, switching chats)
 * claims the next turn, and the queue waits for it.
 *
 * The session (host) supplies how a prompt starts a turn and hears when the queue changes; this
 * class knows nothing of VS Code, the gateway or the view.
 */
import type { QueuedPrompt } from '../protocol/chatProtocol';
import { newId } from './conversation';

/** Most prompts that may wait in the queue at once; a longer queue is surely a runaway caller. */
export const MAX_QUEUED = 50;

export interface TurnQueueDeps {
  /** Starts a turn for a queued prompt (its promise settles when the turn has ended). */
  start(text: string): Promise<void>;
  /** The queue changed (an item added, edited, removed or sent). */
  changed(): void;
  /** A queued prompt could not be started. */
  failed(error: unknown): void;
}

/** The running turn: what Stop aborts, and what it waits for. */
export interface RunningTurn {
  readonly turnId: string;
  readonly signal: AbortSignal;
  /** Marks the turn ended: Stop's waiters go on, and the next prompt may go out. */
  end(): void;
}

export class TurnQueue {
  private active: { turnId: string; abort: AbortController; done: Promise<void> } | undefined;
  /** A turn is being started or runs: a new prompt has to wait. */
  private busy = false;
  /** Operations that stopped the turn and take the next one. */
  private claims = 0;
  private items: QueuedPrompt[] = [];
  private closed = false;

  constructor(private readonly deps: TurnQueueDeps) {}

  /** The running turn's id, if one runs. */
  get runningTurnId(): string | undefined {
    return this.active?.turnId;
  }

  /** Whether a turn runs or is about to start. */
  get isBusy(): boolean {
    return this.busy || this.active !== undefined;
  }

  /** Whether a prompt sent now has to wait its turn. */
  mustWait(): boolean {
    return this.busy || this.claims > 0 || this.items.length > 0;
  }

  /** The prompts waiting, oldest first (copies). */
  queued(): QueuedPrompt[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** Queues a prompt; `false` when the queue is full (the caller says so). */
  enqueue(text: string): boolean {
    if (this.items.length >= MAX_QUEUED) return false;
    this.items.push({ id: newId('q'), text });
    this.deps.changed();
    // Nothing may be running after all (the queue was waiting on a turn that just ended).
    this.drain();
    return true;
  }

  /** Replaces the text of a queued prompt (an empty text removes it). */
  edit(id: string, text: string): void {
    const item = this.items.find((queued) => queued.id === id);
    if (!item) return;
    if (!text.trim()) return this.remove(id);
    item.text = text.trim();
    this.deps.changed();
  }

  remove(id: string): void {
    const before = this.items.length;
    this.items = this.items.filter((queued) => queued.id !== id);
    if (this.items.length !== before) this.deps.changed();
  }

  /** A turn is being prepared (before its reply starts): new prompts wait. */
  reserve(): void {
    this.busy = true;
  }

  /** Preparing the turn failed before it ran. */
  release(): void {
    this.busy = false;
  }

  /** The reply of turn `turnId` starts now. */
  begin(turnId: string): RunningTurn {
    this.busy = true;
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const active = { turnId, abort, done };
    this.active = active;
    return {
      turnId,
      signal: abort.signal,
      end: () => {
        if (this.active === active) this.active = undefined;
        this.busy = false;
        finish();
      },
    };
  }

  /** Aborts the running turn and waits until it has ended. */
  async stop(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.abort.abort();
    await active.done;
  }

  /**
   * Stops the running turn for an operation that then starts the next turn itself: queued
   * prompts wait until `then` has finished.
   */
  async claim<T>(then: () => Promise<T>): Promise<T> {
    this.claims++;
    try {
      await this.stop();
      return await then();
    } finally {
      this.claims--;
    }
  }

  /** Sends the oldest queued prompt when no turn runs and nothing else is about to start one. */
  drain(): void {
    if (this.busy || this.claims > 0 || this.closed) return;
    const next = this.items.shift();
    if (!next) return;
    this.deps.changed();
    this.deps.start(next.text).catch((error: unknown) => this.deps.failed(error));
  }

  /** Aborts the running turn and never starts another. */
  close(): void {
    this.closed = true;
    this.active?.abort.abort();
  }
}
