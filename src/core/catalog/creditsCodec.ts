/**
 * The one boundary for the account's credit: `GET /v1/key` (`{data: {limit, usage, limit_remaining}}`)
 * or `GET /v1/credits` (`{data: {total_credits, total_usage}}`), OpenRouter-style. Pure, never throws.
 */
import { isRecord } from '../../api/json';
import type { CreditsDocument } from '../../api/types';

export interface Credits {
  /** USD left, when the gateway says (a key without a limit has none). */
  remaining?: number;
  /** USD spent. */
  used?: number;
  /** USD limit or total bought. */
  total?: number;
}

const MAX_USD = 1e9;

function usd(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && Math.abs(n) <= MAX_USD ? n : undefined;
}

export function parseCredits(document: CreditsDocument | undefined): Credits | undefined {
  if (!document || !isRecord(document.body)) return undefined;
  const data = isRecord(document.body.data) ? document.body.data : document.body;
  let credits: Credits;
  if (document.source === 'key') {
    const total = usd(data.limit);
    const used = usd(data.usage);
    const remaining =
      usd(data.limit_remaining) ?? (total !== undefined && used !== undefined ? total - used : undefined);
    credits = { total, used, remaining };
  } else {
    const total = usd(data.total_credits);
    const used = usd(data.total_usage);
    credits = {
      total,
      used,
      remaining: total !== undefined && used !== undefined ? total - used : undefined,
    };
  }
  if (credits.remaining === undefined && credits.used === undefined && credits.total === undefined)
    return undefined;
  return credits;
}

/**
 * The page where the account's credit is topped up, for gateways whose page we know (OpenRouter).
 * A URL we build ourselves: never a link the gateway sent.
 */
export function creditsPageUrl(baseUrl: string): string | undefined {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  return host === 'openrouter.ai' || host.endsWith('.openrouter.ai')
    ? 'https://openrouter.ai/settings/credits'
    : undefined;
}

export function formatUsd(value: number): string {
  if (value !== 0 && Math.abs(value) < 0.01) return `$${value.toFixed(4)}`;
  return `$${value.toFixed(2)}`;
}

/** One line for a tooltip or a message: "$4.20 of $10.00 left", "$3.10 used". */
export function describeCredits(credits: Credits): string {
  if (credits.remaining !== undefined) {
    return credits.total !== undefined
      ? `${formatUsd(credits.remaining)} of ${formatUsd(credits.total)} credit left`
      : `${formatUsd(credits.remaining)} credit left`;
  }
  return credits.used !== undefined ? `${formatUsd(credits.used)} of credit used` : 'credit unknown';
}
