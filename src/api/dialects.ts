/**
 * Gateway dialects, as data: one record per kind of gateway saying what its chat API takes beyond
 * OpenAI's, how usage and cost arrive, where its catalog comes from, which media routes and
 * OpenRouter-only endpoints it has, and how it wants the key. One request shaper (requestShaper.ts)
 * and the client consult these records; nothing else branches on the kind of gateway.
 *
 * Which record applies is decided from what the gateway itself says (its host, its response
 * headers, the shape of its catalog) unless the user sets it. Deciding never sends anything: it
 * reads only the configured base URL and the answers that came back from it.
 */
import { addressPlace } from './downloadPolicy';
import { isRecord } from './json';
import type { MediaRoute } from './types';

export const DIALECT_KINDS = [
  'openrouter',
  'litellm',
  'portkey',
  'openai',
  'azure-openai',
  'vercel',
  'cloudflare',
  'local',
  'openai-compatible',
] as const;

export type DialectKind = (typeof DIALECT_KINDS)[number];
/** The user's choice (`gateway.dialect`): `auto` works it out from the gateway. */
export type DialectSetting = 'auto' | DialectKind;

/** Where the cost of a reply comes from, in the order a dialect tries them. */
export type CostSource =
  /** `usage.cost` in the reply (OpenRouter, Vercel). */
  | 'usage.cost'
  /** `GET /v1/generation?id=` after the reply (OpenRouter). */
  | 'generation'
  /** A response header, named by `costHeader` (LiteLLM's `x-litellm-response-cost`). */
  | 'header'
  /** Tokens × the catalog's price, where the catalog has prices. */
  | 'catalog-price';

/** Where the models and what they can do come from. */
export interface CatalogSource {
  /** `GET /v1/models` entries carry `supported_parameters` (tools, reasoning, …) and `pricing`. */
  supportedParameters: boolean;
  /** LiteLLM's `GET /model/info`: `model_info.supports_function_calling`, `supports_vision`, `mode`. */
  modelInfo: boolean;
  /** OpenRouter's media catalogs: `/v1/images/models`, `/v1/videos/models`, `?output_modalities=`. */
  mediaCatalogs: boolean;
}

/** OpenRouter's own endpoints, asked only where the dialect has them. */
export interface GatewayEndpoints {
  key: boolean;
  credits: boolean;
  modelEndpoints: boolean;
  generation: boolean;
}

export interface Dialect {
  kind: DialectKind;
  /** How the user sees it named. */
  label: string;
  /**
   * Body fields beyond OpenAI's chat and completions APIs this kind takes. `reasoning` here is
   * OpenRouter's object; without it `reasoning.effort` goes as OpenAI's `reasoning_effort`.
   */
  extraFields: readonly string[];
  /**
   * Only OpenAI's fields and `extraFields` are sent. False where bodies go as built: OpenRouter
   * (it takes many fields and ignores the rest) and a server nothing is known of (a field it
   * refuses is learned from its 400). OpenAI refuses unknown fields; LiteLLM, Vercel and
   * Cloudflare forward them to an upstream that may; Portkey and local servers ignore them.
   */
  onlyKnownFields: boolean;
  /** `cache_control` marks on message parts are passed to the provider. */
  cacheControl: boolean;
  /** `reasoning_details` echoed back on assistant messages are taken. */
  reasoningDetails: boolean;
  /** Usage comes in a stream only when asked with `stream_options: {include_usage: true}`. */
  includeUsage: boolean;
  /** Where a reply's cost comes from, in order; empty: the gateway reports none. */
  cost: readonly CostSource[];
  /** The response header carrying the cost in USD, when `cost` lists `header`. */
  costHeader?: string;
  catalog: CatalogSource;
  /** The media routes it serves (see mediaRoutes.ts). */
  mediaRoutes: readonly MediaRoute[];
  endpoints: GatewayEndpoints;
  /** Its usual auth header: `Authorization: Bearer`, Azure's `api-key`, or none needed (local). */
  auth: 'bearer' | 'api-key';
  /** It usually answers without a key (local servers). */
  keyOptional: boolean;
  /**
   * The base URL users are given is the API root itself, and paths go on it without `/v1`
   * (Cloudflare: `https://gateway.ai.cloudflare.com/v1/<account>/<gateway>/compat`).
   */
  baseIsApiRoot?: boolean;
}

/**
 * Fields no request goes without: never learned as refused (a gateway's words that seem to refuse
 * one are about its value), and never taken from a stored record.
 */
export const ESSENTIAL_FIELDS: ReadonlySet<string> = new Set(['model', 'messages', 'prompt', 'stream']);

/** The body fields of OpenAI's `POST /v1/chat/completions` (openai 6.x `ChatCompletionCreateParams`). */
export const OPENAI_CHAT_FIELDS: ReadonlySet<string> = new Set([
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
]);

/** The body fields of OpenAI's `POST /v1/completions`. */
export const OPENAI_COMPLETION_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'prompt',
  'best_of',
  'echo',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_tokens',
  'n',
  'presence_penalty',
  'seed',
  'stop',
  'stream',
  'stream_options',
  'suffix',
  'temperature',
  'top_p',
  'user',
]);

/** The fields of a chat message OpenAI takes. */
export const OPENAI_MESSAGE_FIELDS: ReadonlySet<string> = new Set([
  'role',
  'content',
  'name',
  'tool_call_id',
  'tool_calls',
  'function_call',
  'refusal',
  'audio',
]);

/** OpenRouter's request fields beyond OpenAI's. */
const OPENROUTER_FIELDS = [
  'provider',
  'plugins',
  'reasoning',
  'usage',
  'transforms',
  'models',
  'route',
  'top_k',
  'min_p',
  'top_a',
  'repetition_penalty',
  'debug',
];

const NO_CATALOG_EXTRAS: CatalogSource = {
  supportedParameters: false,
  modelInfo: false,
  mediaCatalogs: false,
};
const NO_OPENROUTER_ENDPOINTS: GatewayEndpoints = {
  key: false,
  credits: false,
  modelEndpoints: false,
  generation: false,
};

/** Shared by the kinds that speak OpenAI's API and nothing more. */
const OPENAI_STYLE = {
  extraFields: [] as readonly string[],
  onlyKnownFields: true,
  cacheControl: false,
  reasoningDetails: false,
  includeUsage: true,
  cost: ['catalog-price'] as readonly CostSource[],
  catalog: NO_CATALOG_EXTRAS,
  mediaRoutes: ['images-generations'] as readonly MediaRoute[],
  endpoints: NO_OPENROUTER_ENDPOINTS,
  auth: 'bearer' as const,
  keyOptional: false,
};

export const DIALECTS: Readonly<Record<DialectKind, Dialect>> = {
  openrouter: {
    kind: 'openrouter',
    label: 'OpenRouter',
    extraFields: OPENROUTER_FIELDS,
    onlyKnownFields: false,
    cacheControl: true,
    reasoningDetails: true,
    // Usage always comes in the last chunk.
    includeUsage: false,
    cost: ['usage.cost', 'generation'],
    catalog: { supportedParameters: true, modelInfo: false, mediaCatalogs: true },
    mediaRoutes: ['images', 'videos', 'chat-images'],
    endpoints: { key: true, credits: true, modelEndpoints: true, generation: true },
    auth: 'bearer',
    keyOptional: false,
  },
  litellm: {
    ...OPENAI_STYLE,
    kind: 'litellm',
    label: 'LiteLLM',
    // Unknown fields go on to the upstream unchanged, where a strict one refuses them.
    cost: ['header', 'catalog-price'],
    costHeader: 'x-litellm-response-cost',
    catalog: { supportedParameters: false, modelInfo: true, mediaCatalogs: false },
  },
  portkey: {
    ...OPENAI_STYLE,
    kind: 'portkey',
    label: 'Portkey',
  },
  openai: { ...OPENAI_STYLE, kind: 'openai', label: 'OpenAI' },
  'azure-openai': {
    ...OPENAI_STYLE,
    kind: 'azure-openai',
    label: 'Azure OpenAI',
    auth: 'api-key',
  },
  vercel: {
    ...OPENAI_STYLE,
    kind: 'vercel',
    label: 'Vercel AI Gateway',
    cost: ['usage.cost', 'catalog-price'],
  },
  cloudflare: {
    ...OPENAI_STYLE,
    kind: 'cloudflare',
    label: 'Cloudflare AI Gateway',
    baseIsApiRoot: true,
  },
  local: {
    ...OPENAI_STYLE,
    kind: 'local',
    label: 'Local server (Ollama, LM Studio, vLLM, llama.cpp)',
    // Free: nothing to report.
    cost: [],
    mediaRoutes: [],
    keyOptional: true,
  },
  'openai-compatible': {
    ...OPENAI_STYLE,
    kind: 'openai-compatible',
    label: 'OpenAI-compatible server',
    // Nothing known: bodies go as built, and a field it refuses is learned from its 400.
    onlyKnownFields: false,
    extraFields: OPENROUTER_FIELDS,
    cacheControl: true,
    reasoningDetails: true,
    cost: ['usage.cost', 'generation', 'catalog-price'],
    catalog: { supportedParameters: true, modelInfo: false, mediaCatalogs: true },
    mediaRoutes: ['media', 'images', 'videos', 'chat-images', 'images-generations'],
    // Asked, as they may exist; a 404 there is an answer, not an error.
    endpoints: { key: true, credits: true, modelEndpoints: true, generation: true },
  },
};

export function isDialectKind(value: unknown): value is DialectKind {
  return typeof value === 'string' && (DIALECT_KINDS as readonly string[]).includes(value);
}

/** A setting's value as a DialectSetting; anything else is `auto`. */
export function dialectSetting(value: unknown): DialectSetting {
  return isDialectKind(value) ? value : 'auto';
}

/** Ports local servers listen on by default: Ollama, LM Studio. */
const LOCAL_PORTS: ReadonlySet<string> = new Set(['11434', '1234']);

/** The kind a base URL names by its host alone, or undefined when the host says nothing. */
export function dialectFromHost(baseUrl: string): DialectKind | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const is = (domain: string) => host === domain || host.endsWith(`.${domain}`);
  if (is('openrouter.ai')) return 'openrouter';
  if (host === 'api.openai.com') return 'openai';
  if (is('openai.azure.com') || is('cognitiveservices.azure.com')) return 'azure-openai';
  if (/^gateway\.ai\.cloudflare\.com$/.test(host)) return 'cloudflare';
  if (host === 'ai-gateway.vercel.sh') return 'vercel';
  if (host === 'api.portkey.ai') return 'portkey';
  if (addressPlace(host) === 'loopback' && LOCAL_PORTS.has(url.port)) return 'local';
  return undefined;
}

/** Response headers as the transport gives them (lower-case names). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** The kind a gateway's response headers give away (`x-litellm-*`, `x-portkey-*`), if any. */
export function dialectFromHeaders(headers: HeaderBag): DialectKind | undefined {
  let portkey = false;
  let count = 0;
  for (const name of Object.keys(headers)) {
    // Bounded: a hostile answer with a million headers is not read to its end.
    if (++count > 200) break;
    const lower = name.toLowerCase();
    if (lower.startsWith('x-litellm-')) return 'litellm';
    if (lower.startsWith('x-portkey-')) portkey = true;
  }
  return portkey ? 'portkey' : undefined;
}

/** Catalog entries looked at; enough to tell a shape, bounded for a hostile catalog. */
const CATALOG_SAMPLE = 20;
/** `owned_by` values local servers put in `/v1/models`. */
const LOCAL_OWNERS: ReadonlySet<string> = new Set([
  'ollama',
  'library',
  'llamacpp',
  'vllm',
  'organization_owner',
]);

/**
 * The kind a `/v1/models` answer gives away: OpenRouter's shape (`supported_parameters`, `pricing`
 * with prompt and completion), a local server's `owned_by`, or LiteLLM's `/model/info` shape.
 * Undefined when it looks like any OpenAI-style catalog. Never throws.
 */
export function dialectFromCatalog(catalog: unknown, baseUrl?: string): DialectKind | undefined {
  const kind = catalogShape(catalog);
  // A catalog says "local" by its owners' names; only a server on this computer or network is one
  // (a remote gateway that says so would be shown as free and keyless).
  if (kind === 'local' && baseUrl !== undefined && !onThisNetwork(baseUrl)) return undefined;
  return kind;
}

function onThisNetwork(baseUrl: string): boolean {
  try {
    return addressPlace(new URL(baseUrl).hostname) !== 'public';
  } catch {
    return false;
  }
}

function catalogShape(catalog: unknown): DialectKind | undefined {
  const data = isRecord(catalog) ? catalog.data : catalog;
  if (!Array.isArray(data)) return undefined;
  let openRouterLike = 0;
  let local = 0;
  let liteLlm = 0;
  const sample = data.slice(0, CATALOG_SAMPLE).filter(isRecord);
  for (const entry of sample) {
    if (Array.isArray(entry.supported_parameters) || (isRecord(entry.pricing) && 'prompt' in entry.pricing))
      openRouterLike++;
    if (typeof entry.owned_by === 'string' && LOCAL_OWNERS.has(entry.owned_by.toLowerCase())) local++;
    if (typeof entry.model_name === 'string' && isRecord(entry.model_info)) liteLlm++;
  }
  const most = Math.max(openRouterLike, local, liteLlm);
  if (most === 0 || most * 2 < sample.length) return undefined;
  if (liteLlm === most) return 'litellm';
  if (openRouterLike === most) return 'openrouter';
  return 'local';
}

/** What was learned about one gateway (one base URL), kept in memory and handed to the host to keep. */
export interface LearnedDialect {
  /** The kind the gateway's answers gave away. */
  kind?: DialectKind;
  /** Body fields it refused with a 400; never sent to it again. */
  refusedFields?: string[];
  /** It refuses fields it does not know: only OpenAI's (and the dialect's own) are sent. */
  strict?: boolean;
  /** Models it refused `tools` for. */
  toolsRefused?: string[];
}

const MAX_LEARNED = 64;
const MAX_LEARNED_TEXT = 200;

/** A stored LearnedDialect (from the host's storage: hostile), checked and bounded; never throws. */
export function parseLearnedDialect(value: unknown): LearnedDialect {
  if (!isRecord(value)) return {};
  const strings = (list: unknown): string[] | undefined => {
    if (!Array.isArray(list)) return undefined;
    const out = list
      .filter(
        (item): item is string =>
          typeof item === 'string' &&
          item.length > 0 &&
          item.length <= MAX_LEARNED_TEXT &&
          !ESSENTIAL_FIELDS.has(item),
      )
      .slice(0, MAX_LEARNED);
    return out.length ? [...new Set(out)] : undefined;
  };
  const learned: LearnedDialect = {};
  if (isDialectKind(value.kind)) learned.kind = value.kind;
  const refused = strings(value.refusedFields);
  if (refused) learned.refusedFields = refused;
  if (value.strict === true) learned.strict = true;
  const tools = strings(value.toolsRefused);
  if (tools) learned.toolsRefused = tools;
  return learned;
}

/**
 * The dialect in force: the user's choice, else what the host says, else what the gateway's answers
 * gave away, else a plain OpenAI-compatible server.
 */
export function resolveDialect(setting: DialectSetting, baseUrl: string, learned: LearnedDialect): Dialect {
  if (setting !== 'auto') return DIALECTS[setting];
  return DIALECTS[dialectFromHost(baseUrl) ?? learned.kind ?? 'openai-compatible'];
}
