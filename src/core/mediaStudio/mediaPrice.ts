/**
 * What a media request should cost by its model's catalog price, for the agent's spend caps: the
 * estimate is held against the caps before the job starts. Pure.
 *
 * The catalogs give a short text (`$0.04 per image`, `$0.2 per request`, `from $0.5` for videos
 * priced per SKU; see `src/api/mediaRoutes.ts`). Per image or request, the estimate is that price
 * times the pictures asked for (`n`); per second, times `duration`. A "from" price is the lowest
 * SKU's: held as at least that much. Anything else (no entry, no price, a unit we cannot count)
 * is an unknown price, never a free one.
 */
import { formatCost } from '../util/text';

export interface PriceEstimate {
  /** USD expected; undefined when the catalog gives no price we can count. */
  estimate?: number;
  /** How it was worked out, or why there is none: shown on the card and in the call's result. */
  basis: string;
}

/** Most pictures or seconds one request is counted for: a larger figure is not a count. */
const MAX_COUNT = 10_000;

export function estimateMediaCost(
  price: string | undefined,
  parameters: Readonly<Record<string, unknown>>,
): PriceEstimate {
  if (price === undefined) return { basis: "the gateway's catalogs give no price for this model" };
  const match = /^(from )?\$(\d+(?:\.\d+)?(?:e-?\d+)?)(?: per ([a-z]{1,20}))?$/.exec(price.trim());
  const amount = match ? Number(match[2]) : NaN;
  if (!match || !Number.isFinite(amount) || amount < 0)
    return { basis: `the catalog's price (${price.slice(0, 60)}) cannot be counted` };
  const [, from, , unit] = match;
  let count = 1;
  let counted = '';
  if (unit === 'second') {
    const seconds = largestCount(parameters, DURATION_KEYS);
    if (seconds === null) return { basis: `the length asked for cannot be counted, so no total is known` };
    if (seconds === undefined)
      return { basis: `the catalog's price is ${price} and no duration is given, so no total is known` };
    count = seconds;
    counted = ` × ${seconds} s`;
  } else if (unit === undefined || unit === 'image' || unit === 'request' || unit === 'video') {
    const n = largestCount(parameters, COUNT_KEYS);
    if (n === null)
      return { basis: 'the number of results asked for cannot be counted, so no total is known' };
    if (n !== undefined && n > 1) {
      count = n;
      counted = ` × ${n}`;
    }
  } else return { basis: `the catalog's price is ${price}, a unit that cannot be counted here` };
  const estimate = amount * count;
  return {
    estimate,
    basis: `${from ? 'at least ' : ''}${formatCost(estimate)} by the catalog's price (${price}${counted})`,
  };
}

/** Parameters that ask for more than one result, and for a length in seconds, by gateway. */
const COUNT_KEYS = ['n', 'num_images', 'num_outputs', 'number_of_images'];
const DURATION_KEYS = ['duration', 'seconds', 'duration_seconds'];

/**
 * The largest count among the keys present; undefined when none is present, null when one is
 * present but is not a count (`[5]`, `"1e3"`, over MAX_COUNT): the price is then unknown, never
 * counted as one.
 */
function largestCount(
  parameters: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): number | null | undefined {
  let largest: number | undefined;
  for (const key of keys) {
    if (parameters[key] === undefined) continue;
    const count = positiveCount(parameters[key]);
    if (count === undefined) return null;
    largest = Math.max(largest ?? 0, count);
  }
  return largest;
}

function positiveCount(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 && number <= MAX_COUNT
    ? number
    : undefined;
}
