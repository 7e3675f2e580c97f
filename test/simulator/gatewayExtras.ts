/**
 * What other gateways ask of a request and answer beside the OpenAI-shaped routes, for the
 * simulator's `extras` option (kept apart from its dialect modes, registered in index.ts by two
 * small hooks):
 *
 * - how the key arrives: `Authorization: Bearer` (the default, handled by index.ts), Azure OpenAI's
 *   `api-key` header, or none at all (a local server: Ollama, LM Studio, vLLM, llama.cpp, which
 *   take any request, with a key or without);
 * - headers every request must carry, as Portkey wants `x-portkey-provider` (400 without);
 * - LiteLLM's `GET /model/info` (also `/v1/model/info`): `{data: [{model_name, litellm_params,
 *   model_info: {mode, supports_function_calling, supports_vision, …}}]}`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from './respond';

export interface GatewayExtrasOptions {
  /** How the key arrives: `bearer` (default), `api-key` (Azure OpenAI) or `none` (any request goes). */
  auth?: 'bearer' | 'api-key' | 'none';
  /** Headers (lower-case name → value) every API request must carry; 400 otherwise, as Portkey does. */
  requiredHeaders?: Record<string, string>;
  /** The entries LiteLLM's `/model/info` lists; absent: no such route (404). */
  modelInfo?: unknown[];
}

/** A LiteLLM `/model/info` entry, as LiteLLM writes one for a model of its config. */
export function liteLlmModelInfo(
  modelName: string,
  mode: 'chat' | 'image_generation' | 'embedding',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    model_name: modelName,
    litellm_params: { model: `openai/${modelName}` },
    model_info: {
      id: `sim-${modelName}`,
      mode,
      litellm_provider: 'openai',
      supports_function_calling: mode === 'chat',
      supports_vision: mode === 'chat',
      input_cost_per_token: mode === 'chat' ? 0.0000025 : null,
      output_cost_per_token: mode === 'chat' ? 0.00001 : null,
      ...extra,
    },
  };
}

/** The key a request admits under the extras' auth form, or a refusal; undefined: Bearer decides. */
export type ExtrasAuth = { key: string } | { status: number; message: string } | undefined;

export class GatewayExtras {
  constructor(private readonly options: GatewayExtrasOptions = {}) {}

  /** Headers every request needs, then the key by the extras' auth form. */
  authenticate(request: IncomingMessage): ExtrasAuth {
    for (const [name, value] of Object.entries(this.options.requiredHeaders ?? {})) {
      if (request.headers[name] !== value)
        // Echoes what it got, as some gateways do: the client must scrub every secret from it.
        return {
          status: 400,
          message: `Either x-portkey-config or x-portkey-provider header is required (${name}); got ${JSON.stringify(request.headers)}`,
        };
    }
    const auth = this.options.auth ?? 'bearer';
    if (auth === 'none') {
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '');
      return { key: bearer?.[1] ?? '' };
    }
    if (auth === 'api-key') {
      const key = request.headers['api-key'];
      if (typeof key !== 'string' || key.trim() === '')
        return { status: 401, message: 'Access denied due to missing subscription key.' };
      return { key: key.trim() };
    }
    return undefined;
  }

  /** Whether `path` (without the API prefix) is one of the extras' own routes. */
  serves(method: string, path: string): boolean {
    return method === 'GET' && (path === '/model/info' || path === '/v1/model/info');
  }

  /** Answers the extras' own routes (`path` without the API prefix); false when it is not one. */
  answer(method: string, path: string, response: ServerResponse): boolean {
    if (!this.serves(method, path)) return false;
    if (!this.options.modelInfo) sendError(response, 404, 'Not Found');
    else sendJson(response, 200, { data: this.options.modelInfo });
    return true;
  }
}
