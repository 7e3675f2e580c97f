/**
 * Three OpenRouter `GET /api/v1/models` entries whose `top_provider.context_length` differs from
 * the model's own `context_length`, kept as the catalog sends them (fields we do not read left in).
 *
 * Where the values come from:
 * - `z-ai/glm-5.3-flash` and `openrouter/auto`: the limits as published in OpenRouter's catalog
 *   and recorded in a public project's test of that endpoint (nanobot's `openai_compat_provider`
 *   tests: 1,048,576 against a top provider's 1,048,575 and 943,717 out; the Auto Router's
 *   2,000,000 with a top provider of `null`, since the router picks the model per request).
 * - `qwen/qwen3-coder`: the model's 262,144 tokens and its 66,536-token output as OpenRouter lists
 *   them (a public project's recorded `/models` payload); its top provider here serves 128,000 of
 *   them, written by us in OpenRouter's shape for the case vscode#336980 and cline#9383 describe:
 *   the cheapest upstream offers less context than the model has.
 */
export const OPENROUTER_LIMIT_ENTRIES = [
  {
    id: 'z-ai/glm-5.3-flash',
    canonical_slug: 'z-ai/glm-5.3-flash',
    name: 'Z.ai: GLM 5.3 Flash',
    created: 1775000000,
    context_length: 1_048_576,
    architecture: {
      modality: 'text->text',
      input_modalities: ['text'],
      output_modalities: ['text'],
      tokenizer: 'Other',
    },
    pricing: { prompt: '0.0000001', completion: '0.0000004', request: '0', image: '0' },
    top_provider: { context_length: 1_048_575, max_completion_tokens: 943_717, is_moderated: false },
    per_request_limits: null,
    supported_parameters: ['max_tokens', 'temperature', 'tools', 'tool_choice', 'reasoning'],
  },
  {
    id: 'openrouter/auto',
    canonical_slug: 'openrouter/auto',
    name: 'Auto Router',
    created: 1699929600,
    context_length: 2_000_000,
    architecture: { modality: 'text->text', input_modalities: ['text'], output_modalities: ['text'] },
    pricing: { prompt: '-1', completion: '-1', request: '-1', image: '-1' },
    top_provider: { context_length: null, max_completion_tokens: null, is_moderated: false },
    per_request_limits: null,
    supported_parameters: [],
  },
  {
    id: 'qwen/qwen3-coder',
    canonical_slug: 'qwen/qwen3-coder-480b-a35b',
    name: 'Qwen: Qwen3 Coder',
    created: 1753149655,
    context_length: 262_144,
    architecture: {
      modality: 'text->text',
      input_modalities: ['text'],
      output_modalities: ['text'],
      tokenizer: 'Qwen',
    },
    pricing: {
      prompt: '0.00000022',
      completion: '0.00000095',
      request: '0',
      image: '0',
      web_search: '0',
      internal_reasoning: '0',
    },
    top_provider: { context_length: 128_000, max_completion_tokens: 66_536, is_moderated: false },
    per_request_limits: null,
    supported_parameters: ['max_tokens', 'temperature', 'top_p', 'tools'],
  },
];
