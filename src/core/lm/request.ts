/** The chat request for one language-model call: the caller's tools and options, our settings. Pure. */
import type { ChatMessage, ChatRequest } from '../../api/types';
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

export function buildLmRequest(input: {
  model: string;
  messages: ChatMessage[];
  settings: LmRequestSettings;
  tools?: readonly LmTool[];
  toolMode?: number;
  modelOptions?: { readonly [name: string]: unknown };
}): ChatRequest {
  const messages = input.settings.promptCaching
    ? withCacheBreakpoints(input.messages, input.model)
    : input.messages;
  const request: ChatRequest = { model: input.model, messages, stream: true };
  const reasoning = reasoningFor(input.settings.reasoningEffort);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (input.settings.provider) request.provider = input.settings.provider;
  if (input.settings.plugins.length > 0) request.plugins = input.settings.plugins;
  // What the caller asked for is passed through, and wins over our settings.
  for (const [name, value] of Object.entries(input.modelOptions ?? {})) {
    if (!OWN_FIELDS.has(name) && value !== undefined) request[name] = value;
  }
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
