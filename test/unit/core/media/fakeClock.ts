import type { Clock, TimerHandle } from '../../../../src/core/util/clock';

interface FakeTimer {
  id: number;
  at: number;
  callback: () => void;
}

/**
 * A clock whose time moves only when a test says so. `advance` fires due timers in time order
 * and, between two timers, lets pending promise callbacks run, so async code driven by the timers
 * (a request that resolves, then schedules the next) interleaves as it would in real time.
 */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await settle();
    for (;;) {
      const next = this.earliestDueBy(target);
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.current = Math.max(this.current, next.at);
      next.callback();
      await settle();
    }
    this.current = target;
  }

  private earliestDueBy(limit: number): FakeTimer | undefined {
    let earliest: FakeTimer | undefined;
    for (const timer of this.timers) {
      if (timer.at > limit) continue;
      if (!earliest || timer.at < earliest.at || (timer.at === earliest.at && timer.id < earliest.id))
        earliest = timer;
    }
    return earliest;
  }
}

/** Lets every queued promise callback run (a macrotask turn drains the microtask queue). */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
