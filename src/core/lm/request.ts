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

/** Fields the request owns; `modelOptions` cannot replace them. */
const OWN_FIELDS = new Set(['model', 'messages', 'stream', 'tools', 'tool_choice']);
/** The caller's options read by name and checked by type (the rest pass through as JSON). */
const READ_FIELDS = new Set([
  'temperature',
  'top_p',
  'topP',
  'max_tokens',
  'maxTokens',
  'maxOutputTokens',
  'reasoning',
  'reasoningEffort',
  'reasoning_effort',
]);
/** Most characters of JSON one unknown option may carry. */
const MAX_OPTION_JSON = 100_000;

function inRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function tokenLimit(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= 10_000_000
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

/** A JSON copy of an unknown option, or undefined when it is not JSON or too large. */
function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= MAX_OPTION_JSON ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The request fields from the caller's `modelOptions` (VS Code's chat, another extension) and
 * the model's configuration in VS Code's picker (`reasoningEffort`, where the host has it),
 * checked by type: `temperature`, `top_p`, `max_tokens` (also as `maxTokens`/`maxOutputTokens`),
 * `reasoning` and `reasoningEffort`/`reasoning_effort` (only an effort the model lists). Other
 * options pass through as JSON; the request's own fields are never replaced.
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
  for (const [name, value] of Object.entries(o)) {
    if (OWN_FIELDS.has(name) || READ_FIELDS.has(name) || value === undefined) continue;
    const copy = jsonCopy(value);
    if (copy !== undefined) out[name] = copy;
  }
  if (inRange(o.temperature, 0, 2)) out.temperature = o.temperature;
  const topP = o.top_p ?? o.topP;
  if (inRange(topP, 0, 1)) out.top_p = topP;
  const maxTokens = tokenLimit(o.max_tokens ?? o.maxTokens ?? o.maxOutputTokens);
  if (maxTokens !== undefined) out.max_tokens = maxTokens;
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
  // What the caller asked for is passed through, checked, and wins over our settings.
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
