/**
 * A non-2xx answer → one GatewayError whose message says what happened and what the user can do.
 * The gateway's own words are kept (they often name the real cause) but scrubbed of the key.
 */
import { GatewayError } from './errors';
import { excerpt, isRecord, objectField, stringField, tryParseJson } from './json';
import type { JsonObject } from './json';
import { describeErrorMetadata, parseErrorMetadata } from './errorMetadata';
import { redactSecret } from './redact';
import type { Secrets } from './redact';
import { parseRetryAfter } from './retry';
import type { ResponseHeaders } from './transport/exchange';

/** The gateway's own words in an error: its message, the upstream error, moderation's reasons. */
const MAX_GATEWAY_MESSAGE_CHARS = 700;

export type Operation =
  'chat' | 'media-start' | 'media-get' | 'download' | 'models' | 'credits' | 'generation' | 'sign-in';

export interface HttpErrorContext {
  operation: Operation;
  model?: string;
  mediaId?: string;
  /** The path asked for, named in a 404 (a doubled or wrong prefix shows there). */
  path?: string;
  /** The key (and proxy credentials): redacted from the gateway's words before they are cut. */
  secret: Secrets;
  /** The request went without a key (none is set, and the gateway is on this computer). */
  keyless?: boolean;
}

interface ErrorDetails {
  gatewayMessage?: string;
  provider?: string;
  code?: string | number;
  retryAfter?: number;
  /** The body says the balance is reserved by requests in flight (OpenRouter-style 402). */
  inFlight?: boolean;
}

export function httpError(
  status: number,
  headers: ResponseHeaders,
  bodyText: string,
  context: HttpErrorContext,
): GatewayError {
  const details = readErrorDetails(headers, bodyText, context.secret);
  // LiteLLM without a database answers a wrong key with 400 "No connected db.": a key problem.
  if (status === 400 && NO_DB.test(details.gatewayMessage ?? '')) status = 401;
  const lead = leadSentence(status, details, context);
  const said = details.gatewayMessage ? ` Gateway message: ${details.gatewayMessage}` : '';
  return new GatewayError({
    kind: 'http',
    status,
    message: redactSecret(`${lead}${said}`, context.secret),
    provider: details.provider,
    code: details.code,
    retryAfter: details.retryAfter,
    creditHeldInFlight: status === 402 && details.inFlight ? true : undefined,
  });
}

function leadSentence(status: number, details: ErrorDetails, context: HttpErrorContext): string {
  const { provider, retryAfter } = details;
  const model = context.model ? ` ${context.model}` : '';
  if (context.operation === 'download' && (status === 401 || status === 403)) {
    return `Access to the file was denied (${status}). Its link may have expired.`;
  }
  if (context.operation === 'sign-in' && status >= 400 && status < 500 && status !== 429) {
    return `The gateway did not accept the sign-in code (${status}). A code works once and for ten minutes; sign in again.`;
  }
  switch (status) {
    case 400:
      return `The gateway rejected the request as invalid (400)${details.gatewayMessage ? '.' : '; it gave no reason.'}`;
    case 401:
      return context.keyless
        ? "The gateway asks for an API key, and none is set (401). Set one with 'Gateway AI: Set API Key'."
        : "The gateway rejected the API key. Set a valid key with 'Gateway AI: Set API Key'.";
    case 402:
      return details.inFlight
        ? 'The gateway refused the request: the account has insufficient credits free (402), as the rest is held by requests still running. Wait for them to finish, add credits, or choose a cheaper model.'
        : "The gateway refused the request: the account has insufficient credits (402), as its credit has run out or is less than this request may cost. Add credits on the gateway's website, or choose a cheaper model.";
    case 403:
      return `The API key lacks the rights to use the model${model}${provider ? ` through provider ${provider}` : ' or its provider'} (403). Check the key's permissions or choose another model.`;
    case 404:
      if (context.operation === 'media-get') {
        return `The gateway has no media job with id "${context.mediaId ?? ''}" (404). It may have expired.`;
      }
      if (context.operation === 'download')
        return 'The file was not found at its URL (404). It may have expired.';
      if (context.model && mentionsModel(details.gatewayMessage, context.model))
        return `The gateway does not know the model${model} (404). Choose another model.`;
      return `The gateway has no endpoint at ${context.path ?? 'that path'} (404). Check the base URL setting: it is the address before /v1, or the one ending in /v1 (e.g. https://openrouter.ai/api or http://localhost:4000/v1).`;
    case 408:
      return 'The gateway timed out waiting for the request (408). Try again.';
    case 413:
      return 'The request is too large for the gateway (413). Shorten the conversation or the prompt.';
    case 429:
      return `Rate limit exceeded${provider ? ` at provider ${provider}` : ''} (429). ${
        retryAfter !== undefined ? `Try again in ${retryAfter} s.` : 'Try again in a moment.'
      }`;
  }
  if (status >= 500) {
    const who = provider
      ? `The upstream provider ${provider}`
      : status === 502
        ? 'The upstream provider'
        : 'The gateway';
    return `${who} failed (${status}). Try again later${provider ? ' or choose another provider' : ''}.`;
  }
  return `The gateway answered with HTTP ${status}.`;
}

/** LiteLLM's answer to a wrong key when it runs without a database. */
const NO_DB = /\bNo connected db\b/i;

/** Whether the gateway's words name the model (or say "model … not found"). */
function mentionsModel(message: string | undefined, model: string): boolean {
  if (!message) return false;
  return (
    message.includes(model) ||
    /\bmodel\b[^.]{0,80}\b(?:not found|does not exist|unknown|invalid)/i.test(message)
  );
}

/** How a gateway says a 402 is about credit held by running requests, not credit spent. */
const IN_FLIGHT = /in[-_ ]?flight|reserv(?:ed|ation)/i;

function readErrorDetails(headers: ResponseHeaders, bodyText: string, secret: Secrets): ErrorDetails {
  const parsed = tryParseJson(bodyText);
  const body: JsonObject | undefined = parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
  const error = objectField(body, 'error');
  const metadata = objectField(error, 'metadata') ?? objectField(body, 'metadata');
  const message =
    stringField(error, 'message') ??
    (typeof body?.error === 'string' ? body.error : undefined) ??
    stringField(body, 'message', 'detail') ??
    (body || looksLikeHtml(bodyText) ? undefined : bodyText.trim() || undefined);
  // The upstream error and moderation's reasons, each redacted and cut on its own.
  const details = parseErrorMetadata(metadata, secret);
  const said = message ? redactSecret(message, secret) : '';
  const combined = `${said}${describeErrorMetadata(details, said)}`.trim();
  const code = error?.code ?? body?.code;
  return {
    // Redacted before it is cut: a cut through the key would leave part of it behind.
    gatewayMessage: combined ? excerpt(combined, MAX_GATEWAY_MESSAGE_CHARS) : undefined,
    provider:
      details.provider ??
      stringField(body, 'provider') ??
      headerValue(headers, 'x-openrouter-provider') ??
      headerValue(headers, 'x-provider'),
    code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
    // A browser origin reads no Retry-After header unless the gateway exposes it: OpenRouter also
    // says it in the body, as `error.availability.retry_after`.
    retryAfter:
      parseRetryAfter(headers['retry-after']) ??
      retryAfterSeconds(objectField(error, 'availability')?.retry_after) ??
      retryAfterFromMetadata(metadata),
    inFlight: IN_FLIGHT.test(`${JSON.stringify(metadata ?? {})} ${message ?? ''}`),
  };
}

/** OpenRouter-style bodies may carry the limit's reset time instead of a Retry-After header. */
function retryAfterFromMetadata(metadata: JsonObject | undefined): number | undefined {
  if (!metadata) return undefined;
  for (const name of ['retry_after', 'retry_after_seconds', 'retryAfter']) {
    const seconds = retryAfterSeconds(metadata[name]);
    if (seconds !== undefined) return seconds;
  }
  const upstreamHeaders = objectField(metadata, 'headers');
  if (upstreamHeaders) {
    const lower = Object.fromEntries(
      Object.entries(upstreamHeaders).map(([key, value]) => [key.toLowerCase(), value]),
    );
    const retryAfter = lower['retry-after'];
    if (typeof retryAfter === 'string' || typeof retryAfter === 'number')
      return parseRetryAfter(String(retryAfter));
    // X-RateLimit-Reset is an epoch time in milliseconds.
    const reset = Number(lower['x-ratelimit-reset']);
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.ceil((reset - Date.now()) / 1000));
  }
  return undefined;
}

/** A pause longer than this (a day) is no real answer: the body is read as saying none. */
const MAX_BODY_RETRY_AFTER_SECONDS = 86_400;

/** Seconds, or a date with a year and a time (HTTP or ISO): not whatever `Date.parse` takes ("-3"). */
const BODY_RETRY_TEXT = /^\d+(?:\.\d+)?$|\d{4}.*\d{1,2}:\d{2}/;

/**
 * Whole seconds from a body's retry field: a number of seconds, or a string as Retry-After has it
 * (seconds or an HTTP date). Undefined for anything else, a negative or an absurd figure.
 */
export function retryAfterSeconds(value: unknown): number | undefined {
  const seconds =
    typeof value === 'number' && Number.isFinite(value) && value >= 0
      ? Math.max(0, Math.ceil(value))
      : typeof value === 'string' && value.length <= 64 && BODY_RETRY_TEXT.test(value.trim())
        ? parseRetryAfter(value)
        : undefined;
  return seconds !== undefined && seconds <= MAX_BODY_RETRY_AFTER_SECONDS ? seconds : undefined;
}

function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}

function looksLikeHtml(text: string): boolean {
  return /^\s*</.test(text);
}
