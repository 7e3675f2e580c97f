/**
 * Today's inline completions as the status bar counts them: accepted suggestions and what the
 * requests cost (`usage.cost`, where the gateway gives it). Kept in globalState, so it is read back
 * from outside data: anything unusable, or another day's tally, starts today's from zero.
 */
import { isRecord } from '../../api/json';

export interface InlineTally {
  /** The local day, `YYYY-MM-DD`. */
  day: string;
  accepted: number;
  requests: number;
  /** What the requests the gateway priced cost. */
  cost: number;
  /** Requests whose cost the gateway did not report (not counted as $0). */
  unpriced: number;
}

export function localDay(now: number): string {
  const date = new Date(now);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** The stored tally if it is today's, else an empty one for today. */
export function parseTally(value: unknown, now: number): InlineTally {
  const day = localDay(now);
  if (!isRecord(value) || value.day !== day) return { day, accepted: 0, requests: 0, cost: 0, unpriced: 0 };
  return {
    day,
    accepted: count(value.accepted),
    requests: count(value.requests),
    cost: count(value.cost),
    unpriced: Math.min(count(value.unpriced), count(value.requests)),
  };
}

/**
 * The tally after one more accepted suggestion, or one more request of that cost (a request with
 * no cost, or a cost that is not a number, counts as unpriced).
 */
export function addToTally(
  stored: unknown,
  now: number,
  change: { accepted?: number; requests?: number; cost?: number },
): InlineTally {
  const tally = parseTally(stored, now);
  return {
    day: tally.day,
    accepted: tally.accepted + count(change.accepted),
    requests: tally.requests + count(change.requests),
    cost: tally.cost + count(change.cost),
    unpriced: tally.unpriced + (change.requests && !isCost(change.cost) ? count(change.requests) : 0),
  };
}

function isCost(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Today's cost as shown: `$0.0123`; with requests the gateway did not price, `$0.0123 + 2 not
 * reported`; with none priced, `cost not reported` (never $0.0000).
 */
export function tallyCostText(tally: InlineTally, digits = 4): string {
  const priced = tally.requests - tally.unpriced;
  if (tally.requests > 0 && priced === 0) return 'cost not reported';
  const cost = `$${tally.cost.toFixed(digits)}`;
  return tally.unpriced > 0 ? `${cost} + ${tally.unpriced} not reported` : cost;
}

/** What an accepted suggestion's command carries. */
export interface AcceptedCompletion {
  model?: string;
  cached: boolean;
}

/**
 * The acceptance command's argument, which any extension could pass: a boolean `cached` and, if
 * any, a short model id; anything else is not an acceptance (undefined: not counted).
 */
export function parseAccepted(value: unknown): AcceptedCompletion | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { cached, model } = value as Record<string, unknown>;
  if (typeof cached !== 'boolean') return undefined;
  if (model === undefined) return { cached };
  if (typeof model !== 'string' || model === '' || model.length > 200) return undefined;
  return { cached, model };
}
