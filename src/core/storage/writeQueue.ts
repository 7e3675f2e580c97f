/**
 * Runs storage writes one at a time, in order, and keeps retrying the ones that fail.
 *
 * - One pending write per key: a newer write for the same key replaces the one still waiting (the
 *   newest snapshot is what counts), and writes for one key never overtake each other.
 * - A failed write is retried with backoff (0.5 s doubling to 30 s) while the others go on; a
 *   newer write for its key takes its place.
 * - `run()` resolves once the write has landed or its first attempt failed: a caller may await it
 *   without ever hanging on a disk that keeps failing. It never rejects.
 * - Failures are reported once per burst (until a write succeeds again).
 */
import { systemClock } from '../util/clock';
import type { Clock, TimerHandle } from '../util/clock';

interface Entry {
  work: () => Promise<void>;
  /** Callers waiting for this key's write. */
  waiting: Array<() => void>;
  attempt: number;
  notBefore: number;
}

export const RETRY_FIRST_MS = 500;
export const RETRY_MAX_MS = 30_000;

export class WriteQueue {
  private readonly pending = new Map<string, Entry>();
  private running = false;
  private timer: TimerHandle;
  private failing = false;
  private disposed = false;
  private idle: Array<() => void> = [];

  constructor(
    /** Told about the first failure of a burst. */
    private readonly onFailure: (error: unknown) => void,
    /** Told when a write succeeds after a burst of failures. */
    private readonly onRecovered: () => void = () => undefined,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Queues `work` for `key`; see the class comment for when the promise resolves. */
  run(key: string, work: () => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      if (this.disposed) return resolve();
      const entry = this.pending.get(key);
      if (entry && entry.attempt > 0) {
        // Its key is being retried after a failure (already reported): take its place, don't wait.
        entry.work = work;
        resolve();
      } else if (entry) {
        entry.work = work;
        entry.waiting.push(resolve);
      } else {
        this.pending.set(key, { work, waiting: [resolve], attempt: 0, notBefore: 0 });
      }
      this.kick();
    });
  }

  /** Writes still waiting, including ones being retried. */
  get size(): number {
    return this.pending.size + (this.running ? 1 : 0);
  }

  /** True while writes fail (between a failure and the next success). */
  get isFailing(): boolean {
    return this.failing;
  }

  /** Resolves when nothing is waiting any more (writes that keep failing keep it waiting). */
  whenIdle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    for (const entry of this.pending.values()) for (const resolve of entry.waiting) resolve();
    this.pending.clear();
    for (const resolve of this.idle.splice(0)) resolve();
  }

  private kick(): void {
    if (this.running || this.disposed) return;
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        if (this.disposed) return;
        const now = this.clock.now();
        const next = [...this.pending].find(([, e]) => e.notBefore <= now);
        if (!next) break;
        const [key, entry] = next;
        this.pending.delete(key);
        try {
          await entry.work();
          if (this.failing) {
            this.failing = false;
            this.onRecovered();
          }
          for (const resolve of entry.waiting) resolve();
        } catch (error) {
          if (!this.failing) {
            this.failing = true;
            this.onFailure(error);
          }
          // Callers stop waiting after the first attempt; the retry goes on without them.
          for (const resolve of entry.waiting.splice(0)) resolve();
          const newer = this.pending.get(key);
          if (newer) {
            // A newer snapshot supersedes the failed one; it inherits the backoff.
            newer.attempt = entry.attempt + 1;
            newer.notBefore = this.clock.now() + backoff(entry.attempt);
          } else {
            entry.attempt++;
            entry.notBefore = this.clock.now() + backoff(entry.attempt - 1);
            this.pending.set(key, entry);
          }
        }
      }
    } finally {
      this.running = false;
    }
    if (this.pending.size === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    // Only retries remain: wake for the earliest.
    const wake = Math.min(...[...this.pending.values()].map((e) => e.notBefore));
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.kick();
      },
      Math.max(0, wake - this.clock.now()),
    );
  }
}

/** 0.5 s, 1 s, 2 s, … up to 30 s. */
export function backoff(attempt: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt, 16));
}
