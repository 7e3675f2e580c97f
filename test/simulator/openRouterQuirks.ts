/**
 * The simulator's OpenRouter-quirks mode (`openRouterQuirks` in its options): the gateway as
 * OpenRouter really answers, where it differs from the plain shape. Collected here so that each
 * quirk is one switch others can add to.
 *
 * Cost and caching:
 * - `usage` comes only in the last chunk, with `cost`, `cost_details.upstream_inference_cost`,
 *   `prompt_tokens_details.{cached_tokens, cache_write_tokens}` and reasoning tokens; the cost is
 *   priced from the catalog entry, cache reads and writes at their own prices;
 * - models that cache only where asked (`anthropic/*`, `google/gemini*`) read the longest prefix
 *   written before, up to the last `cache_control` mark, and write the rest up to that mark; a
 *   request without marks caches nothing. Other models cache every prompt by themselves and read
 *   the longest prefix seen before;
 * - the reply's id comes in an `X-Generation-Id` header too;
 * - `GET /v1/generation?id=` answers 404 for the first `generation404s` asks of each id (the
 *   record appears a while after the reply ends), then the record;
 * - scenario `no-usage`: the stream carries no `usage` (the record still exists);
 * - scenario `402-inflight[:n]`: the first n chat requests (default 1) answer 402 with metadata
 *   saying the balance is held by requests in flight.
 */
import type { ServerResponse } from 'node:http';
import { isRecord, sendError, sendJson } from './respond';
import { tokens } from './replies';

export interface OpenRouterQuirks {
  /** 404s each generation id gets before its record is served (default 0). */
  generation404s?: number;
}

/** The record `GET /v1/generation?id=` serves for one reply. */
export interface GenerationRecord {
  usage: Record<string, unknown>;
  model: string;
  provider: string;
}

interface Prices {
  prompt: number;
  completion: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Per token; what the simulator uses when the catalog does not price the model. */
const FALLBACK_PRICES: Prices = {
  prompt: 0.15e-6,
  completion: 0.6e-6,
  cacheRead: 0.075e-6,
  cacheWrite: 0.15e-6,
};

export function explicitCaching(model: string): boolean {
  return /^anthropic\//i.test(model) || /^google\/gemini/i.test(model);
}

/** How many `cache_control` marks the request's messages carry. */
export function cacheMarks(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let count = 0;
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const part of message.content) if (isRecord(part) && part.cache_control !== undefined) count++;
  }
  return count;
}

/**
 * One message as the cache sees it: its role and its words, whatever the form (a string or
 * parts, marked or not), so a prefix marked in one turn matches the same messages unmarked in
 * the next.
 */
function cacheForm(message: unknown): string {
  if (!isRecord(message)) return JSON.stringify(message);
  const content = Array.isArray(message.content)
    ? message.content.map((part: unknown) => {
        if (!isRecord(part)) return part;
        const { cache_control: _mark, ...rest } = part;
        void _mark;
        return rest;
      })
    : message.content;
  const text =
    Array.isArray(content) && content.length === 1 && isRecord(content[0]) && content[0].type === 'text'
      ? content[0].text
      : content;
  return JSON.stringify([message.role, text, message.tool_calls ?? null, message.tool_call_id ?? null]);
}

/** Index of the last message with a `cache_control` mark, or -1. */
function lastMarked(messages: unknown[]): number {
  let last = -1;
  messages.forEach((message, index) => {
    if (cacheMarks([message]) > 0) last = index;
  });
  return last;
}

export class QuirksState {
  /** Every reply's record, by id, whatever the mode (tests compare with what the chat shows). */
  readonly generations = new Map<string, GenerationRecord>();
  private readonly asks = new Map<string, number>();
  private readonly cached = new Set<string>();

  constructor(
    readonly options: OpenRouterQuirks | undefined,
    private readonly models: () => unknown[],
  ) {}

  get enabled(): boolean {
    return this.options !== undefined;
  }

  /**
   * The usage of a reply in this mode: cache reads and writes decided from the messages and what
   * was seen before, priced from the catalog.
   */
  usage(
    model: string,
    messages: unknown[],
    completionTokens: number,
    reasoningTokens: number,
  ): Record<string, unknown> {
    const promptTokens = tokens(JSON.stringify(messages));
    const forms = messages.map(cacheForm);
    const prefixKey = (end: number): string => `${model}|${forms.slice(0, end + 1).join('\n')}`;
    const prefixTokens = (end: number): number =>
      Math.min(promptTokens, tokens(JSON.stringify(messages.slice(0, end + 1))));
    // Explicit caching reads and writes only up to the last mark; automatic caching any prefix.
    const explicit = explicitCaching(model);
    const limit = explicit ? lastMarked(messages) : messages.length - 1;
    let hit = -1;
    for (let end = limit; end >= 0; end--) {
      if (this.cached.has(prefixKey(end))) {
        hit = end;
        break;
      }
    }
    const cachedTokens = hit >= 0 ? prefixTokens(hit) : 0;
    const writeTokens = explicit && limit > hit ? prefixTokens(limit) - cachedTokens : 0;
    if (limit >= 0) this.cached.add(prefixKey(limit));
    const prices = this.prices(model);
    const uncached = promptTokens - cachedTokens - writeTokens;
    const output = completionTokens + reasoningTokens;
    const cost =
      uncached * prices.prompt +
      cachedTokens * prices.cacheRead +
      writeTokens * prices.cacheWrite +
      output * prices.completion;
    const rounded = Number(cost.toFixed(10));
    return {
      prompt_tokens: promptTokens,
      completion_tokens: output,
      total_tokens: promptTokens + output,
      cost: rounded,
      is_byok: false,
      cost_details: { upstream_inference_cost: Number((rounded * 0.95).toFixed(10)) },
      prompt_tokens_details: { cached_tokens: cachedTokens, cache_write_tokens: writeTokens },
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
    };
  }

  remember(id: string, record: GenerationRecord): void {
    this.generations.set(id, record);
  }

  /** `GET /v1/generation?id=`. */
  answerGeneration(response: ServerResponse, id: string | null): void {
    const record = id ? this.generations.get(id) : undefined;
    const asked = id ? (this.asks.get(id) ?? 0) : 0;
    if (id) this.asks.set(id, asked + 1);
    if (!id || !record || asked < (this.options?.generation404s ?? 0))
      return sendError(response, 404, `Generation ${id ?? ''} not found`);
    const usage = record.usage;
    const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
    const completionDetails = isRecord(usage.completion_tokens_details)
      ? usage.completion_tokens_details
      : {};
    const prices = this.prices(record.model);
    const cached = Number(details.cached_tokens ?? 0);
    const written = Number(details.cache_write_tokens ?? 0);
    sendJson(response, 200, {
      data: {
        id,
        model: record.model,
        provider_name: record.provider,
        total_cost: usage.cost,
        cache_discount: Number(
          (
            cached * (prices.prompt - prices.cacheRead) -
            written * (prices.cacheWrite - prices.prompt)
          ).toFixed(10),
        ),
        upstream_inference_cost: isRecord(usage.cost_details)
          ? usage.cost_details.upstream_inference_cost
          : null,
        tokens_prompt: usage.prompt_tokens,
        tokens_completion: usage.completion_tokens,
        native_tokens_prompt: usage.prompt_tokens,
        native_tokens_completion: usage.completion_tokens,
        native_tokens_reasoning: completionDetails.reasoning_tokens ?? 0,
        native_tokens_cached: cached,
        streamed: true,
        finish_reason: 'stop',
      },
    });
  }

  private prices(model: string): Prices {
    const entry = this.models().find((m) => isRecord(m) && m.id === model);
    const pricing = isRecord(entry) && isRecord(entry.pricing) ? entry.pricing : undefined;
    const price = (name: string, fallback: number): number => {
      const value = Number(pricing?.[name]);
      return Number.isFinite(value) && pricing?.[name] !== undefined ? value : fallback;
    };
    const prompt = price('prompt', FALLBACK_PRICES.prompt);
    return {
      prompt,
      completion: price('completion', FALLBACK_PRICES.completion),
      cacheRead: price('input_cache_read', prompt),
      cacheWrite: price('input_cache_write', prompt),
    };
  }
}

/** `402-inflight`: the balance is held by requests still running. */
export function sendInFlight402(response: ServerResponse): void {
  sendError(
    response,
    402,
    'Insufficient credits: your remaining balance is reserved by requests in flight. Try again when they finish.',
    { metadata: { reason: 'in_flight_budget', in_flight_reserved: 0.42 } },
  );
}
