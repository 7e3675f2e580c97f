/**
 * Media as OpenRouter and OpenAI-style servers serve it, for the simulator's `mediaApi` modes
 * (neither has `POST /v1/media`):
 *
 * - `openrouter`: `POST /api/v1/images` (synchronous: `{created, data: [{b64_json, media_type}],
 *   usage}`), `GET /api/v1/images/models`; chat completions with `modalities: ["image", "text"]`
 *   (the pictures in `choices[0].message.images`); `POST /api/v1/videos` (202 `{id, polling_url,
 *   status: "pending"}`, then the `openrouter` shape of mediaShapes.ts), `GET /api/v1/videos/models`.
 * - `openai`: `POST /api/v1/images/generations` (`data[].b64_json`, or with `#sim:url` a
 *   `data[].url` on the second origin, which must never get the key).
 *
 * Every answer here has the shape of `@openrouter/sdk`'s generated schemas (the contract test
 * checks it), so the simulator cannot drift from the real service.
 */
import type { RequestContext, SimulatorCore } from './context';
import { respondWithFailure } from './context';
import type { MediaJobs } from './media';
import { shapedStart } from './mediaShapes';
import type { ShapeHost } from './mediaShapes';
import { colourNamedIn, gradientPng, solidPng } from './png';
import { isRecord, sendError, sendJson } from './respond';
import { scenariosFromMarkers } from './scenarios';

/** Which media API the simulator speaks: its own `/v1/media`, OpenRouter's, or OpenAI's. */
export type MediaApi = 'gateway' | 'openrouter' | 'openai';

/** What one `/v1/images` picture costs, and one picture made in chat, in credits. */
export const IMAGE_COST = 0.03;
export const CHAT_IMAGE_COST = 0.02;

export const SIM_IMAGE_MODEL = 'sim/image-model';
export const SIM_VIDEO_MODEL = 'sim/video-model';
/** A chat model that also draws (in the plain catalog, `output_modalities: ["image", "text"]`). */
export const SIM_CHAT_IMAGE_MODEL = 'sim/chat-image';

/** `GET /api/v1/images/models`, as OpenRouter lists them. */
export const IMAGE_MODELS = [
  {
    id: SIM_IMAGE_MODEL,
    name: 'Simulator: Image',
    created: 1_760_000_000,
    description: 'Draws a picture of the colour the prompt names.',
    endpoints: `/api/v1/images/models/${SIM_IMAGE_MODEL}/endpoints`,
    architecture: { input_modalities: ['text', 'image'], output_modalities: ['image'] },
    supported_parameters: {
      aspect_ratio: { type: 'enum', values: ['1:1', '16:9', '9:16'] },
      resolution: { type: 'enum', values: ['1K', '2K'] },
      quality: { type: 'enum', values: ['low', 'high'] },
      n: { type: 'range', min: 1, max: 4 },
      input_references: { type: 'boolean' },
    },
    supports_streaming: false,
    pricing: [{ billable: 'output_image', cost_usd: IMAGE_COST, unit: 'image' }],
  },
];

/** `GET /api/v1/videos/models`, as OpenRouter lists them. */
export const VIDEO_MODELS = [
  {
    id: SIM_VIDEO_MODEL,
    canonical_slug: `${SIM_VIDEO_MODEL}-2026`,
    name: 'Simulator: Video',
    created: 1_760_000_000,
    description: 'A tiny clip.',
    allowed_passthrough_parameters: [],
    creativity: null,
    generate_audio: true,
    seed: null,
    supported_aspect_ratios: ['16:9', '9:16'],
    supported_durations: [4, 8],
    supported_frame_images: ['first_frame'],
    supported_resolutions: ['720p', '1080p'],
    supported_sizes: null,
    upscale_factor: null,
    pricing_skus: { 'video-720p': '0.5' },
  },
];

/** The chat model that draws, for the plain catalog in OpenRouter mode. */
export const CHAT_IMAGE_CATALOG_ENTRY = {
  id: SIM_CHAT_IMAGE_MODEL,
  name: 'Simulator: Chat Image',
  context_length: 32_000,
  pricing: { prompt: '0.0000003', completion: '0.0000025', image: String(CHAT_IMAGE_COST) },
  architecture: { input_modalities: ['text', 'image'], output_modalities: ['image', 'text'] },
  supported_parameters: ['max_tokens'],
  top_provider: { max_completion_tokens: 8192 },
};

/** What the handlers need of the simulator: every picture they serve inline is recorded. */
export interface MediaServer extends SimulatorCore, ShapeHost {
  /** The bytes of every picture served inline (base64 or data URL), in order. */
  readonly servedMedia: Buffer[];
}

/** A picture for the prompt: the colour it names, else a gradient per picture; recorded as served. */
function picture(core: MediaServer, prompt: string): Buffer {
  const colour = colourNamedIn(prompt);
  const png = colour ? solidPng(64, 64, colour) : gradientPng(64, 64, core.servedMedia.length + 1);
  core.servedMedia.push(png);
  return png;
}

function promptOf(body: unknown): string {
  if (!isRecord(body)) return '';
  if (typeof body.prompt === 'string') return body.prompt;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = messages.at(-1);
  if (!isRecord(last)) return '';
  if (typeof last.content === 'string') return last.content;
  return Array.isArray(last.content)
    ? last.content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join(' ')
    : '';
}

function usage(cost: number): Record<string, unknown> {
  return { prompt_tokens: 12, completion_tokens: 1290, total_tokens: 1302, cost };
}

/** Checks the request and the scenarios; true when it answered (an error). */
function refused(
  context: RequestContext,
  core: SimulatorCore,
  known: readonly string[] | undefined,
): boolean {
  const { body, response } = context;
  if (!isRecord(body)) {
    sendError(response, 400, 'The request body must be a JSON object.');
    return true;
  }
  if (typeof body.model !== 'string' || (known && !known.includes(body.model))) {
    sendError(response, 404, `Model ${JSON.stringify(body.model ?? null)} not found for this endpoint.`);
    return true;
  }
  const prompt = promptOf(body);
  if (prompt.trim() === '') {
    sendError(response, 400, 'A non-empty "prompt" is required.');
    return true;
  }
  const scenarios = core.scenariosFor(context, scenariosFromMarkers(prompt));
  context.record.scenarios = scenarios.names();
  if (respondWithFailure(context, core, scenarios, `media|${context.record.path}`)) return true;
  if (scenarios.has('fail')) {
    sendError(response, 400, `Provider ${core.providerName} refused the prompt: content policy (simulated).`);
    return true;
  }
  return false;
}

/** `POST /api/v1/images`: the pictures at once, base64, with their type and the cost. */
export function handleImages(context: RequestContext, core: MediaServer): void {
  if (
    refused(
      context,
      core,
      IMAGE_MODELS.map((m) => m.id),
    )
  )
    return;
  const body = context.body as Record<string, unknown>;
  const n = typeof body.n === 'number' && body.n >= 1 && body.n <= 4 ? Math.floor(body.n) : 1;
  const prompt = promptOf(body);
  sendJson(context.response, 200, {
    created: Math.floor(Date.now() / 1000),
    data: Array.from({ length: n }, () => ({
      b64_json: picture(core, prompt).toString('base64'),
      media_type: 'image/png',
    })),
    usage: usage(IMAGE_COST * n),
  });
}

/** Whether a chat request asks for pictures (`modalities` naming `image`). */
export function asksForImages(body: unknown): boolean {
  return isRecord(body) && Array.isArray(body.modalities) && body.modalities.includes('image');
}

/** Chat completions with `modalities: ["image", "text"]`: the picture in the assistant message. */
export function handleChatImages(context: RequestContext, core: MediaServer): void {
  if (refused(context, core, undefined)) return;
  const body = context.body as Record<string, unknown>;
  const prompt = promptOf(body);
  const model = String(body.model);
  const id = `gen-${Date.now()}-${Math.random().toString(36).slice(2, 12)}`;
  const drawn = !/#sim:no-image/.test(prompt);
  if (body.stream === true) return streamChatImages(context, core, { id, model, prompt, drawn });
  sendJson(context.response, 200, {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    provider: core.providerName,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        finish_reason: 'stop',
        native_finish_reason: 'STOP',
        logprobs: null,
        message: {
          role: 'assistant',
          content: drawn ? 'Here is your picture.' : 'I cannot draw that.',
          refusal: null,
          reasoning: null,
          ...(drawn
            ? {
                images: [
                  {
                    type: 'image_url',
                    image_url: { url: `data:image/png;base64,${picture(core, prompt).toString('base64')}` },
                  },
                ],
              }
            : {}),
        },
      },
    ],
    usage: usage(drawn ? CHAT_IMAGE_COST : 0),
  });
}

/**
 * A streamed chat reply that draws, as OpenRouter streams one: the text in `delta.content`, the
 * picture in `delta.images` of a later chunk, then the finish and the usage with its cost.
 */
function streamChatImages(
  context: RequestContext,
  core: MediaServer,
  reply: { id: string; model: string; prompt: string; drawn: boolean },
): void {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    provider: core.providerName,
    system_fingerprint: null,
    choices: [{ index: 0, delta, finish_reason: null, native_finish_reason: null, logprobs: null }],
    ...extra,
  });
  const url = reply.drawn ? `data:image/png;base64,${picture(core, reply.prompt).toString('base64')}` : '';
  const chunks = [
    chunk({ role: 'assistant', content: reply.drawn ? 'Here is your picture.' : 'I cannot draw that.' }),
    ...(reply.drawn
      ? [chunk({ role: 'assistant', content: '', images: [{ type: 'image_url', image_url: { url } }] })]
      : []),
    {
      ...chunk({ role: 'assistant', content: '' }),
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'stop', native_finish_reason: 'STOP' }],
      usage: usage(reply.drawn ? CHAT_IMAGE_COST : 0),
    },
  ];
  context.response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const item of chunks) context.response.write(`data: ${JSON.stringify(item)}\n\n`);
  context.response.end('data: [DONE]\n\n');
}

/** `POST /api/v1/videos`: 202 with the job's id and relative polling URL (the `openrouter` shape). */
export function handleVideoStart(
  context: RequestContext,
  core: SimulatorCore & ShapeHost,
  jobs: MediaJobs,
): void {
  if (
    refused(
      context,
      core,
      VIDEO_MODELS.map((m) => m.id),
    )
  )
    return;
  const { model, prompt, ...parameters } = context.body as Record<string, unknown>;
  const job = jobs.add(String(model), String(prompt), parameters, 'openrouter');
  const answer = shapedStart(job, 'openrouter', core);
  sendJson(context.response, answer.status, answer.body);
}

/**
 * `POST /api/v1/images/generations` (OpenAI): `data[].b64_json`, or with `#sim:url` a link on the
 * second origin (a storage host: the key must never go there).
 */
export function handleImageGenerations(context: RequestContext, core: MediaServer, jobs: MediaJobs): void {
  if (refused(context, core, undefined)) return;
  const body = context.body as Record<string, unknown>;
  const prompt = promptOf(body);
  const byUrl = /#sim:url\b/.test(prompt);
  let item: Record<string, unknown>;
  if (byUrl) {
    const job = jobs.add(String(body.model), prompt, {});
    item = { url: `${core.resultOrigin}/files/${encodeURIComponent(job.id)}.png` };
  } else item = { b64_json: picture(core, prompt).toString('base64') };
  sendJson(context.response, 200, {
    created: Math.floor(Date.now() / 1000),
    data: [{ ...item, revised_prompt: prompt }],
    usage: { input_tokens: 12, output_tokens: 1056, total_tokens: 1068 },
  });
}
