/**
 * Media job answers → MediaRecord. Gateways and providers disagree on shapes, so this accepts
 * `output` or `result` holding a URL, a data URI, text, `{url}`, `{b64_json}`, nested `{images}` /
 * `{data}` lists, or arrays of any of these, and never throws on an unexpected one.
 */
import { GatewayError } from './errors';
import { isRecord, stringField } from './json';
import type { JsonObject } from './json';
import type { MediaOutput, MediaRecord, MediaStarted, MediaStatus } from './types';

const STATUS_ALIASES: Record<string, MediaStatus> = {
  queued: 'queued',
  pending: 'queued',
  waiting: 'queued',
  processing: 'processing',
  in_progress: 'processing',
  running: 'processing',
  started: 'processing',
  completed: 'completed',
  complete: 'completed',
  succeeded: 'completed',
  success: 'completed',
  done: 'completed',
  failed: 'failed',
  failure: 'failed',
  error: 'failed',
};

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
};

/** Lists that wrap outputs in the shapes seen in the wild (OpenAI images API: `data`). */
const NESTED_LISTS = [
  'images',
  'data',
  'outputs',
  'output',
  'result',
  'results',
  'files',
  'videos',
  'audio',
  'artifacts',
];

/** Known statuses keep their name; a few common synonyms are mapped; anything else is kept as is. */
export function normalizeMediaStatus(value: unknown): MediaStatus {
  if (typeof value !== 'string' || value.trim() === '') return 'unknown';
  return STATUS_ALIASES[value.trim().toLowerCase()] ?? value;
}

export function normalizeMediaRecord(body: unknown, requestedId: string): MediaRecord {
  const record: JsonObject = isRecord(body) ? body : {};
  const id = record.id;
  const source = record.output !== undefined && record.output !== null ? record.output : record.result;
  const error = mediaErrorText(record.error);
  return {
    id: typeof id === 'string' || typeof id === 'number' ? String(id) : requestedId,
    status: normalizeMediaStatus(record.status),
    outputs: collectMediaOutputs(source),
    ...(error !== undefined ? { error } : {}),
  };
}

export function normalizeMediaStarted(body: unknown): MediaStarted {
  const record = isRecord(body) ? body : {};
  const id = record.id;
  if ((typeof id !== 'string' || id === '') && typeof id !== 'number') {
    throw new GatewayError({
      kind: 'invalid_response',
      message: 'The gateway accepted the media request but sent no job id.',
    });
  }
  const started: MediaStarted = { id: typeof id === 'number' ? String(id) : id };
  if (record.status !== undefined) started.status = normalizeMediaStatus(record.status);
  return started;
}

/** `error` may be a string or `{message, code}`; anything else is shown as JSON. */
export function mediaErrorText(error: unknown): string | undefined {
  if (error === undefined || error === null || error === '') return undefined;
  if (typeof error === 'string') return error;
  if (isRecord(error)) {
    const message = stringField(error, 'message', 'detail', 'error', 'reason');
    const code = error.code;
    const codeText = typeof code === 'string' || typeof code === 'number' ? ` (${code})` : '';
    if (message) return `${message}${codeText}`;
    return JSON.stringify(error);
  }
  return typeof error === 'string' || typeof error === 'number' || typeof error === 'boolean'
    ? String(error)
    : JSON.stringify(error);
}

export function collectMediaOutputs(value: unknown, depth = 0): MediaOutput[] {
  if (depth > 5 || value === undefined || value === null) return [];
  if (typeof value === 'string') return outputFromString(value);
  if (Array.isArray(value)) return value.flatMap((item) => collectMediaOutputs(item, depth + 1));
  if (!isRecord(value)) return [];
  return outputsFromObject(value, depth);
}

function outputsFromObject(object: JsonObject, depth: number): MediaOutput[] {
  const declaredMime = stringField(
    object,
    'mime_type',
    'mimeType',
    'content_type',
    'contentType',
    'media_type',
  );
  const b64 = stringField(object, 'b64_json', 'base64', 'b64');
  if (b64) return [{ kind: 'data', data: b64, mimeType: declaredMime ?? 'image/png' }];

  const imageUrl = object.image_url;
  const url =
    stringField(object, 'url', 'uri', 'href') ??
    (isRecord(imageUrl) ? stringField(imageUrl, 'url') : typeof imageUrl === 'string' ? imageUrl : undefined);
  if (url) {
    return outputFromString(url).map((output) =>
      declaredMime && output.kind !== 'text' ? { ...output, mimeType: declaredMime } : output,
    );
  }

  const data = object.data;
  if (typeof data === 'string') {
    if (data.startsWith('data:')) return outputFromString(data);
    if (declaredMime) return [{ kind: 'data', data, mimeType: declaredMime }];
  }

  const text = stringField(object, 'text', 'content');
  if (text !== undefined) return [{ kind: 'text', text }];

  for (const name of NESTED_LISTS) {
    if (object[name] !== undefined && object[name] !== null && typeof object[name] !== 'string') {
      return collectMediaOutputs(object[name], depth + 1);
    }
  }
  return [];
}

function outputFromString(value: string): MediaOutput[] {
  const text = value.trim();
  if (text.startsWith('data:')) {
    const data = parseDataUri(text);
    if (data) return [data];
  }
  if (/^https?:\/\/\S+$/i.test(text)) {
    const mimeType = mimeFromUrl(text);
    return [mimeType ? { kind: 'url', url: text, mimeType } : { kind: 'url', url: text }];
  }
  return value === '' ? [] : [{ kind: 'text', text: value }];
}

/** `data:[<mime>][;base64],<payload>` → base64 payload; URL-encoded payloads are re-encoded. */
function parseDataUri(uri: string): MediaOutput | undefined {
  const comma = uri.indexOf(',');
  if (comma < 0) return undefined;
  const header = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  const parts = header.split(';');
  const mimeType = parts[0] || 'text/plain';
  if (parts.includes('base64')) return { kind: 'data', data: payload.replace(/\s+/g, ''), mimeType };
  let decoded: string;
  try {
    decoded = decodeURIComponent(payload);
  } catch {
    decoded = payload;
  }
  return { kind: 'data', data: Buffer.from(decoded, 'utf8').toString('base64'), mimeType };
}

/** The usual file extension for a MIME type (the first one listed above), or `bin`. */
export function extensionForMime(mimeType: string | undefined): string {
  const type = mimeType?.split(';')[0].trim().toLowerCase();
  if (!type) return 'bin';
  if (type === 'text/plain') return 'txt';
  return Object.keys(MIME_BY_EXTENSION).find((extension) => MIME_BY_EXTENSION[extension] === type) ?? 'bin';
}

export function mimeFromUrl(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return extension ? MIME_BY_EXTENSION[extension] : undefined;
}
