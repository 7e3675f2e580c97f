/**
 * Media job answers → MediaRecord. Gateways and providers disagree on shapes, so this accepts
 * `output` or `result` holding a URL, a data URI, text, `{url}`, `{b64_json}`, nested `{images}` /
 * `{data}` lists, or arrays of any of these, and never throws on an unexpected one.
 */
import { GatewayError } from './errors';
import { readNumber } from './fields';
import { isRecord, stringField } from './json';
import type { JsonObject } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import { redact, redactExcerpt } from './redact';
import type { Secrets } from './redact';
import type { MediaOutput, MediaRecord, MediaRequest, MediaRoute, MediaStarted, MediaStatus } from './types';
import { bytesToBase64, utf8Bytes } from './base64';

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
 * A gateway's status words → ours, compared without case (fal and Runway shout: `IN_QUEUE`,
 * `SUCCEEDED`). A Map, never an object: status text from outside must not be used as an object
 * key (`constructor`, `__proto__`, `toString` would find the prototype's).
 */
const STATUS_ALIASES: ReadonlyMap<string, MediaStatus> = new Map<string, MediaStatus>([
  ['queued', 'queued'],
  ['pending', 'queued'],
  ['waiting', 'queued'],
  ['submitted', 'queued'],
  ['created', 'queued'],
  ['starting', 'queued'],
  ['in_queue', 'queued'],
  ['throttled', 'queued'],
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
  ['aborted', 'failed'],
  ['rejected', 'failed'],
  ['timed_out', 'failed'],
  ['timeout', 'failed'],
  ['cancelled', 'cancelled'],
  ['canceled', 'cancelled'],
  ['expired', 'expired'],
]);

/** Failed statuses that say why on their own; the reason is kept when the gateway gives no error. */
const FAILURE_REASONS: ReadonlyMap<string, string> = new Map([
  ['aborted', 'The job was aborted at the gateway.'],
  ['rejected', 'The gateway rejected the job.'],
  ['timed_out', 'The job timed out at the gateway.'],
  ['timeout', 'The job timed out at the gateway.'],
]);

/** A failure without any reason from the gateway still says what happened. */
export const NO_FAILURE_REASON = 'The job failed at the gateway, which gave no reason.';
/** A job the gateway called complete without a single result. */
export const NO_RESULT_REASON = 'The gateway reported the job as complete but sent no result.';

/** The longest URL kept from a media record (a polling URL, a result link). */
export const MAX_MEDIA_URL_CHARS = 4096;

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
  'video',
  'image',
  'audio',
  'artifacts',
];

/**
 * Fields that hold result links (never text), tried in this order when neither `output` nor
 * `result` brought any: OpenRouter's `unsigned_urls`, `result_urls` and its camel-cased twin,
 * a single `videoUrl` or `video_url`, and `urls`.
 */
const URL_FIELDS = ['unsigned_urls', 'result_urls', 'resultUrls', 'videoUrl', 'video_url', 'urls'];
/**
 * Replicate's `urls` object links to its own API (the record, cancelling, streaming), not to
 * results; those are never taken for one.
 */
const API_LINK_KEYS: ReadonlySet<string> = new Set(['get', 'cancel', 'stream', 'web', 'self']);
/** Where a job's status is asked for, by the names gateways use (Replicate: `urls.get`). */
const POLLING_URL_FIELDS = ['polling_url', 'pollingUrl', 'status_url', 'statusUrl'];
/** The job id, by the names gateways use (fal: `request_id`; others a task or job id). */
const ID_FIELDS = ['id', 'request_id', 'requestId', 'task_id', 'taskId', 'job_id', 'jobId'];

/** What a media record's links are resolved against. */
export interface MediaRecordContext {
  /** The client's base URL (it ends in the API prefix): relative links resolve against it. */
  baseUrl?: string;
  /** The URL the record came from: an OpenAI-style video's file is at `<it>/content`. */
  statusUrl?: string;
}

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
 *
 * A final status always comes out whole: completed with at least one result (else it reads as a
 * failure that says so), failed with a reason, cancelled, or expired.
 */
export function normalizeMediaRecord(
  body: unknown,
  requestedId: string,
  problems: ProblemReporter = silentProblems,
  secrets: Secrets = [],
  context: MediaRecordContext = {},
): MediaRecord {
  if (!isRecord(body)) problems.wrongType('media.record', 'an object', body);
  const record: JsonObject = isRecord(body) ? body : {};
  const outputs = recordOutputs(record, context);
  const omitted = Math.max(0, outputs.length - MAX_MEDIA_OUTPUTS);
  if (omitted)
    problems.unknown(
      'media.outputs',
      `${outputs.length} results, more than the ${MAX_MEDIA_OUTPUTS} kept; the rest were left out`,
    );
  let status = normalizeMediaStatus(record.status, problems);
  const word = typeof record.status === 'string' ? record.status.trim().toLowerCase() : '';
  let error = failureText(record, secrets);
  if (status === 'failed') {
    // An abort, a rejection or a timeout says so, with the gateway's own reason after it.
    const reason = FAILURE_REASONS.get(word);
    error = reason ? (error ? `${reason} ${error}` : reason) : (error ?? NO_FAILURE_REASON);
  } else if (status === 'completed' && outputs.length === 0) {
    status = 'failed';
    error = error ? `${NO_RESULT_REASON} ${error}` : NO_RESULT_REASON;
  }
  const usage = isRecord(record.usage) ? record.usage : undefined;
  const cost =
    (usage && readNumber(usage, 'cost', 'media.usage', problems, { min: 0, numericString: true })) ??
    readNumber(record, 'cost', 'media', problems, { min: 0, numericString: true });
  const running = status === undefined || status === 'queued' || status === 'processing';
  const progress = running ? readProgress(record.progress, problems) : undefined;
  const queuePosition = running
    ? readNumber(record, 'queue_position', 'media', problems, { min: 0, integer: true })
    : undefined;
  return {
    id: jobId(record) ?? requestedId,
    ...(status !== undefined ? { status } : {}),
    outputs: outputs
      .slice(0, MAX_MEDIA_OUTPUTS)
      .map((output) =>
        output.kind === 'text' ? { kind: 'text', text: redact(output.text, secrets) } : output,
      ),
    ...(error !== undefined ? { error } : {}),
    ...(cost !== undefined ? { cost } : {}),
    ...(omitted ? { omittedOutputs: omitted } : {}),
    ...(progress !== undefined ? { progress } : {}),
    ...(queuePosition !== undefined ? { queuePosition } : {}),
  };
}

/**
 * The results wherever the record keeps them: `output` (any JSON), `result`, then the link
 * fields (URL_FIELDS), then result lists at the top (NESTED_LISTS); for an OpenAI-style video
 * (`object: "video"`) that names none, its file at `<status URL>/content`.
 */
function recordOutputs(record: JsonObject, context: MediaRecordContext): MediaOutput[] {
  for (const name of ['output', 'result']) {
    const outputs = collectMediaOutputs(record[name], 0, context.baseUrl);
    if (outputs.length > 0) return outputs;
  }
  for (const name of URL_FIELDS) {
    const outputs = collectLinks(record[name], context.baseUrl, name === 'urls');
    if (outputs.length > 0) return outputs;
  }
  // A provider's own result body at the top (fal: `images[]`, `video: {url}`; OpenAI: `data[]`).
  for (const name of NESTED_LISTS) {
    const value = record[name];
    if (typeof value === 'string') continue;
    const outputs = collectMediaOutputs(value, 1, context.baseUrl);
    if (outputs.length > 0) return outputs;
  }
  const object = typeof record.object === 'string' ? record.object.toLowerCase() : '';
  if (object === 'video' && context.statusUrl && normalizeMediaStatus(record.status) === 'completed') {
    const content = gatewayUrl(`${context.statusUrl.replace(/[?#].*$/, '').replace(/\/+$/, '')}/content`);
    if (content) return [{ kind: 'url', url: content, mimeType: 'video/mp4' }];
  }
  return [];
}

/**
 * Links only (a list, one string, or an object of them): what URL_FIELDS hold. Lists nest at most
 * once (`[[a, b]]`): a gateway's list nested 200,000 deep overflowed the stack, and the job,
 * read as an invalid answer each time, was asked again without end.
 */
function collectLinks(
  value: unknown,
  baseUrl: string | undefined,
  skipApiLinks: boolean,
  depth = 0,
): MediaOutput[] {
  if (typeof value === 'string') return linkOutput(value, baseUrl);
  if (depth >= MAX_LINK_DEPTH) return [];
  if (Array.isArray(value))
    return value
      .slice(0, MAX_MEDIA_OUTPUTS * 4)
      .flatMap((item) => collectLinks(item, baseUrl, false, depth + 1));
  if (!isRecord(value)) return [];
  if (stringField(value, 'url') !== undefined) return collectMediaOutputs(value, 1, baseUrl);
  return Object.entries(value)
    .filter(([key, link]) => typeof link === 'string' && !(skipApiLinks && API_LINK_KEYS.has(key)))
    .flatMap(([, link]) => linkOutput(link as string, baseUrl));
}

const MAX_LINK_DEPTH = 2;

/** One link, resolved against the base URL; nothing when it is not an http(s) URL. */
function linkOutput(text: string, baseUrl: string | undefined): MediaOutput[] {
  if (text.trim().startsWith('data:')) return outputFromString(text, baseUrl);
  const url = gatewayUrl(text, baseUrl);
  if (!url) return [];
  const mimeType = mimeFromUrl(url);
  return [mimeType ? { kind: 'url', url, mimeType } : { kind: 'url', url }];
}

/**
 * An http(s) URL from a media record as an absolute href: relative ones are resolved against the
 * base URL (`/api/v1/videos/x` against its origin, `v1/videos/x` below its API prefix). Undefined
 * for anything else: another scheme, credentials in the URL, white space, or a monster length.
 */
export function gatewayUrl(text: string, baseUrl?: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > MAX_MEDIA_URL_CHARS || /\s/.test(trimmed)) return undefined;
  let url: URL;
  try {
    url = baseUrl ? new URL(trimmed, baseUrl.trim().replace(/\/*$/, '/')) : new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.href.length > MAX_MEDIA_URL_CHARS) return undefined;
  return url.href;
}

/** `progress` as a fraction: 0–1 as it is, 0–100 (or `"45%"`) divided by 100, capped at 1. */
function readProgress(value: unknown, problems: ProblemReporter): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value.trim() : undefined;
  const number =
    typeof value === 'number'
      ? value
      : text && /^[-+]?(\d+\.?\d*|\.\d+)%?$/.test(text)
        ? Number(text.replace('%', ''))
        : NaN;
  if (!Number.isFinite(number) || number < 0) {
    problems.wrongType('media.progress', 'a number from 0 to 1 or 0 to 100', value);
    return undefined;
  }
  const fraction = number > 1 || text?.endsWith('%') ? number / 100 : number;
  return Math.min(1, fraction);
}

/** Why the job failed, from `error` (a string or `{message, code}`), Runway's `failure` and `failureCode`. */
function failureText(record: JsonObject, secrets: Secrets): string | undefined {
  const given = mediaErrorText(record.error, secrets) ?? mediaErrorText(record.failure, secrets);
  const code = stringField(record, 'failureCode', 'failure_code');
  if (!code) return given;
  const shownCode = redactExcerpt(code, 100, secrets);
  return given ? (given.includes(shownCode) ? given : `${given} (${shownCode})`) : shownCode;
}

function jobId(record: JsonObject): string | undefined {
  for (const name of ID_FIELDS) {
    const id = record[name];
    if (typeof id === 'string' && id !== '') return id;
    if (isFiniteNumber(id)) return String(id);
  }
  return undefined;
}

/** The longest media job id kept: the card, gallery and drag protocols take ids up to 500. */
export const MAX_MEDIA_ID_CHARS = 500;

/**
 * The answer of `POST /v1/media` (200 or 202): the job's id, its status if it said one that is
 * not final yet (a final one is read whole at the first status check, results and all), and the
 * URL to poll when it named one. Throws when there is no usable id.
 */
export function normalizeMediaStarted(
  body: unknown,
  problems: ProblemReporter = silentProblems,
  context: MediaRecordContext = {},
): MediaStarted {
  const record = isRecord(body) ? body : {};
  const id = jobId(record);
  if (id === undefined) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: 'The gateway accepted the media request but sent no job id.',
    });
  }
  // Any id is kept (it names the job to the gateway), but not one that would make every status
  // request and the jobs file megabytes long.
  if (id.length > MAX_MEDIA_ID_CHARS) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: `The gateway accepted the media request but sent a job id of ${id.length} characters (at most ${MAX_MEDIA_ID_CHARS} are kept).`,
    });
  }
  const started: MediaStarted = { id };
  const status = normalizeMediaStatus(record.status, problems);
  if (status === 'queued' || status === 'processing') started.status = status;
  const pollingUrl = mediaPollingUrl(record, context.baseUrl, problems);
  if (pollingUrl) started.pollingUrl = pollingUrl;
  return started;
}

/** The record's polling URL (POLLING_URL_FIELDS, or Replicate's `urls.get`), absolute, or undefined. */
export function mediaPollingUrl(
  record: JsonObject,
  baseUrl: string | undefined,
  problems: ProblemReporter = silentProblems,
): string | undefined {
  const urls = isRecord(record.urls) ? record.urls : undefined;
  const given = [...POLLING_URL_FIELDS.map((name) => record[name]), urls?.get].find(
    (value) => value !== undefined && value !== null,
  );
  if (given === undefined) return undefined;
  const url = typeof given === 'string' ? gatewayUrl(given, baseUrl) : undefined;
  if (!url) problems.wrongType('media.polling_url', 'an http(s) URL', given);
  return url;
}

/**
 * `error` may be a string or `{message, code}`; anything else is shown as JSON. Secrets are
 * redacted before the text is cut (with a margin, see `redactExcerpt`): cutting first could leave
 * half a key behind.
 */
export function mediaErrorText(error: unknown, secrets: Secrets = []): string | undefined {
  if (error === undefined || error === null || error === '') return undefined;
  // Blank text (`" "`) is no reason: undefined, so a failure still gets one of its own.
  const shown = (text: string): string | undefined => redactExcerpt(text, 1000, secrets) || undefined;
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

/**
 * Results in any JSON a provider writes (see the file's comment). With a `baseUrl`, links given
 * relative (`/api/v1/files/x.png`, or a `url` field without a scheme) resolve against it.
 */
export function collectMediaOutputs(value: unknown, depth = 0, baseUrl?: string): MediaOutput[] {
  if (depth > 5 || value === undefined || value === null) return [];
  if (typeof value === 'string') return outputFromString(value, baseUrl);
  if (Array.isArray(value)) return value.flatMap((item) => collectMediaOutputs(item, depth + 1, baseUrl));
  if (!isRecord(value)) return [];
  return outputsFromObject(value, depth, baseUrl);
}

function outputsFromObject(object: JsonObject, depth: number, baseUrl: string | undefined): MediaOutput[] {
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
    // A `url` field is a link even without a scheme; one that is no URL at all reads as text.
    const link = baseUrl && !/^\s*data:/i.test(url) ? linkOutput(url, baseUrl) : [];
    return (link.length > 0 ? link : outputFromString(url, baseUrl)).map((output) =>
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
      return collectMediaOutputs(object[name], depth + 1, baseUrl);
    }
  }
  return [];
}

/** A data URI, an http(s) URL, a root-relative path (`/…`, with a base URL), or else text. */
function outputFromString(value: string, baseUrl?: string): MediaOutput[] {
  const text = value.trim();
  if (text.startsWith('data:')) {
    const data = parseDataUri(text);
    if (data) return [data];
  }
  if (/^https?:\/\/\S+$/i.test(text) || (baseUrl && /^\/(?!\/)\S*$/.test(text))) {
    const link = linkOutput(text, baseUrl);
    if (link.length > 0) return link;
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
  return { kind: 'data', data: bytesToBase64(utf8Bytes(decoded)), mimeType };
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
  if (extension) return MIME_BY_EXTENSION.get(extension);
  // OpenRouter's video file (`/videos/{id}/content`, as its `unsigned_urls` name it) is an MP4.
  return /\/videos\/[^/]+\/content$/.test(pathname) ? 'video/mp4' : undefined;
}

/**
 * Why the parameters cannot go to this model, by its catalog entry (a value its list does not
 * offer), or undefined. Values compare as text (`"4"` is the duration 4). Parameters the entry
 * says nothing about are the gateway's to judge.
 */
export function checkMediaParameters(
  info: { id: string; options?: Readonly<Record<string, readonly (string | number)[]>> } | undefined,
  parameters: Record<string, unknown> | undefined,
): string | undefined {
  if (!info?.options || !parameters) return undefined;
  for (const [key, allowed] of Object.entries(info.options)) {
    if (!Object.hasOwn(parameters, key)) continue;
    const value = parameters[key];
    if (value === undefined || value === null) continue;
    const text =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : undefined;
    if (text === undefined || !allowed.some((option) => String(option) === text)) {
      const shown = text === undefined ? typeof value : JSON.stringify(text.slice(0, 40));
      return `${info.id} takes ${key} ${allowed.map(String).join(', ')}; not ${shown}.`;
    }
  }
  return undefined;
}

/** The model's parameters and their values, in one line: `aspect_ratio 1:1 | 16:9; duration 4 | 8`. */
export function describeMediaOptions(
  info: { options?: Readonly<Record<string, readonly (string | number)[]>> } | undefined,
): string {
  return Object.entries(info?.options ?? {})
    .map(([key, values]) => `${key} ${values.map(String).join(' | ')}`)
    .join('; ');
}

/** A new id for a job the gateway completed at once (it gives none of its own). */
export function syncJobId(route: MediaRoute, now: number, random: () => number = Math.random): string {
  const tail = Math.floor(random() * 36 ** 8)
    .toString(36)
    .padStart(8, '0');
  return `${route === 'chat-images' ? 'chat-img' : route === 'images' ? 'img' : 'imggen'}-${now.toString(36)}-${tail}`;
}
