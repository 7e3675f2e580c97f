/**
 * The simulator as gateways other than OpenRouter answer (`dialect` in its options, `--mode` on
 * its command line), from what was seen of them from outside:
 *
 * - `strict-openai`: OpenAI's own API. A body field its chat API does not take gets 400
 *   "Unrecognized request argument supplied: X" (an unknown message or part field: "Additional
 *   properties are not allowed"), in OpenAI's error shape; ids have no slash (`gpt-4o`,
 *   `gpt-image-1`); a stream carries usage only when asked with `stream_options.include_usage`;
 *   the catalog has no `supported_parameters` and no prices; no OpenRouter endpoints. Base URL
 *   `…/v1`.
 * - `litellm`: LiteLLM's proxy in front of such an upstream. Unknown fields go on to the upstream
 *   and come back refused; ids are its `model_name`s; `GET /model/info` describes them
 *   (`supports_function_calling`, `supports_vision`, `mode`); the cost comes in the
 *   `x-litellm-response-cost` header; an unknown model gets 400, a wrong key 400 "No connected
 *   db."; `/v1` is optional; a stream the upstream cuts ends as if finished (`finish_reason:
 *   stop`); `Retry-After` is dropped.
 * - `local`: a local server (Ollama): ids with a colon, no key needed, the `/v1` prefix, unknown
 *   fields ignored; one model refuses tools ("… does not support tools").
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './respond';

export const SIM_DIALECTS = ['strict-openai', 'litellm', 'local'] as const;
export type SimDialect = (typeof SIM_DIALECTS)[number];

/**
 * OpenAI's chat body fields (its API reference; the `openai` SDK's ChatCompletionCreateParams).
 * Written out here apart from the client's own list (src/api/dialects.ts) on purpose: the
 * simulator is the judge of that list, and a shared one would hide its mistakes.
 */
export const STRICT_CHAT_FIELDS: ReadonlySet<string> = new Set([
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
const STRICT_MESSAGE_FIELDS: ReadonlySet<string> = new Set([
  'role',
  'content',
  'name',
  'tool_call_id',
  'tool_calls',
  'function_call',
  'refusal',
  'audio',
]);
const STRICT_PART_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'text',
  'image_url',
  'input_audio',
  'file',
  'refusal',
]);

/** The models each mode serves, with what LiteLLM's `/model/info` says of them. */
interface ModeModel {
  id: string;
  mode: 'chat' | 'image_generation';
  tools: boolean;
  vision: boolean;
  /** USD per token. */
  input: number;
  output: number;
}

export const DIALECT_MODELS: Readonly<Record<SimDialect, readonly ModeModel[]>> = {
  'strict-openai': [
    { id: 'gpt-4o', mode: 'chat', tools: true, vision: true, input: 2.5e-6, output: 1e-5 },
    { id: 'gpt-4o-mini', mode: 'chat', tools: true, vision: true, input: 1.5e-7, output: 6e-7 },
    { id: 'gpt-image-1', mode: 'image_generation', tools: false, vision: false, input: 0, output: 0 },
  ],
  litellm: [
    { id: 'gpt-4o', mode: 'chat', tools: true, vision: true, input: 2.5e-6, output: 1e-5 },
    { id: 'claude-sonnet', mode: 'chat', tools: true, vision: true, input: 3e-6, output: 1.5e-5 },
    { id: 'gpt-image-1', mode: 'image_generation', tools: false, vision: false, input: 0, output: 0 },
  ],
  local: [
    { id: 'llama3.2:3b', mode: 'chat', tools: true, vision: false, input: 0, output: 0 },
    { id: 'gemma2:2b', mode: 'chat', tools: false, vision: false, input: 0, output: 0 },
  ],
};

/** The base URL a client is given for a mode (`origin` is `http://127.0.0.1:PORT`). */
export function dialectBaseUrl(mode: SimDialect, origin: string): string {
  // LiteLLM answers with and without `/v1`; its docs give both.
  return mode === 'litellm' ? origin : `${origin}/v1`;
}

/**
 * The simulator's internal path (`/api/v1/…`) for a path as the mode serves it, or undefined when
 * the mode has nothing there.
 */
export function internalPath(mode: SimDialect, path: string): string | undefined {
  if (path.startsWith('/v1/')) return `/api${path}`;
  if (
    mode === 'litellm' &&
    /^\/(?:chat\/completions|completions|models|model\/info|images\/generations)$/.test(path)
  )
    return `/api/v1${path}`;
  return undefined;
}

/** An error in OpenAI's shape (LiteLLM's too): `{error: {message, type, param, code}}`. */
export function sendOpenAiError(
  response: ServerResponse,
  status: number,
  message: string,
  extra: { type?: string | null; param?: string | null; code?: string | null } = {},
): void {
  sendJson(response, status, {
    error: {
      message,
      type: extra.type === undefined ? 'invalid_request_error' : extra.type,
      param: extra.param ?? null,
      code: extra.code ?? null,
    },
  });
}

/** What the upstream refuses in a chat body, as OpenAI words it; undefined when it takes it all. */
export function strictRefusal(body: Record<string, unknown>): { message: string; param: string } | undefined {
  for (const field of Object.keys(body))
    if (!STRICT_CHAT_FIELDS.has(field))
      return { message: `Unrecognized request argument supplied: ${field}`, param: field };
  if (body.stream_options !== undefined && body.stream !== true)
    return {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    };
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  for (const [index, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null) continue;
    for (const field of Object.keys(message))
      if (!STRICT_MESSAGE_FIELDS.has(field))
        return {
          message: `Additional properties are not allowed ('${field}' was unexpected) - 'messages.${index}'`,
          param: `messages.[${index}]`,
        };
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const [partIndex, part] of (content as unknown[]).entries()) {
      if (typeof part !== 'object' || part === null) continue;
      for (const field of Object.keys(part))
        if (!STRICT_PART_FIELDS.has(field))
          return {
            message: `Additional properties are not allowed ('${field}' was unexpected) - 'messages.${index}.content.${partIndex}'`,
            param: `messages.[${index}].content.[${partIndex}]`,
          };
    }
  }
  return undefined;
}

/** `GET /v1/models` as the mode answers: ids and owners only, no parameters, no prices. */
export function modeCatalog(mode: SimDialect): unknown {
  const owner = mode === 'local' ? 'library' : mode === 'litellm' ? 'openai' : 'system';
  return {
    object: 'list',
    data: DIALECT_MODELS[mode].map((model) => ({
      id: model.id,
      object: 'model',
      created: 1_715_367_049,
      owned_by: owner,
    })),
  };
}

/** LiteLLM's `GET /model/info`. */
export function liteLlmModelInfo(): unknown {
  return {
    data: DIALECT_MODELS.litellm.map((model, index) => ({
      model_name: model.id,
      litellm_params: { model: `openai/${model.id}` },
      model_info: {
        id: `model-${index + 1}`,
        mode: model.mode,
        supports_function_calling: model.tools,
        supports_vision: model.vision,
        input_cost_per_token: model.input,
        output_cost_per_token: model.output,
        max_tokens: 16_384,
        max_input_tokens: 128_000,
      },
    })),
  };
}

export function modeModel(mode: SimDialect, id: string): ModeModel | undefined {
  return DIALECT_MODELS[mode].find((model) => model.id === id);
}

/** What a reply of `model` costs at the mode's price, in USD. */
export function modeCost(
  mode: SimDialect,
  id: string,
  promptTokens: number,
  completionTokens: number,
): number {
  const model = modeModel(mode, id);
  if (!model) return 0;
  return Number((promptTokens * model.input + completionTokens * model.output).toFixed(10));
}

/** Usage as OpenAI reports it: counts and details, no cost. */
export function openAiUsage(prompt: number, completion: number): Record<string, unknown> {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}
