/**
 * Media models of gateways that have no media catalog of their own (no `/v1/images/models`, no
 * `output_modalities`): OpenAI itself, LiteLLM, Portkey, local servers. Two sources, each read here
 * at one boundary, bounded, tolerantly (a malformed answer only means fewer models):
 *
 * - LiteLLM's `GET /model/info` (also at `/v1/model/info`): `{data: [{model_name, litellm_params:
 *   {model}, model_info: {mode: "image_generation", output_cost_per_image, …}}]}`;
 * - the image models OpenAI-style servers are known to serve at `POST /v1/images/generations`,
 *   when the plain `GET /v1/models` lists them (a small list, below).
 *
 * Both are started at `/v1/images/generations`: no `/v1/media` is tried for them first.
 */
import { isRecord, stringField } from './json';
import type { JsonObject } from './json';
import type { MediaModelInfo } from './mediaRoutes';

/**
 * Image model ids OpenAI-style servers (OpenAI, Azure OpenAI deployments named after the model,
 * LiteLLM and Portkey in front of them) serve at `/v1/images/generations`. Data, not rules: a
 * model outside it is still used when a catalog names it or the user types it.
 */
export const KNOWN_IMAGE_GENERATION_MODELS: readonly string[] = [
  'gpt-image-1',
  'gpt-image-1-mini',
  'gpt-image-1.5',
  'dall-e-3',
  'dall-e-2',
];

/** Whether `id` is one of the known image models of OpenAI-style servers (exactly, any case). */
export function isKnownImageGenerationModel(id: string): boolean {
  return KNOWN_IMAGE_GENERATION_MODELS.includes(id.trim().toLowerCase());
}

/** The most entries read from one answer. */
const MAX_ENTRIES = 2000;
const MAX_ID = 300;

function entries(body: unknown): JsonObject[] {
  const list = isRecord(body) ? body.data : body;
  return Array.isArray(list) ? list.slice(0, MAX_ENTRIES).filter(isRecord) : [];
}

/** A model id as sent back to the gateway: bounded, without whitespace or control characters. */
function usableId(value: string | undefined): string | undefined {
  const id = value?.trim();
  // eslint-disable-next-line no-control-regex
  return id && id.length <= MAX_ID && !/[\s\x00-\x1f\x7f]/.test(id) ? id : undefined;
}

function imageModel(id: string, price?: string, name?: string): MediaModelInfo {
  return {
    id,
    kind: 'image',
    route: 'images-generations',
    ...(name ? { name } : {}),
    ...(price ? { price } : {}),
  };
}

/** `$0.04 per image`, from a finite non-negative figure (number or numeric string), else undefined. */
function perImage(value: unknown): string | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0 || number > 1e6) return undefined;
  return `$${Number(number.toPrecision(4))} per image`;
}

/** LiteLLM's `/model/info`: the `image_generation` models, by the `model_name` clients send. */
export function parseModelInfoMediaModels(body: unknown): MediaModelInfo[] {
  const seen = new Set<string>();
  return entries(body).flatMap((entry): MediaModelInfo[] => {
    const info = isRecord(entry.model_info) ? entry.model_info : {};
    if (stringField(info, 'mode') !== 'image_generation') return [];
    const id = usableId(stringField(entry, 'model_name'));
    if (!id || seen.has(id)) return [];
    seen.add(id);
    return [imageModel(id, perImage(info.output_cost_per_image) ?? perImage(info.input_cost_per_image))];
  });
}

/** The known image models (see the list above) that a plain `GET /v1/models` lists. */
export function parseKnownImageModels(body: unknown): MediaModelInfo[] {
  const seen = new Set<string>();
  return entries(body).flatMap((entry): MediaModelInfo[] => {
    const id = usableId(stringField(entry, 'id'));
    if (!id || seen.has(id) || !isKnownImageGenerationModel(id)) return [];
    seen.add(id);
    return [imageModel(id)];
  });
}
