/**
 * What one reply used and cost, as the chat shows it: the gateway's `usage` (parsed by type at the
 * client's boundary), completed from its generation record when the stream carried no cost, and
 * what prompt caching saved, from the generation's `cache_discount` or the catalog's prices. Pure.
 */
import { MAX_USD } from '../../api/types';
import type { Generation, Usage } from '../../api/types';
import type { CatalogPricing } from '../catalog/catalogCodec';
import type { TurnUsage } from '../protocol/chatProtocol';

export function toTurnUsage(usage: Usage): TurnUsage {
  const turn: TurnUsage = {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    totalTokens: usage.total_tokens,
    cost: usage.cost,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens,
    cacheWriteTokens: usage.prompt_tokens_details?.cache_write_tokens,
  };
  for (const key of Object.keys(turn) as Array<keyof TurnUsage>)
    if (turn[key] === undefined) delete turn[key];
  return turn;
}

/** Fills what the stream left out from the generation record; what the stream said stays. */
export function withGeneration(usage: TurnUsage | undefined, generation: Generation): TurnUsage {
  const turn: TurnUsage = { ...usage };
  if (turn.cost === undefined && generation.totalCost !== undefined) turn.cost = generation.totalCost;
  if (turn.promptTokens === undefined && generation.promptTokens !== undefined)
    turn.promptTokens = generation.promptTokens;
  if (turn.completionTokens === undefined && generation.completionTokens !== undefined)
    turn.completionTokens = generation.completionTokens;
  if (turn.reasoningTokens === undefined && generation.reasoningTokens !== undefined)
    turn.reasoningTokens = generation.reasoningTokens;
  if (turn.cachedTokens === undefined && generation.cachedTokens !== undefined)
    turn.cachedTokens = generation.cachedTokens;
  if (generation.cacheDiscount !== undefined && generation.cacheDiscount !== 0)
    turn.cacheSavings = generation.cacheDiscount;
  return turn;
}

/**
 * USD that caching saved on this reply (negative: writing the cache cost more than reading it
 * saved), from the catalog's prices: cached tokens at the read price instead of the prompt price,
 * written tokens at the write price, within ±MAX_USD. Undefined when the reply used no cache or a price is unknown.
 */
export function cacheSavings(usage: TurnUsage, pricing: CatalogPricing | undefined): number | undefined {
  if (!pricing) return undefined;
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  if (cached === 0 && written === 0) return undefined;
  if (cached > 0 && pricing.cacheRead === undefined) return undefined;
  const saved = cached * (pricing.prompt - (pricing.cacheRead ?? pricing.prompt));
  const extra = written * ((pricing.cacheWrite ?? pricing.prompt) - pricing.prompt);
  const net = Math.min(MAX_USD, Math.max(-MAX_USD, saved - extra));
  return Number.isFinite(net) && net !== 0 ? net : undefined;
}

/** The turn's usage with the catalog-priced saving, unless the gateway already said what it was. */
export function withSavings(usage: TurnUsage, pricing: CatalogPricing | undefined): TurnUsage {
  if (usage.cacheSavings !== undefined) return usage;
  const saved = cacheSavings(usage, pricing);
  return saved === undefined ? usage : { ...usage, cacheSavings: saved };
}

/** What a chat's replies cost and saved, summed; undefined where no reply said. */
export function chatTotals(usages: ReadonlyArray<TurnUsage | undefined>): { cost?: number; saved?: number } {
  let cost: number | undefined;
  let saved: number | undefined;
  for (const usage of usages) {
    if (usage?.cost !== undefined) cost = (cost ?? 0) + usage.cost;
    if (usage?.cacheSavings !== undefined) saved = (saved ?? 0) + usage.cacheSavings;
  }
  return { cost, saved };
}
