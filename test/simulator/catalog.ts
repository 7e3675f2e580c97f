/**
 * GET /api/v1/models (OpenRouter shape) and the credit endpoints GET /api/v1/key and
 * /api/v1/credits. Switches: the catalog can answer 404 (a gateway without one), another
 * status, or a body of an unexpected shape; the credit endpoints can be absent.
 */
import type { ServerResponse } from 'node:http';
import { sendError, sendJson } from './respond';

export interface SimModel {
  id: string;
  name: string;
  context_length: number;
  pricing: { prompt: string; completion: string; input_cache_read?: string; input_cache_write?: string };
  architecture: { input_modalities: string[]; output_modalities: string[] };
  supported_parameters: string[];
  top_provider: { max_completion_tokens: number | null };
  reasoning?: { supported_efforts?: string[]; default_effort?: string };
  expiration_date?: string;
}

function model(
  id: string,
  name: string,
  contextLength: number,
  perMillion: [number, number],
  input: string[],
  output: string[],
  params: string[],
  maxCompletion: number | null = 16_384,
  /** Per million prompt tokens read from the cache, and written to it. */
  cachePerMillion?: [number, number],
): SimModel {
  return {
    id,
    name,
    context_length: contextLength,
    pricing: {
      prompt: String(perMillion[0] / 1e6),
      completion: String(perMillion[1] / 1e6),
      ...(cachePerMillion
        ? {
            input_cache_read: String(cachePerMillion[0] / 1e6),
            input_cache_write: String(cachePerMillion[1] / 1e6),
          }
        : {}),
    },
    architecture: { input_modalities: input, output_modalities: output },
    supported_parameters: params,
    top_provider: { max_completion_tokens: maxCompletion },
  };
}

const CHAT_PARAMS = ['max_tokens', 'temperature', 'tools', 'tool_choice', 'response_format', 'reasoning'];

/**
 * Echo models for VS Code's own chat (the language-model provider's tests pick them with
 * `gateway.languageModels.include`): one with vision, tools and reasoning and a large output
 * limit, a small text-only one, and one that calls tools under another vendor.
 */
export const ECHO_MODELS: SimModel[] = [
  model(
    'sim/echo-vision',
    'Simulator: Echo Vision',
    200_000,
    [0.15, 0.6],
    ['text', 'image'],
    ['text'],
    ['max_tokens', 'tools', 'tool_choice', 'reasoning'],
    32_000,
  ),
  model(
    'sim/echo-small',
    'Simulator: Echo Small',
    16_384,
    [0.1, 0.2],
    ['text'],
    ['text'],
    ['max_tokens'],
    4_096,
  ),
  model(
    'other/echo-tools',
    'Other: Echo Tools',
    64_000,
    [1, 2],
    ['text'],
    ['text'],
    ['tools', 'tool_choice'],
    null,
  ),
];

/** The simulator's models: chat (with and without vision, tools, reasoning) and media models. */
export const DEFAULT_CATALOG: SimModel[] = [
  model(
    'openai/gpt-4o-mini',
    'OpenAI: GPT-4o-mini',
    128_000,
    [0.15, 0.6],
    ['text', 'image', 'file'],
    ['text'],
    CHAT_PARAMS,
    16_384,
    [0.075, 0.15],
  ),
  model('testvendor/echo-model', 'Test: Echo', 32_000, [0.15, 0.6], ['text', 'image'], ['text'], CHAT_PARAMS),
  model(
    'testvendor/tiny-context',
    'Test: Tiny Context',
    2_000,
    [1, 2],
    ['text'],
    ['text'],
    ['max_tokens', 'temperature'],
    1_000,
  ),
  // A small window with tools: a few long turns pass 80% of it (compaction).
  model(
    'testvendor/small-window',
    'Test: Small Window',
    6_000,
    [0.15, 0.6],
    ['text'],
    ['text'],
    CHAT_PARAMS,
    1_000,
  ),
  model(
    'testvendor/text-only',
    'Test: Text Only',
    64_000,
    [0.5, 1.5],
    ['text'],
    ['text'],
    ['max_tokens', 'temperature'],
  ),
  model(
    'anthropic/claude-sonnet-4',
    'Anthropic: Claude Sonnet 4',
    200_000,
    [3, 15],
    ['text', 'image', 'file'],
    ['text'],
    CHAT_PARAMS,
    64_000,
    [0.3, 3.75],
  ),
  model(
    'google/gemini-2.5-flash',
    'Google: Gemini 2.5 Flash',
    1_048_576,
    [0.3, 2.5],
    ['text', 'image', 'file', 'audio'],
    ['text'],
    CHAT_PARAMS,
    65_535,
    [0.075, 0.3833],
  ),
  model('openai/gpt-image-1', 'OpenAI: GPT Image 1', 32_000, [5, 40], ['text', 'image'], ['image'], [], null),
  model('google/veo-3', 'Google: Veo 3', 8_000, [0, 0], ['text'], ['video'], [], null),
  model('openai/tts-1', 'OpenAI: TTS 1', 4_000, [15, 0], ['text'], ['audio'], [], null),
  ...ECHO_MODELS,
  // The newer catalog fields: efforts per model, free models, a model about to be retired.
  {
    ...model('testvendor/thinker', 'Test: Thinker', 128_000, [1, 4], ['text'], ['text'], CHAT_PARAMS),
    reasoning: { supported_efforts: ['minimal', 'low', 'high', 'xhigh'], default_effort: 'low' },
  },
  model('testvendor/free-chat:free', 'Test: Free Chat', 32_000, [0, 0], ['text'], ['text'], ['max_tokens']),
  {
    ...model('testvendor/retiring', 'Test: Retiring', 32_000, [0.5, 1], ['text'], ['text'], ['max_tokens']),
    expiration_date: '2026-12-31',
  },
  model('testvendor/sketch', 'Test: Sketch', 8_000, [2, 20], ['text'], ['image'], [], null),
  model('testvendor/motion', 'Test: Motion', 8_000, [3, 30], ['text', 'image'], ['video'], [], null),
];

/** The providers that serve each chat model, for `GET /v1/models/{id}/endpoints`. */
export function simEndpoints(sim: SimModel): Record<string, unknown> {
  const names = ['Alpha Cloud', 'Beta Inference', 'Gamma AI'];
  return {
    data: {
      id: sim.id,
      name: sim.name,
      endpoints: names.map((name, i) => ({
        name: `${name} | ${sim.id}`,
        provider_name: name,
        tag: `${name.split(' ')[0].toLowerCase()}/fp${i ? 8 : 16}`,
        context_length: sim.context_length,
        quantization: i ? 'fp8' : 'fp16',
        pricing: sim.pricing,
        supported_parameters: sim.supported_parameters,
        status: i === 2 ? -1 : 0,
        uptime_last_30m: 99.5 - i * 10,
      })),
    },
  };
}

/** `count` generated models after the default ones, for the picker benchmark. */
export function largeCatalog(count: number): SimModel[] {
  const models = [...DEFAULT_CATALOG];
  for (let i = models.length; i < count; i++) {
    const vision = i % 3 === 0;
    models.push(
      model(
        `vendor${i % 40}/model-${i}`,
        `Vendor ${i % 40}: Model ${i}`,
        [8_192, 32_768, 128_000, 200_000, 1_000_000][i % 5],
        [(i % 17) / 4, (i % 23) / 2],
        vision ? ['text', 'image'] : ['text'],
        ['text'],
        i % 2 ? CHAT_PARAMS : ['max_tokens'],
      ),
    );
  }
  return models.slice(0, count);
}

/** `ok` serves the models; `404` and `status:<n>` fail; `shape` answers JSON of another shape. */
export type CatalogMode = 'ok' | '404' | 'shape' | { status: number };

export interface CreditState {
  /** USD limit of the key (`null`: unlimited). */
  limit: number | null;
  /** USD used so far. */
  usage: number;
}

/**
 * What `?output_modalities=all` answers: `ok` (every model), or a gateway that does not know the
 * query: `400`, `404`, or `empty` (an empty list).
 */
export type AllModalitiesMode = 'ok' | '400' | '404' | 'empty';

/**
 * Like OpenRouter, the plain `/v1/models` lists only models that write text; with
 * `?output_modalities=all` it lists the image, video and audio models too.
 */
export function handleModels(
  response: ServerResponse,
  mode: CatalogMode,
  models: SimModel[],
  query: URLSearchParams,
  allMode: AllModalitiesMode = 'ok',
): void {
  if (mode === 'ok' && query.get('output_modalities') === 'all') {
    if (allMode === 'empty') return sendJson(response, 200, { data: [] });
    if (allMode !== 'ok') return sendError(response, Number(allMode), 'Unknown query parameter');
    return sendJson(response, 200, { data: models });
  }
  const wanted = query.get('output_modalities');
  if (mode === 'ok' && wanted && allMode === 'ok') {
    // A list (`image,video`): the models that write any of them, as OpenRouter filters.
    const kinds = wanted.split(',').map((kind) => kind.trim().toLowerCase());
    return sendJson(response, 200, {
      data: models.filter((m) => m.architecture?.output_modalities?.some((kind) => kinds.includes(kind))),
    });
  }
  if (mode === 'ok')
    return sendJson(response, 200, {
      data: models.filter(
        (m) =>
          !Array.isArray(m.architecture?.output_modalities) ||
          m.architecture.output_modalities.includes('text'),
      ),
    });
  if (mode === 'shape') return sendJson(response, 200, { models: 'not a list', data: { nope: true } });
  const status = mode === '404' ? 404 : mode.status;
  sendError(response, status, status === 404 ? 'Not Found' : `Simulated catalog failure ${status}`);
}

export function handleKey(response: ServerResponse, credits: CreditState | undefined): void {
  if (!credits) return sendError(response, 404, 'Not Found');
  sendJson(response, 200, {
    data: {
      label: 'sk-sim-…',
      limit: credits.limit,
      usage: credits.usage,
      limit_remaining: credits.limit === null ? null : credits.limit - credits.usage,
      is_free_tier: false,
    },
  });
}

export function handleCredits(response: ServerResponse, credits: CreditState | undefined): void {
  if (!credits || credits.limit === null) return sendError(response, 404, 'Not Found');
  sendJson(response, 200, { data: { total_credits: credits.limit, total_usage: credits.usage } });
}
