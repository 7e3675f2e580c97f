/**
 * When to check a media job's status. Pure functions of the check number, so the rules can be
 * tested and benchmarked without timers.
 *
 * The rule: most image jobs finish within seconds, so the first checks come quickly (1 s, 2 s,
 * 5 s, 10 s after the previous one); after that each wait is 1.5 times the last (15 s, 22.5 s,
 * ...) up to the maximum interval (default 30 s), so a long video job costs about two requests
 * a minute. Every wait gets ±20% jitter so jobs started together do not poll in lockstep.
 */

export const DEFAULT_MAX_INTERVAL_MS = 30_000;
/** Below this, "backing off" would be more aggressive than the early checks themselves. */
export const MIN_MAX_INTERVAL_MS = 5_000;
/** The gateway's Retry-After is honoured up to this; a bogus "wait a day" must not strand a job. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * How long a job is polled at all, from its creation. Generations take minutes; a gateway that
 * says "processing" for a day is not going to finish, and must not keep us asking (perhaps at a
 * polling URL on another host) for ever.
 */
export const MAX_POLL_AGE_MS = 24 * 60 * 60_000;

const RAMP_MS = [1_000, 2_000, 5_000, 10_000];
const GROWTH = 1.5;
const JITTER = 0.2;
const FIRST_FAILURE_BACKOFF_MS = 2_000;

export interface PollScheduleOptions {
  /** Longest wait between two checks; clamped to at least MIN_MAX_INTERVAL_MS. */
  maxIntervalMs?: number;
  /** A source of numbers in [0, 1); pass one to make the jitter deterministic. */
  random?: () => number;
}

export function normalizeMaxInterval(maxIntervalMs: number | undefined): number {
  if (maxIntervalMs === undefined || !Number.isFinite(maxIntervalMs)) return DEFAULT_MAX_INTERVAL_MS;
  return Math.max(MIN_MAX_INTERVAL_MS, maxIntervalMs);
}

/**
 * Wait before check number `checkIndex` (0 = the first check, counted from the job's creation;
 * later ones from the previous check), without jitter.
 */
export function baseDelayMs(checkIndex: number, maxIntervalMs?: number): number {
  const max = normalizeMaxInterval(maxIntervalMs);
  const index = Math.max(0, Math.floor(checkIndex));
  const lastRampIndex = RAMP_MS.length - 1;
  const delay =
    index <= lastRampIndex ? RAMP_MS[index] : RAMP_MS[lastRampIndex] * GROWTH ** (index - lastRampIndex);
  return Math.min(max, delay);
}

/** `baseDelayMs` with jitter. */
export function pollDelayMs(checkIndex: number, options: PollScheduleOptions = {}): number {
  return withJitter(baseDelayMs(checkIndex, options.maxIntervalMs), options.random);
}

/**
 * Wait after `failures` consecutive failed checks (gateway errors, network down): doubling from
 * 2 s up to the maximum interval, and never shorter than the job's regular schedule.
 */
export function failureDelayMs(
  failures: number,
  checkIndex: number,
  options: PollScheduleOptions = {},
): number {
  const max = normalizeMaxInterval(options.maxIntervalMs);
  const doubling = FIRST_FAILURE_BACKOFF_MS * 2 ** Math.max(0, failures - 1);
  const delay = Math.min(max, Math.max(baseDelayMs(checkIndex, max), doubling));
  return withJitter(delay, options.random);
}

/** The gateway's Retry-After: never sooner, up to 10% later so waiting jobs do not return at once. */
export function retryAfterDelayMs(retryAfterSeconds: number, random: () => number = Math.random): number {
  const asked = Math.min(MAX_RETRY_AFTER_MS, Math.max(0, retryAfterSeconds * 1000));
  return Math.round(asked * (1 + 0.1 * random()));
}

/** The longest wait, jittered: for answers that will not change soon (other 4xx). */
export function maxIntervalDelayMs(options: PollScheduleOptions = {}): number {
  return withJitter(normalizeMaxInterval(options.maxIntervalMs), options.random);
}

export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (1 + JITTER * (2 * random() - 1)));
}

/**
 * The fewest status requests this schedule makes to see a job finish that takes `durationMs`
 * from creation, with no jitter and instant answers: the yardstick for measured request counts.
 */
export function minimumRequestsFor(durationMs: number, maxIntervalMs?: number): number {
  if (Number.isNaN(durationMs) || durationMs === Infinity) {
    throw new RangeError(`minimumRequestsFor needs a finite duration, got ${durationMs}`);
  }
  let checkedAt = 0;
  let requests = 0;
  do {
    checkedAt += baseDelayMs(requests, maxIntervalMs);
    requests++;
  } while (checkedAt < durationMs);
  return requests;
}
