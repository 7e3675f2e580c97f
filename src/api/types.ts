/**
 * Public types of the gateway client. This folder never imports `vscode`: it is tested in plain
 * Node and could ship as a library.
 */

import type { DialectKind, DialectSetting, LearnedDialect } from './dialects';

export type { Dialect, DialectKind, DialectSetting, LearnedDialect } from './dialects';

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  content: string | null | unknown[];
  name?: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
  /** The reply's reasoning details, echoed back with its tool calls (Gemini's thought signatures). */
  reasoning_details?: unknown[];
}

/** The body of `POST /v1/chat/completions`. Every field that is set is sent untouched. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  stream?: boolean;
  tools?: unknown[];
  response_format?: unknown;
  reasoning?: unknown;
  provider?: unknown;
  plugins?: unknown[];
  [extra: string]: unknown;
}

export interface ToolCall {
  index?: number;
  id?: string;
  type: 'function' | (string & {});
  function: { name: string; arguments: string };
}

/** More than any single reply or account could cost: such a figure is not a price. */
export const MAX_USD = 1e9;
/** More tokens than any reply could count (a billion): such a figure is not a count. */
export const MAX_TOKEN_COUNT = 1e9;

/**
 * Token counts and cost of a reply, parsed by type: every field is a finite, non-negative number
 * or absent. Nothing else the gateway sends in `usage` is kept.
 */
export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** Cost in the gateway's credits (usually USD), when it reports one (a number or numeric string). */
  cost?: number;
  /** What the upstream provider charged, where the gateway says (bring-your-own-key replies). */
  cost_details?: { upstream_inference_cost?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
  /** Prompt tokens read from the provider's cache, and written to it (both part of `prompt_tokens`). */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
}

/**
 * A reply's record at `GET /v1/generation?id=` (OpenRouter), parsed by type: what it cost and what
 * the cache saved, for replies whose stream carried no cost. Every field is finite or absent.
 */
export interface Generation {
  /** USD. */
  totalCost?: number;
  /** USD the cache took off (negative when writing the cache cost more than it saved). */
  cacheDiscount?: number;
  promptTokens?: number;
  completionTokens?: number;
  reasoningTokens?: number;
  cachedTokens?: number;
}

/** A web citation (`{type: 'url_citation', url_citation: {url, title, ...}}`); other kinds are dropped. */
export interface Annotation {
  type: 'url_citation';
  url_citation: { url: string; title?: string; content?: string; start_index?: number; end_index?: number };
}

/** One entry of `reasoning_details` (OpenRouter): its type and the text-like fields we know. */
export interface ReasoningDetail {
  type: string;
  text?: string;
  summary?: string;
  data?: string;
  signature?: string;
  format?: string;
  id?: string;
  index?: number;
}

/** One typed piece of a streamed reply. */
export type ChatDelta =
  | { type: 'meta'; id?: string; model?: string; provider?: string }
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'reasoning_details'; details: ReasoningDetail[] }
  /** The tool calls so far, merged by `index` (a snapshot, not a fragment). */
  | { type: 'tool_calls'; toolCalls: ToolCall[] }
  | { type: 'finish'; reason: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'annotations'; annotations: Annotation[] }
  /** Pictures the model drew (`delta.images`), inline and checked (chatImages.ts). */
  | { type: 'images'; images: ChatImage[] };

/** A whole reply, from a non-streaming call or from folding a stream. */
export interface ChatCompletion {
  id?: string;
  model?: string;
  provider?: string;
  content: string;
  reasoning: string;
  reasoningDetails: ReasoningDetail[];
  toolCalls: ToolCall[];
  finishReason?: string;
  usage?: Usage;
  annotations: Annotation[];
  /** Pictures the model drew, when it drew any. */
  images?: ChatImage[];
}

/**
 * The statuses a media job can have; a gateway's synonyms are mapped onto these. A job the user or
 * the gateway cancelled, and one the gateway let expire, end in states of their own: neither is a
 * failure of the generation.
 */
export type MediaStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'expired';

/** The statuses after which nothing more happens to a job. A Set: status text is never an object key. */
export const FINAL_MEDIA_STATUSES: ReadonlySet<string> = new Set<MediaStatus>([
  'completed',
  'failed',
  'cancelled',
  'expired',
]);

export type MediaOutput =
  | { kind: 'url'; url: string; mimeType?: string }
  /** Base64 data (from `b64_json` or a data URI). */
  | { kind: 'data'; data: string; mimeType: string }
  | { kind: 'text'; text: string };

export interface MediaRecord {
  id: string;
  /**
   * Absent when the gateway sent no status, an empty one or one we do not know: the job is then
   * still in progress (it keeps its last status and is polled again).
   */
  status?: MediaStatus;
  outputs: MediaOutput[];
  error?: string;
  /** What the job cost, in the gateway's credits, where it says (`usage.cost` or `cost`). */
  cost?: number;
  /** Results the gateway sent beyond the cap (`MAX_MEDIA_OUTPUTS`), which were left out. */
  omittedOutputs?: number;
  /** How far the job is, from 0 to 1 (gateways send 0–1 or 0–100), while it runs. */
  progress?: number;
  /** Jobs ahead of this one in the provider's queue, where it says (`queue_position`). */
  queuePosition?: number;
}

export interface MediaRequest {
  model: string;
  prompt: string;
  parameters?: Record<string, unknown>;
}

/**
 * How a media job was started (see mediaRoutes.ts): the gateway's `/v1/media`, OpenRouter's
 * `/v1/images` and `/v1/videos`, chat completions with image `modalities`, or OpenAI's
 * `/v1/images/generations`.
 */
export type MediaRoute = 'media' | 'images' | 'chat-images' | 'videos' | 'images-generations';

export interface MediaStarted {
  id: string;
  status?: MediaStatus;
  /** The route it was started on. */
  route?: MediaRoute;
  /**
   * A synchronous route's result (the job is final at once): completed with its outputs, or
   * failed saying why. Nothing is polled for it.
   */
  record?: MediaRecord;
  /**
   * Where the job's status is asked for, when the gateway named it (`polling_url` and its
   * synonyms): absolute, http(s), resolved against the base URL when it was relative.
   */
  pollingUrl?: string;
}

/** Where a media status request goes and what its answer's relative links resolve against. */
export interface MediaStatusOptions extends CallOptions {
  /** The job's own `polling_url` (see MediaStarted); `GET /v1/media/{id}` without it. */
  pollingUrl?: string;
}

/** The JSON of the endpoint that reported the account's credit, unparsed (see the credits codec). */
export interface CreditsDocument {
  source: 'key' | 'credits';
  body: unknown;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Tries after the first for this call (default: the client's `maxRetries`). Inline completions
   * pass 0: a suggestion that comes late is worth nothing, and their own backoff takes over.
   */
  maxRetries?: number;
}

/**
 * The body of `POST /v1/completions` (text completion; fill-in-the-middle when `suffix` is set).
 * Every field that is set is sent untouched.
 */
export interface TextCompletionRequest {
  model: string;
  prompt: string;
  suffix?: string;
  max_tokens?: number;
  temperature?: number;
  stop?: string[];
  [extra: string]: unknown;
}

export interface DownloadOptions extends CallOptions {
  /** Larger files are stopped while they arrive (default: the client's `maxResponseBytes`). */
  maxBytes?: number;
}

/** A media result fetched from its URL. */
export interface DownloadedFile {
  bytes: Uint8Array;
  contentType?: string;
}

/** One line per HTTP exchange; the client never passes the key or the Authorization header. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status?: number;
  durationMs: number;
  /** 0 for the first try. */
  attempt: number;
  error?: string;
  /** Said once by the transport, e.g. that a setting does not apply where the client runs. */
  note?: string;
}

/**
 * VS Code's proxy setting, as the client knows it: which proxy a request takes is the host's
 * `fetch`'s choice (VS Code applies `http.proxy`, `http.noProxy`, the environment and the system's
 * settings), so the client reads it only to keep its credentials out of errors and the log, and
 * to say in a browser that it does not apply there.
 */
export interface ProxyOptions {
  /** e.g. `http://user:password@proxy:3128`, VS Code's `http.proxy`. */
  url?: string;
}

/** How the key goes to the gateway: `Authorization: Bearer <key>`, `api-key: <key>`, or not at all. */
export type AuthHeaderForm = 'bearer' | 'api-key' | 'none';

export interface ClientOptions {
  /** Ends in the service's API prefix, e.g. `https://openrouter.ai/api`; `/v1/...` is appended. */
  baseUrl: string;
  /**
   * Read at every call, so a changed key applies at once. Optional for a gateway on this computer
   * (a local server answers without one) and with the `none` auth form.
   */
  apiKey: () => string | undefined | Promise<string | undefined>;
  /** How the key is sent: `Authorization: Bearer` (default), `api-key` (Azure OpenAI), or not at all. */
  authHeader?: AuthHeaderForm;
  /**
   * Extra headers for every request to the gateway's own origin (never to another: a result's
   * download, a polling URL elsewhere), read at every call. Already checked (core/config/requestHeaders.ts);
   * their values are redacted from errors like the key.
   */
  headers?: () => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;
  /** Connect plus response headers. */
  timeoutMs?: number;
  /**
   * Longest wait for the next event of a stream (or the next bytes of a download). Keep-alive
   * comments and empty events do not count as activity.
   */
  streamIdleTimeoutMs?: number;
  /** Most bytes one stream or download may bring in total (default 200 MiB). */
  maxResponseBytes?: number;
  /** Most time one stream or download may take in total, from the request on (default 30 min). */
  maxStreamMs?: number;
  /** Downloads of media results at once; more wait their turn (default 4). */
  maxConcurrentDownloads?: number;
  /**
   * How the user changes each limit (e.g. the setting's id), named in the error when a limit is
   * hit. The client itself knows no settings.
   */
  limitHints?: { maxResponseBytes?: string; maxStreamMs?: string; streamIdleTimeoutMs?: string };
  maxRetries?: number;
  proxy?: ProxyOptions;
  log?: (entry: RequestLogEntry) => void;
  /**
   * Told about gateway data that was unknown or of the wrong type and so was ignored. Called at
   * most once per field path per client; the message names the path and the type, never the value.
   */
  onProblem?: (problem: GatewayDataProblem) => void;
  userAgent?: string;
  /**
   * The kind of gateway (see dialects.ts): `auto` (default) works it out from the gateway's host,
   * its response headers and its catalog.
   */
  dialect?: DialectSetting;
  /**
   * Told once per base URL and field when the gateway refused a field (and the request was sent
   * again without it), and when the kind of gateway was worked out from its answers.
   */
  onDialectNotice?: (notice: DialectNotice) => void;
  /** What was learned about this base URL before (e.g. kept by the host); checked, never trusted. */
  learnedDialect?: unknown;
  /** Called with the whole record for the base URL whenever something new was learned, to keep it. */
  onDialectLearned?: (baseUrl: string, learned: LearnedDialect) => void;
}

/** Something the client learned about its gateway, for the user. */
export interface DialectNotice {
  kind: 'refused-field' | 'detected';
  baseUrl: string;
  /** `refused-field`: the body field the gateway refused (`tools`: tools are off for `model`). */
  field?: string;
  /** `refused-field`: the model the request was for. */
  model?: string;
  /** `detected`: the kind the gateway's answers gave away. */
  dialect?: DialectKind;
  /** One sentence for the user or the log. */
  message: string;
}

/** A field of gateway data the client ignored because it was unknown or of the wrong type. */
export interface GatewayDataProblem {
  /** Where, e.g. `chat.usage.prompt_tokens` or `media.status`. */
  path: string;
  kind: 'wrong-type' | 'unknown';
  message: string;
}

/** One picture of a chat reply: base64 data and its type (read by `chatImages.ts`). */
export interface ChatImage {
  mimeType: string;
  data: string;
}
