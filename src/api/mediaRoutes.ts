/**
 * The ways a gateway serves media, and the one boundary where each answers' shape is read:
 *
 * - `media`: `POST /v1/media` + `GET /v1/media/{id}` (an asynchronous job);
 * - `images`: OpenRouter's `POST /v1/images` (synchronous, `data[].b64_json` + `media_type`);
 * - `chat-images`: `POST /v1/chat/completions` with `modalities: ["image", "text"]` (synchronous,
 *   `choices[0].message.images[].image_url.url`, a data URL);
 * - `videos`: OpenRouter's `POST /v1/videos` (202 `{id, polling_url, status}`, then polled);
 * - `images-generations`: OpenAI's `POST /v1/images/generations` (synchronous, `data[].b64_json`
 *   or `data[].url`).
 *
 * Which route a model takes comes from the gateway's catalogs (`/v1/images/models`,
 * `/v1/videos/models`, `/v1/models?output_modalities=image`), read here tolerantly: a catalog
 * that is missing, malformed or huge only means fewer models are known on it.
 */
import { MAX_CHAT_IMAGES, parseChatImages } from './chatImages';
import { isRecord, stringField } from './json';
import type { JsonObject } from './json';
import { normalizeMediaRecord } from './media';

export { checkMediaParameters, describeMediaOptions, syncJobId } from './media';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import type { Secrets } from './redact';
import type { MediaRecord, MediaRequest, MediaRoute } from './types';

export type { MediaRoute } from './types';

export const MEDIA_ROUTES: readonly MediaRoute[] = [
  'media',
  'images',
  'chat-images',
  'videos',
  'images-generations',
];

/** Where each route starts a job. */
export const MEDIA_ROUTE_PATHS: Readonly<Record<MediaRoute, string>> = {
  media: '/v1/media',
  images: '/v1/images',
  'chat-images': '/v1/chat/completions',
  videos: '/v1/videos',
  'images-generations': '/v1/images/generations',
};

/** Routes whose answer is the result itself: the job is completed at once. */
export function isSyncRoute(route: MediaRoute): boolean {
  return route === 'images' || route === 'chat-images' || route === 'images-generations';
}

/** What a media model makes, as its catalog says. */
export type MediaKind = 'image' | 'video' | 'audio';

/** One media model as a catalog lists it: what the picker shows and what is checked before sending. */
export interface MediaModelInfo {
  id: string;
  name?: string;
  kind: MediaKind;
  route: MediaRoute;
  /** A short price text from the catalog (`$0.04 per image`), when it gives one. */
  price?: string;
  /** Allowed values per parameter (`aspect_ratio`, `resolution`, `duration`, `quality`, …). */
  options?: Record<string, readonly (string | number)[]>;
  /** How the route takes a reference image, when the model takes one. */
  reference?: 'input_references' | 'frame_images' | 'image_part' | 'image';
}

/** The most catalog entries kept from one list: a gateway's list of a million is not a catalog. */
const MAX_CATALOG_ENTRIES = 2000;
const MAX_OPTION_VALUES = 64;

function entries(body: unknown): JsonObject[] {
  const list = isRecord(body) ? body.data : body;
  return Array.isArray(list) ? list.slice(0, MAX_CATALOG_ENTRIES).filter(isRecord) : [];
}

function modelId(entry: JsonObject): string | undefined {
  const id = stringField(entry, 'id');
  return id && id.length <= 300 && !/\s/.test(id) ? id : undefined;
}

/** A list of short strings or finite numbers, or undefined. */
function valueList(value: unknown): (string | number)[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const values = value
    .slice(0, MAX_OPTION_VALUES)
    .filter(
      (item): item is string | number =>
        (typeof item === 'string' && item.length > 0 && item.length <= 40) ||
        (typeof item === 'number' && Number.isFinite(item)),
    );
  return values.length > 0 ? values : undefined;
}

function dollars(value: unknown): string | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || number > 1e6) return undefined;
  return `$${Number(number.toPrecision(4))}`;
}

/**
 * A video model's price from its SKUs (`{"per-video-second": "0.50", "per-video-second-1080p":
 * "0.75"}`): priced by the second, the dearest SKU per second (what a job may cost, for the spend
 * caps); otherwise `from` the cheapest SKU per job. Undefined when no SKU holds a usable figure.
 */
function videoPrice(skus: unknown): string | undefined {
  if (!isRecord(skus)) return undefined;
  const priced = Object.entries(skus)
    .slice(0, 50)
    .flatMap(([name, value]) => {
      const number = typeof value === 'string' ? Number(value) : value;
      return dollars(value) !== undefined && typeof number === 'number' ? [{ name, number }] : [];
    });
  if (!priced.length) return undefined;
  const perSecond = priced.filter((sku) => /second/i.test(sku.name));
  if (perSecond.length) return `${dollars(Math.max(...perSecond.map((sku) => sku.number)))} per second`;
  return `from ${dollars(Math.min(...priced.map((sku) => sku.number)))}`;
}

/**
 * `GET /v1/images/models` (OpenRouter): `{data: [{id, name, supported_parameters: {name:
 * {type: "enum", values}}, pricing?}]}`. Every entry is an image model on the `images` route.
 */
export function parseImageModels(body: unknown): MediaModelInfo[] {
  return entries(body).flatMap((entry): MediaModelInfo[] => {
    const id = modelId(entry);
    if (!id) return [];
    const info: MediaModelInfo = { id, kind: 'image', route: 'images' };
    const name = stringField(entry, 'name');
    if (name) info.name = name.slice(0, 200);
    const options: Record<string, (string | number)[]> = {};
    const parameters = isRecord(entry.supported_parameters) ? entry.supported_parameters : {};
    for (const [key, descriptor] of Object.entries(parameters).slice(0, 40)) {
      if (!/^[a-z_][a-z0-9_]{0,40}$/.test(key) || !isRecord(descriptor)) continue;
      const values = valueList(descriptor.values ?? descriptor.enum);
      if (values) options[key] = values;
    }
    if (Object.keys(options).length > 0) info.options = options;
    if ('input_references' in parameters || 'image' in parameters) info.reference = 'input_references';
    const price = imagePrice(entry.pricing);
    if (price) info.price = price;
    return [info];
  });
}

function imagePrice(pricing: unknown): string | undefined {
  const list = Array.isArray(pricing) ? pricing.filter(isRecord) : [];
  const output = list.find((item) => item.billable === 'output_image') ?? list[0];
  if (!output) return undefined;
  const amount = dollars(output.cost_usd);
  const unit = stringField(output, 'unit');
  return amount ? `${amount} per ${unit && /^[a-z]{1,20}$/.test(unit) ? unit : 'image'}` : undefined;
}

/**
 * `GET /v1/videos/models` (OpenRouter): `{data: [{id, name, supported_durations,
 * supported_resolutions, supported_aspect_ratios, supported_frame_images, generate_audio}]}`.
 */
export function parseVideoModels(body: unknown): MediaModelInfo[] {
  return entries(body).flatMap((entry): MediaModelInfo[] => {
    const id = modelId(entry);
    if (!id) return [];
    const info: MediaModelInfo = { id, kind: 'video', route: 'videos' };
    const name = stringField(entry, 'name');
    if (name) info.name = name.slice(0, 200);
    const options: Record<string, (string | number)[]> = {};
    const fields: Array<[string, string]> = [
      ['duration', 'supported_durations'],
      ['resolution', 'supported_resolutions'],
      ['aspect_ratio', 'supported_aspect_ratios'],
      ['size', 'supported_sizes'],
    ];
    for (const [key, field] of fields) {
      const values = valueList(entry[field]);
      if (values) options[key] = values;
    }
    if (entry.generate_audio === true) options.generate_audio = ['true', 'false'];
    if (Object.keys(options).length > 0) info.options = options;
    const frames = valueList(entry.supported_frame_images);
    info.reference = frames?.includes('first_frame') ? 'frame_images' : 'input_references';
    info.price = videoPrice(entry.pricing_skus);
    return [info];
  });
}

/**
 * `GET /v1/models?output_modalities=…`: chat models that also make images (their
 * `architecture.output_modalities` lists `image`). `imagesRoute` is where such a model's pictures
 * come from: chat completions with `modalities` where the gateway has an images catalog of its own
 * (OpenRouter), else `images-generations` (OpenAI-style servers list their image models here).
 */
export function parseChatMediaModels(body: unknown, imagesRoute: MediaRoute): MediaModelInfo[] {
  return entries(body).flatMap((entry): MediaModelInfo[] => {
    const id = modelId(entry);
    if (!id) return [];
    const architecture = isRecord(entry.architecture) ? entry.architecture : {};
    const outputs = (valueList(architecture.output_modalities) ?? []).map((v) => String(v).toLowerCase());
    const inputs = (valueList(architecture.input_modalities) ?? []).map((v) => String(v).toLowerCase());
    const kind: MediaKind | undefined = outputs.includes('image')
      ? 'image'
      : outputs.includes('video')
        ? 'video'
        : outputs.includes('audio')
          ? 'audio'
          : undefined;
    if (!kind) return [];
    const route: MediaRoute = kind === 'image' ? imagesRoute : kind === 'video' ? 'videos' : 'media';
    const info: MediaModelInfo = { id, kind, route };
    const name = stringField(entry, 'name');
    if (name) info.name = name.slice(0, 200);
    const pricing = isRecord(entry.pricing) ? entry.pricing : {};
    const price = dollars(pricing.image) ?? dollars(pricing.request);
    if (price) info.price = `${price} per ${pricing.image !== undefined ? 'image' : 'request'}`;
    if (kind === 'image' && inputs.includes('image'))
      info.reference = route === 'chat-images' ? 'image_part' : 'image';
    return [info];
  });
}

/** The parameters without the ones the request's own fields fill (model, prompt, messages). */
function ownParameters(request: MediaRequest, reserved: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(request.parameters ?? {}).filter(([key]) => !reserved.includes(key)),
  );
}

/** Parameters that hold a reference image (a data URL or http(s) URL), as the tool and picker send. */
const REFERENCE_KEYS = ['image', 'reference_image', 'input_image', 'init_image', 'image_url'];

function referenceOf(parameters: Record<string, unknown>): { key: string; url: string } | undefined {
  for (const key of REFERENCE_KEYS) {
    const value = parameters[key];
    if (typeof value === 'string' && /^(data:image\/|https?:)/i.test(value.trim()))
      return { key, url: value.trim() };
  }
  return undefined;
}

/**
 * The body each route takes. Parameters never replace the model or the prompt; a reference
 * image goes as the route expects it: `input_references` (OpenRouter images and videos),
 * `frame_images` (a video model that starts from a first frame), or an image part (chat).
 */
export function mediaRouteBody(
  route: MediaRoute,
  request: MediaRequest,
  reference?: MediaModelInfo['reference'],
): Record<string, unknown> {
  const parameters = ownParameters(request, ['model', 'prompt', 'messages', 'modalities', 'stream']);
  if (route === 'media') return { ...parameters, model: request.model, prompt: request.prompt };
  const image = referenceOf(parameters);
  if (image && route !== 'images-generations') delete parameters[image.key];
  if (route === 'chat-images') {
    const imageConfig: Record<string, unknown> = {};
    for (const key of ['aspect_ratio', 'image_size', 'resolution'] as const) {
      const value = parameters[key];
      if (typeof value === 'string') imageConfig[key === 'resolution' ? 'image_size' : key] = value;
    }
    const content = image
      ? [
          { type: 'text', text: request.prompt },
          { type: 'image_url', image_url: { url: image.url } },
        ]
      : request.prompt;
    return {
      model: request.model,
      messages: [{ role: 'user', content }],
      modalities: ['image', 'text'],
      ...(Object.keys(imageConfig).length > 0 ? { image_config: imageConfig } : {}),
    };
  }
  const body: Record<string, unknown> = { ...parameters, model: request.model, prompt: request.prompt };
  if (image && route === 'videos' && reference === 'frame_images')
    body.frame_images = [{ type: 'image_url', image_url: { url: image.url }, frame_type: 'first_frame' }];
  else if (image && (route === 'videos' || route === 'images'))
    body.input_references = [{ type: 'image_url', image_url: { url: image.url } }];
  if (typeof body.duration === 'string' && /^\d+(\.\d+)?$/.test(body.duration))
    body.duration = Number(body.duration);
  if (body.generate_audio === 'true' || body.generate_audio === 'false')
    body.generate_audio = body.generate_audio === 'true';
  return body;
}

/**
 * A synchronous route's answer → a final media record under `id`: the pictures as data (or links,
 * resolved against the base URL), `usage.cost`. Never throws; an answer without a picture is a
 * failure that says so (with the model's text, when it wrote one instead).
 */
export function normalizeSyncRecord(
  route: MediaRoute,
  body: unknown,
  id: string,
  problems: ProblemReporter = silentProblems,
  secrets: Secrets = [],
  baseUrl?: string,
): MediaRecord {
  const record: JsonObject = isRecord(body) ? body : {};
  let shaped: JsonObject;
  if (route === 'chat-images') {
    const choices = Array.isArray(record.choices) ? record.choices : [];
    const first: unknown = choices[0];
    const message = isRecord(first) && isRecord(first.message) ? first.message : {};
    // Only inline raster pictures, bounded, as in a streamed reply (chatImages.ts).
    const images = parseChatImages(message.images, MAX_CHAT_IMAGES, problems).map((image) => ({
      b64_json: image.data,
      media_type: image.mimeType,
    }));
    const said = typeof message.content === 'string' ? message.content.trim() : '';
    shaped = {
      status: 'completed',
      images,
      ...(isRecord(record.usage) ? { usage: record.usage } : {}),
      ...(images.length === 0 && said ? { error: `The model answered without a picture: ${said}` } : {}),
    };
  } else {
    const data = Array.isArray(record.data) ? record.data : [];
    shaped = {
      status: 'completed',
      data,
      ...(isRecord(record.usage) ? { usage: record.usage } : {}),
      ...(record.error !== undefined ? { error: record.error } : {}),
    };
  }
  const normalized = normalizeMediaRecord(shaped, id, problems, secrets, baseUrl ? { baseUrl } : {});
  return { ...normalized, id };
}
