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

/**
 * USD for tokens at the catalog's prices (prompt and completion, per token), for a reply whose
 * gateway reported no cost. Undefined when the price or every token count is unknown: then the
 * cost is unknown, not 0.
 */
export function estimateCost(
  tokens: { promptTokens?: number; completionTokens?: number },
  pricing: CatalogPricing | undefined,
): number | undefined {
  if (!pricing) return undefined;
  const { promptTokens, completionTokens } = tokens;
  if (promptTokens === undefined && completionTokens === undefined) return undefined;
  const cost = (promptTokens ?? 0) * pricing.prompt + (completionTokens ?? 0) * pricing.completion;
  return Number.isFinite(cost) && cost >= 0 ? Math.min(MAX_USD, cost) : undefined;
}

/** The turn's usage with an estimated cost where the gateway reported none and a price is known. */
export function withEstimate(usage: TurnUsage, pricing: CatalogPricing | undefined): TurnUsage {
  const { estimatedCost: _old, ...rest } = usage;
  if (usage.cost !== undefined) return rest;
  const estimate = estimateCost(usage, pricing);
  return estimate === undefined ? rest : { ...rest, estimatedCost: estimate };
}

export interface ChatTotals {
  /** Reported costs plus estimated ones; undefined when no reply had either. */
  cost?: number;
  saved?: number;
  /** Part of `cost` is estimated from tokens × price. */
  estimated?: true;
  /** Some reply had usage but neither a cost nor a price: left out of `cost`. */
  unreported?: true;
}

/** What a chat's replies cost and saved, summed, saying which part is estimated or unknown. */
export function chatTotals(usages: ReadonlyArray<TurnUsage | undefined>): ChatTotals {
  const totals: ChatTotals = {};
  for (const usage of usages) {
    if (!usage) continue;
    const cost = usage.cost ?? usage.estimatedCost;
    if (cost !== undefined) totals.cost = (totals.cost ?? 0) + cost;
    if (usage.cost === undefined && usage.estimatedCost !== undefined) totals.estimated = true;
    if (cost === undefined && hasTokens(usage)) totals.unreported = true;
    if (usage.cacheSavings !== undefined) totals.saved = (totals.saved ?? 0) + usage.cacheSavings;
  }
  return totals;
}

function hasTokens(usage: TurnUsage): boolean {
  return (
    usage.promptTokens !== undefined ||
    usage.completionTokens !== undefined ||
    usage.totalTokens !== undefined
  );
}
