/**
 * Time as the media-jobs code sees it. The poller takes a Clock instead of calling the globals so
 * that tests can drive hours of polling with a fake clock in milliseconds of real time.
 */

/** Opaque: whatever `setTimeout` returned, handed back to `clearTimeout`. */
export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: wall time and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
