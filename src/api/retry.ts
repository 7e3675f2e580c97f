import { GatewayError } from './errors';
import { attemptFacts } from './transport/exchange';

/** Clock and dice of the retry loop; tests swap them to stay fast and deterministic. */
export interface RetryTiming {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 8_000;
/** Never retry sooner than this after a 429 or 5xx: the gateway needs a real pause. */
export const BACKOFF_FLOOR_MS = 250;
/** A server asking for a longer pause than this is not waited for: the user gets the error. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * How a failed call may be repeated:
 * - `idempotent`: reads, and chat requests before any of their response arrived;
 * - `start-once`: starting a billed job, repeated only when the request provably never left.
 */
export type RetryRule = 'idempotent' | 'start-once';

export interface RetryPolicy {
  rule: RetryRule;
  maxRetries: number;
  timing: RetryTiming;
  signal?: AbortSignal;
}

export const realTiming: RetryTiming = {
  random: Math.random,
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError());
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortedError());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

function abortedError(): GatewayError {
  return new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' });
}

/**
 * Exponential backoff with bounded jitter: 0.5 s, 1 s, 2 s, ... up to 8 s, each scaled by a random
 * 0.75-1.0, and never under 250 ms. "Full jitter" from zero was seen retrying 42 ms after a 500,
 * which gives a struggling gateway no pause at all.
 */
export function backoffDelayMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.max(BACKOFF_FLOOR_MS, Math.floor(ceiling * (0.75 + 0.25 * random())));
}

/** A 402 for credit held by requests in flight is tried again this many times, after a pause. */
export const IN_FLIGHT_402_RETRIES = 2;

/** The pause before the next try, or undefined when the error must reach the caller. */
export function retryDelayMs(error: GatewayError, attempt: number, policy: RetryPolicy): number | undefined {
  if (attempt >= policy.maxRetries) return undefined;
  // The running requests end soon and release what they hold: about 1 s, then 2 s.
  if (error.creditHeldInFlight && error.status === 402 && policy.rule === 'idempotent')
    return attempt < IN_FLIGHT_402_RETRIES ? backoffDelayMs(attempt + 1, policy.timing.random) : undefined;
  if (!mayRetry(error, policy.rule)) return undefined;
  if (error.retryAfter !== undefined) {
    if (error.retryAfter > MAX_RETRY_AFTER_SECONDS) return undefined;
    // "0" (or a date already past, in a header or the body's availability) is no pause at all:
    // every retry would follow at once. The floor holds there too.
    return Math.max(BACKOFF_FLOOR_MS, error.retryAfter * 1000);
  }
  return backoffDelayMs(attempt, policy.timing.random);
}

function mayRetry(error: GatewayError, rule: RetryRule): boolean {
  const facts = attemptFacts(error);
  if (rule === 'start-once') return error.kind === 'network' && facts?.neverSent === true;
  if (error.kind === 'network' || error.kind === 'timeout') return facts?.beforeResponse === true;
  return error.kind === 'http' && error.status !== undefined && (error.status === 429 || error.status >= 500);
}

/** Runs `attemptOnce` (given the 0-based attempt number) until it succeeds or may not be repeated. */
export async function withRetries<T>(
  attemptOnce: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await attemptOnce(attempt);
    } catch (error) {
      if (!GatewayError.is(error)) throw error;
      const delay = retryDelayMs(error, attempt, policy);
      if (delay === undefined) throw error;
      await policy.timing.sleep(delay, policy.signal);
    }
  }
}

/**
 * Seconds from a Retry-After header: either delta-seconds or an HTTP date. Undefined when absent
 * or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
