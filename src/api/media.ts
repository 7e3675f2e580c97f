/**
 * Media job answers → MediaRecord. Gateways and providers disagree on shapes, so this accepts
 * `output` or `result` holding a URL, a data URI, text, `{url}`, `{b64_json}`, nested `{images}` /
 * `{data}` lists, or arrays of any of these, and never throws on an unexpected one.
 */
import { GatewayError } from './errors';
import { readNumber } from './fields';
import { excerpt, isRecord, stringField } from './json';
import type { JsonObject } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import { redact } from './redact';
import type { Secrets } from './redact';
import type { MediaOutput, MediaRecord, MediaRequest, MediaStarted, MediaStatus } from './types';

/**
 * The most results one media record may bring; the rest are left out (and counted). Every result
 * may be downloaded and shown, so a record of thousands of links must not become thousands of
 * downloads.
 */
export const MAX_MEDIA_OUTPUTS = 16;

/** Body fields of `POST /v1/media` that the request's own fields fill; no parameter replaces them. */
export const RESERVED_MEDIA_KEYS: readonly string[] = ['model', 'prompt'];

/** The parameters without the reserved keys (own properties only, `__proto__` kept as a plain key). */
export function withoutReservedKeys(
  parameters: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(parameters ?? {}).filter(([key]) => !RESERVED_MEDIA_KEYS.includes(key)),
  );
}

/**
 * The body of `POST /v1/media`: the parameters, then the model and the prompt. A parameter named
 * `model` or `prompt` is dropped, so what is sent is always the model and prompt the caller named
 * (and showed the user).
 */
export function mediaRequestBody(request: MediaRequest): Record<string, unknown> {
  return { ...withoutReservedKeys(request.parameters), model: request.model, prompt: request.prompt };
}

/**
 * A gateway's status words → ours. A Map, never an object: status text from outside must not be
 * used as an object key (`constructor`, `__proto__`, `toString` would find the prototype's).
 */
const STATUS_ALIASES: ReadonlyMap<string, MediaStatus> = new Map<string, MediaStatus>([
  ['queued', 'queued'],
  ['pending', 'queued'],
  ['waiting', 'queued'],
  ['submitted', 'queued'],
  ['created', 'queued'],
  ['starting', 'queued'],
  ['processing', 'processing'],
  ['in_progress', 'processing'],
  ['in-progress', 'processing'],
  ['running', 'processing'],
  ['started', 'processing'],
  ['generating', 'processing'],
  ['completed', 'completed'],
  ['complete', 'completed'],
  ['succeeded', 'completed'],
  ['success', 'completed'],
  ['successful', 'completed'],
  ['done', 'completed'],
  ['finished', 'completed'],
  ['failed', 'failed'],
  ['failure', 'failed'],
  ['error', 'failed'],
  ['errored', 'failed'],
  ['canceled', 'failed'],
  ['cancelled', 'failed'],
  ['expired', 'failed'],
  ['rejected', 'failed'],
  ['timed_out', 'failed'],
  ['timeout', 'failed'],
]);

/** Failed statuses that say why on their own; the reason is kept when the gateway gives no error. */
const FAILURE_REASONS: ReadonlyMap<string, string> = new Map([
  ['canceled', 'The job was cancelled at the gateway.'],
  ['cancelled', 'The job was cancelled at the gateway.'],
  ['expired', 'The job expired at the gateway.'],
  ['rejected', 'The gateway rejected the job.'],
  ['timed_out', 'The job timed out at the gateway.'],
  ['timeout', 'The job timed out at the gateway.'],
]);

const MIME_BY_EXTENSION: ReadonlyMap<string, string> = new Map(
  Object.entries({
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
    txt: 'text/plain',
  }),
);

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

/**
 * Our status for the gateway's word, or undefined when it sent none, an empty one or one we do not
 * know: then the job is still in progress, and polling goes on.
 */
export function normalizeMediaStatus(
  value: unknown,
  problems: ProblemReporter = silentProblems,
): MediaStatus | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    problems.wrongType('media.status', 'a string', value);
    return undefined;
  }
  const word = value.trim().toLowerCase();
  if (word === '') return undefined;
  const status = STATUS_ALIASES.get(word);
  if (status === undefined)
    problems.unknown(
      'media.status',
      'a status this version does not know; the job counts as still in progress',
    );
  return status;
}

/**
 * A media status record by type: never throws, whatever `body` is. `secrets` (the key, proxy
 * credentials) are redacted from the texts the gateway wrote, before they are cut to length, so a
 * gateway that echoes the key in a failure reason never brings it to the user.
 */
export function normalizeMediaRecord(
  body: unknown,
  requestedId: string,
  problems: ProblemReporter = silentProblems,
  secrets: Secrets = [],
): MediaRecord {
  if (!isRecord(body)) problems.wrongType('media.record', 'an object', body);
  const record: JsonObject = isRecord(body) ? body : {};
  const id = record.id;
  const source = record.output !== undefined && record.output !== null ? record.output : record.result;
  const outputs = collectMediaOutputs(source);
  const omitted = Math.max(0, outputs.length - MAX_MEDIA_OUTPUTS);
  if (omitted)
    problems.unknown(
      'media.outputs',
      `${outputs.length} results, more than the ${MAX_MEDIA_OUTPUTS} kept; the rest were left out`,
    );
  const status = normalizeMediaStatus(record.status, problems);
  const word = typeof record.status === 'string' ? record.status.trim().toLowerCase() : '';
  const given = mediaErrorText(record.error, secrets);
  // A cancellation or an expiry says so, with the gateway's own reason after it when it gave one.
  const reason = status === 'failed' ? FAILURE_REASONS.get(word) : undefined;
  const error = reason ? (given ? `${reason} ${given}` : reason) : given;
  const usage = isRecord(record.usage) ? record.usage : undefined;
  const cost =
    (usage && readNumber(usage, 'cost', 'media.usage', problems, { min: 0, numericString: true })) ??
    readNumber(record, 'cost', 'media', problems, { min: 0, numericString: true });
  return {
    id: (typeof id === 'string' && id !== '') || isFiniteNumber(id) ? String(id) : requestedId,
    ...(status !== undefined ? { status } : {}),
    outputs: outputs
      .slice(0, MAX_MEDIA_OUTPUTS)
      .map((output) =>
        output.kind === 'text' ? { kind: 'text', text: redact(output.text, secrets) } : output,
      ),
    ...(error !== undefined ? { error } : {}),
    ...(cost !== undefined ? { cost } : {}),
    ...(omitted ? { omittedOutputs: omitted } : {}),
  };
}

/** The longest media job id kept: the card, gallery and drag protocols take ids up to 500. */
export const MAX_MEDIA_ID_CHARS = 500;

export function normalizeMediaStarted(
  body: unknown,
  problems: ProblemReporter = silentProblems,
): MediaStarted {
  const record = isRecord(body) ? body : {};
  const id = record.id;
  if ((typeof id !== 'string' || id === '') && !isFiniteNumber(id)) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: 'The gateway accepted the media request but sent no job id.',
    });
  }
  // Any id is kept (it names the job to the gateway), but not one that would make every status
  // request and the jobs file megabytes long.
  if (typeof id === 'string' && id.length > MAX_MEDIA_ID_CHARS) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: `The gateway accepted the media request but sent a job id of ${id.length} characters (at most ${MAX_MEDIA_ID_CHARS} are kept).`,
    });
  }
  const started: MediaStarted = { id: typeof id === 'number' ? String(id) : id };
  const status = normalizeMediaStatus(record.status, problems);
  if (status !== undefined) started.status = status;
  return started;
}

/**
 * `error` may be a string or `{message, code}`; anything else is shown as JSON. Secrets are
 * redacted from the whole text first: cutting first could leave half a key behind.
 */
export function mediaErrorText(error: unknown, secrets: Secrets = []): string | undefined {
  if (error === undefined || error === null || error === '') return undefined;
  const shown = (text: string): string => excerpt(redact(text, secrets), 1000);
  if (typeof error === 'string') return shown(error);
  if (isRecord(error)) {
    const message = stringField(error, 'message', 'detail', 'error', 'reason');
    const code = error.code;
    const codeText = typeof code === 'string' || typeof code === 'number' ? ` (${code})` : '';
    if (message) return shown(`${message}${codeText}`);
    return shown(safeJson(error));
  }
  return typeof error === 'number' || typeof error === 'boolean' ? String(error) : shown(safeJson(error));
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
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
  for (const [extension, mime] of MIME_BY_EXTENSION) if (mime === type) return extension;
  return 'bin';
}

export function mimeFromUrl(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return extension ? MIME_BY_EXTENSION.get(extension) : undefined;
}
