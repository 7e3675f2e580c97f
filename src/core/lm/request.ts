/** The chat request for one language-model call: the caller's tools and options, our settings. Pure. */
import type { ChatMessage, ChatRequest } from '../../api/types';
import { parseEffort } from '../catalog/catalogCodec';
import { withCacheBreakpoints } from '../cost/promptCache';

export type ReasoningEffort = 'default' | 'none' | 'minimal' | 'low' | 'medium' | 'high';

/** The settings that shape a language-model request (a subset of `gateway.chat.*`). */
export interface LmRequestSettings {
  reasoningEffort: ReasoningEffort;
  provider: Record<string, unknown> | undefined;
  plugins: Record<string, unknown>[];
  /** Mark prompts for the cache on models that need it (`gateway.chat.promptCaching`). */
  promptCaching?: boolean;
}

export interface LmTool {
  name: string;
  description: string;
  inputSchema?: object | undefined;
}

/** VS Code's `LanguageModelChatToolMode`: Auto = 1, Required = 2. */
export const TOOL_MODE_REQUIRED = 2;

/** `reasoning` for an effort setting; undefined for "default" (the model decides). */
export function reasoningFor(effort: ReasoningEffort): ChatRequest['reasoning'] {
  if (effort === 'none') return { enabled: false };
  if (effort !== 'default') return { effort };
  return undefined;
}

/** Most stop sequences, and characters in one, a caller may send. */
const MAX_STOPS = 4;
const MAX_STOP_CHARS = 200;
/** Largest token limit a caller may ask for (no model takes anywhere near this many). */
const MAX_OPTION_TOKENS = 10_000_000;

function inRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function tokenLimit(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= MAX_OPTION_TOKENS
    ? value
    : undefined;
}

/** An effort the model lists (any effort when the catalog lists none). */
function effortName(value: unknown, efforts: readonly string[]): string | undefined {
  const effort = parseEffort(value);
  return effort && (efforts.length === 0 || efforts.includes(effort)) ? effort : undefined;
}

/** `reasoning` as OpenRouter takes it: effort, max_tokens, enabled, exclude; anything else is dropped. */
function reasoningObject(value: unknown, efforts: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const effort = effortName(v.effort, efforts);
  if (effort) out.effort = effort;
  const maxTokens = tokenLimit(v.max_tokens);
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
  if (typeof v.enabled === 'boolean') out.enabled = v.enabled;
  if (typeof v.exclude === 'boolean') out.exclude = v.exclude;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `stop`: one string or up to four, each short; anything else is dropped. */
function stopSequences(value: unknown): string | string[] | undefined {
  const ok = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_STOP_CHARS;
  if (ok(value)) return value;
  return Array.isArray(value) && value.length > 0 && value.length <= MAX_STOPS && value.every(ok)
    ? [...value]
    : undefined;
}

/** `response_format` as `{ type: "text" | "json_object" }`; schemas and anything else are dropped. */
function responseFormat(value: unknown): { type: string } | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return type === 'text' || type === 'json_object' ? { type } : undefined;
}

/**
 * The request fields from the caller's `modelOptions` (VS Code's chat, another extension) and
 * the model's configuration in VS Code's picker (`reasoningEffort`, where the host has it).
 * Only sampling options pass, each checked by type and range: `temperature`, `top_p`, `top_k`,
 * `max_tokens` (also as `maxTokens`/`maxOutputTokens`/`max_completion_tokens`), `stop`, `seed`,
 * `frequency_penalty`, `presence_penalty`, `response_format` (`text`/`json_object`),
 * `reasoning` and `reasoningEffort`/`reasoning_effort` (only an effort the model lists).
 * Everything else is dropped: a caller never chooses the providers, plugins, fallback models or
 * anything else the user's settings decide (`provider`, `plugins`, `models`, `route`, …).
 */
export function lmOptionFields(
  modelOptions: unknown,
  configuration: unknown,
  efforts: readonly string[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const config = typeof configuration === 'object' && configuration !== null ? configuration : {};
  const configEffort = effortName((config as Record<string, unknown>).reasoningEffort, efforts);
  if (configEffort) out.reasoning = { effort: configEffort };
  if (typeof modelOptions !== 'object' || modelOptions === null || Array.isArray(modelOptions)) return out;
  const o = modelOptions as Record<string, unknown>;
  if (inRange(o.temperature, 0, 2)) out.temperature = o.temperature;
  const topP = o.top_p ?? o.topP;
  if (inRange(topP, 0, 1)) out.top_p = topP;
  const topK = o.top_k ?? o.topK;
  if (typeof topK === 'number' && Number.isSafeInteger(topK) && topK >= 0 && topK <= 1000) out.top_k = topK;
  const maxTokens = tokenLimit(o.max_tokens ?? o.maxTokens ?? o.maxOutputTokens ?? o.max_completion_tokens);
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
  const stop = stopSequences(o.stop);
  if (stop !== undefined) out.stop = stop;
  if (typeof o.seed === 'number' && Number.isSafeInteger(o.seed)) out.seed = o.seed;
  const frequency = o.frequency_penalty ?? o.frequencyPenalty;
  if (inRange(frequency, -2, 2)) out.frequency_penalty = frequency;
  const presence = o.presence_penalty ?? o.presencePenalty;
  if (inRange(presence, -2, 2)) out.presence_penalty = presence;
  const format = responseFormat(o.response_format);
  if (format) out.response_format = format;
  const effort = effortName(o.reasoningEffort ?? o.reasoning_effort, efforts);
  if (effort) out.reasoning = { effort };
  const reasoning = reasoningObject(o.reasoning, efforts);
  if (reasoning) out.reasoning = reasoning;
  return out;
}

export function buildLmRequest(input: {
  model: string;
  messages: ChatMessage[];
  settings: LmRequestSettings;
  tools?: readonly LmTool[];
  toolMode?: number;
  modelOptions?: { readonly [name: string]: unknown };
  /** The model's configuration in VS Code's model picker (1.139+: `options.modelConfiguration`). */
  modelConfiguration?: unknown;
  /** The efforts the catalog lists for the model (none: any effort is passed on). */
  efforts?: readonly string[];
}): ChatRequest {
  const messages = input.settings.promptCaching
    ? withCacheBreakpoints(input.messages, input.model)
    : input.messages;
  const request: ChatRequest = { model: input.model, messages, stream: true };
  const reasoning = reasoningFor(input.settings.reasoningEffort);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (input.settings.provider) request.provider = input.settings.provider;
  if (input.settings.plugins.length > 0) request.plugins = input.settings.plugins;
  // The caller's sampling options, checked, win over ours; nothing it sends can reach the
  // fields our settings decide (provider, plugins), those are not among them.
  Object.assign(request, lmOptionFields(input.modelOptions, input.modelConfiguration, input.efforts));
  const tools = input.tools ?? [];
  if (tools.length > 0) {
    request.tools = tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters:
          tool.inputSchema && typeof tool.inputSchema === 'object'
            ? tool.inputSchema
            : { type: 'object', properties: {} },
      },
    }));
    request.tool_choice = input.toolMode === TOOL_MODE_REQUIRED ? 'required' : 'auto';
  }
  return request;
}
