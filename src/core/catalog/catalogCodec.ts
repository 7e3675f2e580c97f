/**
 * The one boundary for the gateway's model catalog (`GET /v1/models`, OpenRouter shape) and for
 * the copy of it cached on disk. Pure: takes any JSON value, returns our own types, never throws.
 * An entry without a usable id is skipped; a field of the wrong type is left out, not guessed.
 */
import { isRecord } from '../../api/json';
import { toModelId } from '../config/modelId';

export interface CatalogPricing {
  /** USD per input token. */
  prompt: number;
  /** USD per output token. */
  completion: number;
  /** USD per prompt token read from the provider's cache (`input_cache_read`), where priced. */
  cacheRead?: number;
  /** USD per prompt token written to the cache (`input_cache_write`), where priced. */
  cacheWrite?: number;
}

export interface CatalogModel {
  /** As the gateway names it: `openai/gpt-4o`, `gpt-4o`, `llama3.2:3b` (see isModelId). */
  id: string;
  /** Display name (the id when the catalog gives none). */
  name: string;
  contextLength?: number;
  pricing?: CatalogPricing;
  /** e.g. text, image, file, audio. Empty when the catalog does not say. */
  inputModalities: string[];
  outputModalities: string[];
  /** e.g. tools, reasoning, response_format. Empty when the catalog does not say. */
  supportedParameters: string[];
  maxCompletionTokens?: number;
  /**
   * The reasoning efforts the model takes (`reasoning.supported_efforts`), in the catalog's order;
   * absent when the catalog does not list them.
   */
  reasoningEfforts?: string[];
  /** The effort the model uses when none is sent (`reasoning.default_effort`). */
  defaultEffort?: string;
  /** When the gateway stops serving the model (`expiration_date`, as the catalog wrote it). */
  expirationDate?: string;
  /** False for entries that come from the settings (the catalog was unavailable): nothing is known. */
  described: boolean;
}

/** More than any real catalog; a larger answer is cut here rather than slowing every picker. */
export const MAX_CATALOG_MODELS = 5000;
const MAX_NAME = 200;
const MAX_LIST = 32;
const MAX_TOKEN_WORD = 64;
/** A context or output limit beyond this is nonsense, not a model. */
const MAX_TOKENS = 100_000_000;

/** Parses a `GET /v1/models` answer: `{data: [...]}` or a bare array. Undefined for another shape. */
export function parseCatalog(value: unknown): CatalogModel[] | undefined {
  const list = Array.isArray(value) ? value : isRecord(value) ? value.data : undefined;
  if (!Array.isArray(list)) return undefined;
  return parseModels(list);
}

function parseModels(list: unknown[]): CatalogModel[] {
  const models: CatalogModel[] = [];
  const seen = new Set<string>();
  for (const entry of list) {
    if (models.length >= MAX_CATALOG_MODELS) break;
    const model = parseModel(entry);
    if (!model || seen.has(model.id)) continue;
    seen.add(model.id);
    models.push(model);
  }
  return models;
}

export function parseModel(entry: unknown): CatalogModel | undefined {
  if (!isRecord(entry)) return undefined;
  const id = toModelId(entry.id);
  if (id === undefined) return undefined;
  const name = typeof entry.name === 'string' ? oneLine(entry.name) : '';
  const architecture = isRecord(entry.architecture) ? entry.architecture : {};
  const topProvider = isRecord(entry.top_provider) ? entry.top_provider : {};
  const model: CatalogModel = {
    id,
    name: name || id,
    inputModalities: words(architecture.input_modalities),
    outputModalities: words(architecture.output_modalities),
    supportedParameters: words(entry.supported_parameters),
    described: entry.described !== false,
  };
  // The model's own limits, not its top provider's: `top_provider.context_length` is what one
  // upstream serves (often less, sometimes null for a router), and using it compacts or refuses
  // at the wrong size. The top provider's figures stand in only where the entry has none.
  const contextLength = tokenCount(entry.context_length) ?? tokenCount(topProvider.context_length);
  if (contextLength !== undefined) model.contextLength = contextLength;
  const maxCompletion =
    tokenCount(entry.max_completion_tokens) ?? tokenCount(topProvider.max_completion_tokens);
  if (maxCompletion !== undefined)
    model.maxCompletionTokens =
      contextLength !== undefined ? Math.min(maxCompletion, contextLength) : maxCompletion;
  const pricing = parsePricing(entry.pricing);
  if (pricing) model.pricing = pricing;
  const reasoning = isRecord(entry.reasoning) ? entry.reasoning : {};
  const efforts = effortWords(reasoning.supported_efforts);
  if (efforts.length > 0) model.reasoningEfforts = efforts;
  const defaultEffort = parseEffort(reasoning.default_effort);
  if (defaultEffort !== undefined) model.defaultEffort = defaultEffort;
  const expiration = dateText(entry.expiration_date);
  if (expiration !== undefined) model.expirationDate = expiration;
  return model;
}

/** An effort name (`low`, `xhigh`): a short word, lower-cased; undefined for anything else. */
export function parseEffort(value: unknown): string | undefined {
  const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return /^[a-z][a-z0-9_-]{0,23}$/.test(word) ? word : undefined;
}

/** Effort names, each once, at most 12. */
function effortWords(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    if (out.length >= 12) break;
    const word = parseEffort(item);
    if (word && !out.includes(word)) out.push(word);
  }
  return out;
}

/** A date the catalog gave (`2026-12-31`, or an ISO time), kept as written when it parses. */
function dateText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text.length <= 40 && /^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(Date.parse(text))
    ? text
    : undefined;
}

/** Free to use: both prices 0, or a `:free` variant. */
export function isFreeModel(model: CatalogModel): boolean {
  return model.id.endsWith(':free') || (model.pricing?.prompt === 0 && model.pricing.completion === 0);
}

/** Both prices, or none: "-1" (priced per request by a router) and unparsable values count as unknown. */
function parsePricing(value: unknown): CatalogPricing | undefined {
  if (!isRecord(value)) return undefined;
  const prompt = price(value.prompt);
  const completion = price(value.completion);
  if (prompt === undefined || completion === undefined) return undefined;
  const pricing: CatalogPricing = { prompt, completion };
  const cacheRead = price(value.input_cache_read);
  if (cacheRead !== undefined) pricing.cacheRead = cacheRead;
  const cacheWrite = price(value.input_cache_write);
  if (cacheWrite !== undefined) pricing.cacheWrite = cacheWrite;
  return pricing;
}

/** A price per token from the catalog's strings or numbers; undefined when unknown. */
export function price(value: unknown): number | undefined {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  // -0 is a price of 0: kept as -0 it would read back from the cache as 0, a different number.
  return Number.isFinite(n) && n >= 0 && n < 1 ? n + 0 : undefined;
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_TOKENS
    ? value
    : undefined;
}

/** Lower-case identifier words (modalities, parameters), each once, at most 32. */
export function words(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    if (out.length >= MAX_LIST) break;
    if (typeof item !== 'string') continue;
    const word = item.trim().toLowerCase();
    if (word && word.length <= MAX_TOKEN_WORD && /^[a-z0-9_.:-]+$/.test(word) && !out.includes(word))
      out.push(word);
  }
  return out;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_NAME ? `${line.slice(0, MAX_NAME - 1)}…` : line;
}

/** An entry for a model the catalog does not describe (from the settings, or typed). */
export function undescribedModel(id: string): CatalogModel {
  return {
    id,
    name: id,
    inputModalities: [],
    outputModalities: [],
    supportedParameters: [],
    described: false,
  };
}

// ---------------------------------------------------------------------------------------------
// The copy on disk

export const CATALOG_CACHE_VERSION = 1;

export interface CatalogCache {
  version: typeof CATALOG_CACHE_VERSION;
  /** The gateway it came from: a cache of another gateway is not used. */
  baseUrl: string;
  fetchedAt: number;
  models: CatalogModel[];
}

/** Models are written back in the gateway's own shape, so one parser reads both. */
export function encodeCatalogCache(cache: Omit<CatalogCache, 'version'>): string {
  return JSON.stringify({
    version: CATALOG_CACHE_VERSION,
    baseUrl: cache.baseUrl,
    fetchedAt: cache.fetchedAt,
    models: cache.models.map(toWire),
  });
}

/** A model in the OpenRouter shape of `GET /v1/models` (also what the simulator serves). */
export function toWire(model: CatalogModel): Record<string, unknown> {
  return {
    id: model.id,
    name: model.name,
    ...(model.contextLength !== undefined ? { context_length: model.contextLength } : {}),
    ...(model.pricing ? { pricing: wirePricing(model.pricing) } : {}),
    architecture: { input_modalities: model.inputModalities, output_modalities: model.outputModalities },
    supported_parameters: model.supportedParameters,
    ...(model.maxCompletionTokens !== undefined
      ? { top_provider: { max_completion_tokens: model.maxCompletionTokens } }
      : {}),
    ...(model.reasoningEfforts || model.defaultEffort
      ? {
          reasoning: {
            ...(model.reasoningEfforts ? { supported_efforts: model.reasoningEfforts } : {}),
            ...(model.defaultEffort ? { default_effort: model.defaultEffort } : {}),
          },
        }
      : {}),
    ...(model.expirationDate ? { expiration_date: model.expirationDate } : {}),
    ...(model.described ? {} : { described: false }),
  };
}

function wirePricing(pricing: CatalogPricing): Record<string, string> {
  return {
    prompt: String(pricing.prompt),
    completion: String(pricing.completion),
    ...(pricing.cacheRead !== undefined ? { input_cache_read: String(pricing.cacheRead) } : {}),
    ...(pricing.cacheWrite !== undefined ? { input_cache_write: String(pricing.cacheWrite) } : {}),
  };
}

/** The cache file's JSON (outside data: it may be stale, truncated or edited), or undefined. */
export function parseCatalogCache(value: unknown): CatalogCache | undefined {
  if (!isRecord(value) || value.version !== CATALOG_CACHE_VERSION) return undefined;
  if (typeof value.baseUrl !== 'string') return undefined;
  const fetchedAt = value.fetchedAt;
  if (typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt) || fetchedAt < 0) return undefined;
  if (!Array.isArray(value.models)) return undefined;
  return {
    version: CATALOG_CACHE_VERSION,
    baseUrl: value.baseUrl,
    fetchedAt,
    models: parseModels(value.models),
  };
}

/** How long a fetched catalog is used before it is fetched again. */
export const CATALOG_TTL_MS = 6 * 60 * 60 * 1000;

/** A cache is used while it is of this gateway and younger than the TTL (a clock moved back: stale). */
export function isCacheFresh(
  cache: CatalogCache,
  baseUrl: string,
  now: number,
  ttlMs = CATALOG_TTL_MS,
): boolean {
  return cache.baseUrl === baseUrl && now >= cache.fetchedAt && now - cache.fetchedAt < ttlMs;
}
