/**
 * Reference images for variations: which request parameter carries the image depends on the model
 * family, and the user can say otherwise per model in settings. And how a job keeps its reference
 * images: as files, with only their names in jobs.json.
 */
import { sha256Hex } from '../util/sha256';
import { base64ToBytes, bytesToBase64 } from '../../api/base64';
import { extensionForMime } from '../../api/media';

export const REFERENCE_PARAMETER_NAMES = ['image', 'input_image', 'image_url'] as const;
export type ReferenceParameterName = (typeof REFERENCE_PARAMETER_NAMES)[number];

/** Families whose APIs are known; the rest get `image_url`, the most common chat-style name. */
const FAMILY_DEFAULTS: ReadonlyArray<[RegExp, ReferenceParameterName]> = [
  [/^openai\//, 'image'],
  [/^(black-forest-labs|bfl)\//, 'input_image'],
  [/flux/i, 'input_image'],
];

/**
 * The parameter name for `model`. `overrides` maps a model id, or a pattern with `*` (e.g.
 * `"openai/*"`), to a name; the longest matching pattern wins.
 */
export function referenceParameterFor(
  model: string,
  overrides: Readonly<Record<string, string>> = {},
): ReferenceParameterName {
  let best: { length: number; name: ReferenceParameterName } | undefined;
  for (const [pattern, name] of Object.entries(overrides)) {
    if (!(REFERENCE_PARAMETER_NAMES as readonly string[]).includes(name)) continue;
    if (!globMatches(pattern, model)) continue;
    if (!best || pattern.length > best.length)
      best = { length: pattern.length, name: name as ReferenceParameterName };
  }
  if (best) return best.name;
  return FAMILY_DEFAULTS.find(([family]) => family.test(model))?.[1] ?? 'image_url';
}

function globMatches(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(value);
}

/** The parameters of a variation: the original ones with the reference image added. */
export function withReference(
  parameters: Readonly<Record<string, unknown>> | undefined,
  name: ReferenceParameterName,
  reference: string,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...parameters };
  for (const other of REFERENCE_PARAMETER_NAMES) delete next[other];
  next[name] = reference;
  return next;
}

export function dataUrl(mimeType: string, base64: string): string {
  return `data:${mimeType};base64,${base64}`;
}

/**
 * A reference image as jobs.json keeps it: the file it was written to (in the extension's global
 * storage, beside the results) and the data URL's media type. An image is megabytes as a data
 * URL, and every window rewrites jobs.json, so the file holds this instead; the data URL is made
 * again from the file when the job is started again.
 */
export interface StoredReference {
  /** `<sha256 of the bytes>.<ext>`: one file per image, shared by the jobs that use it. */
  gatewayReference: string;
  /** What stood between `data:` and `;base64,`. */
  mediaType: string;
}

const REFERENCE_FILE = /^[0-9a-f]{64}\.[a-z0-9]{1,10}$/;
const BASE64_DATA_URL = /^data:([^,]*);base64,([A-Za-z0-9+/]*={0,2})$/;
/** Parameters nest (a list of images); deeper than this is left as it is. */
const MAX_DEPTH = 16;

export function isStoredReference(value: unknown): value is StoredReference {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const { gatewayReference, mediaType } = value as Record<string, unknown>;
  return (
    keys.length === 2 &&
    typeof gatewayReference === 'string' &&
    REFERENCE_FILE.test(gatewayReference) &&
    typeof mediaType === 'string' &&
    !mediaType.includes(',')
  );
}

/** The bytes of a base64 data URL, when it is one that decodes and encodes back exactly. */
function decodeDataUrl(value: string): { mediaType: string; bytes: Uint8Array } | undefined {
  if (!value.startsWith('data:')) return undefined;
  const match = BASE64_DATA_URL.exec(value);
  if (!match) return undefined;
  const bytes = base64ToBytes(match[2]);
  // Only when the data URL comes back from the file as it was.
  return bytes && bytesToBase64(bytes) === match[2] ? { mediaType: match[1], bytes } : undefined;
}

/** The file a reference image is kept in: named by its bytes, so one image is one file. */
export function referenceFileName(bytes: Uint8Array, mediaType: string): string {
  return `${sha256Hex(bytes)}.${extensionForMime(mediaType)}`;
}

/** Whether the parameters carry an image inline (a base64 data URL) that belongs in a file. */
export function hasInlineReferences(parameters: Readonly<Record<string, unknown>> | undefined): boolean {
  let found = false;
  walk(parameters, 0, (value) => {
    if (typeof value === 'string' && decodeDataUrl(value)) found = true;
    return undefined;
  });
  return found;
}

/** The reference files the parameters name. */
export function referenceFilesOf(parameters: Readonly<Record<string, unknown>> | undefined): string[] {
  const files: string[] = [];
  walk(parameters, 0, (value) => {
    if (isStoredReference(value)) files.push(value.gatewayReference);
    return undefined;
  });
  return files;
}

/**
 * The parameters as jobs.json keeps them: each base64 data URL written to a file (through
 * `write`, under referenceFileName) and replaced by a StoredReference. Returns the same object
 * when there is nothing to write.
 */
export async function storeReferences(
  parameters: Record<string, unknown>,
  write: (name: string, bytes: Uint8Array) => Promise<void>,
): Promise<Record<string, unknown>> {
  const found: Array<{ value: string; name: string; mediaType: string; bytes: Uint8Array }> = [];
  walk(parameters, 0, (value) => {
    const data = typeof value === 'string' ? decodeDataUrl(value) : undefined;
    if (data)
      found.push({ value: value as string, name: referenceFileName(data.bytes, data.mediaType), ...data });
    return undefined;
  });
  if (!found.length) return parameters;
  for (const { name, bytes } of new Map(found.map((f) => [f.name, f])).values()) await write(name, bytes);
  const byValue = new Map(found.map((f) => [f.value, f]));
  return walk(parameters, 0, (value) => {
    const stored = typeof value === 'string' ? byValue.get(value) : undefined;
    return stored ? { value: { gatewayReference: stored.name, mediaType: stored.mediaType } } : undefined;
  }) as Record<string, unknown>;
}

/** A stored reference image whose file is gone: the job cannot be started again as it was. */
export class MissingReferenceError extends Error {
  constructor() {
    super('The reference image of this job is no longer stored; start it again from the image.');
  }
}

/**
 * The parameters to send: each StoredReference read back (through `read`) into the data URL it
 * was. Throws MissingReferenceError when a file is gone. The same object when there is none.
 */
export async function loadReferences(
  parameters: Record<string, unknown>,
  read: (name: string) => Promise<Uint8Array | undefined>,
): Promise<Record<string, unknown>> {
  const names = [...new Set(referenceFilesOf(parameters))];
  if (!names.length) return parameters;
  const base64 = new Map<string, string>();
  for (const name of names) {
    const bytes = await read(name);
    if (!bytes) throw new MissingReferenceError();
    base64.set(name, bytesToBase64(bytes));
  }
  return walk(parameters, 0, (value) =>
    isStoredReference(value)
      ? { value: dataUrl(value.mediaType, base64.get(value.gatewayReference) ?? '') }
      : undefined,
  ) as Record<string, unknown>;
}

/**
 * A copy of `value` with what `visit` replaces (`{ value }`) replaced; `visit` sees every value,
 * containers before their contents. Unchanged containers are the originals.
 */
function walk(
  value: unknown,
  depth: number,
  visit: (value: unknown) => { value: unknown } | undefined,
): unknown {
  const replaced = visit(value);
  if (replaced) return replaced.value;
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => walk(item, depth + 1, visit));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = walk(item, depth + 1, visit);
    if (next === item) continue;
    copy ??= { ...value };
    // defineProperty: a key named `__proto__` stays a key.
    Object.defineProperty(copy, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}
