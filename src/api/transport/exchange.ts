/**
 * What a transport shares, whatever carries the bytes (the host's `fetch` today; a test's own):
 * the request and settings types, the connect + headers deadline, the idle limit while reading the
 * body, the byte and time caps, the caller's AbortSignal, the request log, and the one mapping from
 * a failure to a GatewayError. Platform-neutral: no Node built-ins, no Node types.
 */
import { GatewayError } from '../errors';
import { redactSecret } from '../redact';
import type { AuthHeaderForm, ClientOptions, ProxyOptions, RequestLogEntry } from '../types';

/** Response headers by lower-case name, as the transport gives them. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface TransportSettings {
  timeoutMs: number;
  streamIdleTimeoutMs: number;
  /** How the user changes each limit, named when one is hit (see ClientOptions.limitHints). */
  limitHints?: ClientOptions['limitHints'];
  proxy?: ProxyOptions;
  userAgent: string;
  log?: (entry: RequestLogEntry) => void;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  url: URL;
  /** Sent as the auth form says (Bearer by default); omitted for hosts other than the gateway. */
  apiKey?: string;
  authHeader?: AuthHeaderForm;
  /** Extra headers (checked names, lower-cased here); the client's own headers win. */
  extraHeaders?: Readonly<Record<string, string>>;
  body?: unknown;
  accept: string;
  signal?: AbortSignal;
  attempt: number;
}

/** One way of sending requests: what the client needs of a transport. */
export interface Transport {
  /** Sends the request and resolves once response headers arrived (any status). */
  open(call: HttpCall): Promise<HttpExchange>;
  /** Releases pooled connections; a later call opens new ones. */
  close(): Promise<void>;
}

export type TransportFactory = (settings: TransportSettings) => Transport;

/** What the retry logic needs to know about a failed attempt. */
export interface AttemptFacts {
  /** No response status had arrived. */
  beforeResponse: boolean;
  /** The connection was never established, so the gateway cannot have seen the request. */
  neverSent: boolean;
}

const factsByError = new WeakMap<GatewayError, AttemptFacts>();

export function attemptFacts(error: GatewayError): AttemptFacts | undefined {
  return factsByError.get(error);
}

function noteFacts(error: GatewayError, facts: AttemptFacts): GatewayError {
  factsByError.set(error, facts);
  return error;
}

/** Errors raised while connecting, before a single byte of the request went out. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export type StopReason = 'caller' | 'deadline' | 'idle' | 'too-large' | 'too-long';

/** Of an error response's body, this much is kept (it only feeds a message). */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** A cap on what one exchange may bring, and whether a setting (named in the error) sets it. */
export interface BodyLimit {
  maxBytes: number;
  /** The total time from the request on; none when absent. */
  maxMs?: number;
  /** The byte cap comes from a setting (otherwise it is fixed, e.g. for JSON answers). */
  bytesFromSetting: boolean;
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * The request headers: the extra ones (lower-cased) first, then the client's own, which win. The
 * user agent only where `userAgent` is given (browsers do not let a page set it).
 */
export function requestHeaders(call: HttpCall, userAgent: string | undefined): Record<string, string> {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(call.extraHeaders ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  headers.accept = call.accept;
  if (userAgent !== undefined) headers['user-agent'] = userAgent;
  if (call.apiKey && call.authHeader === 'api-key') headers['api-key'] = call.apiKey;
  else if (call.apiKey && call.authHeader !== 'none') headers.authorization = `Bearer ${call.apiKey}`;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

/** The request body as sent: JSON, or none. */
export function requestBody(call: HttpCall): string | undefined {
  return call.body === undefined ? undefined : JSON.stringify(call.body);
}

/** The pieces joined into one array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/**
 * A request and, once `send` resolved, its response. Logged once, when finished. A transport
 * supplies the sending, the reading of one piece of the body, and the letting go of the
 * connection; the limits, the deadline and the errors are the same for all.
 */
export abstract class HttpExchange {
  status = 0;
  headers: ResponseHeaders = {};
  protected readonly controller = new AbortController();
  protected stoppedBy: StopReason | undefined;
  private readonly startedAt = performance.now();
  private finished = false;
  private readonly onCallerAbort = (): void => this.stop('caller');
  private bytesRead = 0;
  private limit: BodyLimit | undefined;
  private limitTimer: Timer | undefined;
  /** Said once in this exchange's log entry (e.g. that a setting does not apply here). */
  protected note: string | undefined;

  constructor(
    protected readonly call: HttpCall,
    protected readonly settings: TransportSettings,
  ) {
    call.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Sends the request and waits for the response headers (within the deadline). */
  protected async sendWithin(request: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const deadline = setTimeout(() => this.stop('deadline'), this.settings.timeoutMs);
    try {
      await untilAborted(request(this.controller.signal), this.controller.signal);
    } catch (error) {
      const failure = this.toError(error, true);
      this.finish(failure);
      throw failure;
    } finally {
      clearTimeout(deadline);
    }
    if (this.stoppedBy) {
      // Aborted in the instant between headers and here.
      const failure = this.toError(new Error('stopped'), false);
      this.finish(failure);
      throw failure;
    }
  }

  /** The next piece of the body; done at its end. Only called after a successful send. */
  protected abstract readPiece(): Promise<IteratorResult<Uint8Array>>;

  /** Whether a body is there to read at all. */
  protected abstract get hasBody(): boolean;

  /** Lets go of the connection when the body was not read to its end (idempotent). */
  protected abstract release(): void;

  /**
   * Caps what the body may bring in total: bytes, and time counted from the request. Hitting a cap
   * stops the exchange with an error that names the limit (and the setting, if one sets it).
   */
  setLimit(limit: BodyLimit): void {
    this.limit = limit;
    clearTimeout(this.limitTimer);
    this.limitTimer = undefined;
    if (limit.maxMs !== undefined && Number.isFinite(limit.maxMs)) {
      const left = Math.max(0, limit.maxMs - (performance.now() - this.startedAt));
      this.limitTimer = setTimeout(() => this.stop('too-long'), left);
    }
  }

  /** Gives the exchange up because no real event came for the idle limit (see ActivityWatch). */
  giveUpIdle(): void {
    this.stop('idle');
  }

  /** The error for a body that is larger than the cap, e.g. by its Content-Length. */
  tooLarge(): GatewayError {
    this.stoppedBy ??= 'too-large';
    return this.toError(new Error('too large'), false);
  }

  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  }

  /**
   * The body as it arrives. Waiting longer than the idle limit for the next piece ends it with a
   * 'timeout' error; the caller's time between pieces does not count.
   */
  async *chunks(): AsyncGenerator<Uint8Array> {
    if (!this.hasBody) return;
    const idle = new IdleWatch(this.settings.streamIdleTimeoutMs, () => this.stop('idle'));
    try {
      for (;;) {
        idle.startWaiting();
        let step: IteratorResult<Uint8Array>;
        try {
          step = await this.readPiece();
        } catch (error) {
          throw this.toError(error, false);
        } finally {
          idle.stopWaiting();
        }
        if (step.done) return;
        if (this.stoppedBy) throw this.toError(new Error('stopped'), false);
        this.bytesRead += step.value.length;
        if (this.limit && this.bytesRead > this.limit.maxBytes) {
          this.stop('too-large');
          throw this.toError(new Error('too large'), false);
        }
        yield step.value;
      }
    } finally {
      idle.dispose();
      this.release();
    }
  }

  /**
   * The whole body as text. `keep` bytes at most are kept (the rest is dropped with the
   * connection); a cap set with `setLimit` throws when passed.
   */
  async text(keep = Number.POSITIVE_INFINITY): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.chunks()) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= keep) break;
    }
    const all = concatBytes(parts);
    return new TextDecoder('utf-8').decode(size > keep ? all.subarray(0, keep) : all);
  }

  /** The body of an error response, bounded so a huge page cannot exhaust memory. */
  errorText(): Promise<string> {
    return this.text(ERROR_BODY_LIMIT);
  }

  /** Logs the exchange (once) and lets go of the connection if the body was not read to the end. */
  finish(error?: GatewayError): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.limitTimer);
    this.release();
    this.call.signal?.removeEventListener('abort', this.onCallerAbort);
    const entry: RequestLogEntry = {
      method: this.call.method,
      path: this.call.url.pathname,
      status: this.status || undefined,
      durationMs: Math.round(performance.now() - this.startedAt),
      attempt: this.call.attempt,
      error: error ? redactSecret(error.message, this.call.apiKey) : undefined,
    };
    if (this.note) entry.note = this.note;
    this.settings.log?.(entry);
  }

  protected stop(reason: StopReason): void {
    if (this.stoppedBy || this.finished) return;
    this.stoppedBy = reason;
    // Both transports close the connection of an aborted request, also while its body is read.
    this.controller.abort();
  }

  /** The GatewayError for a failure, with what the retry logic needs to know about it. */
  protected toError(error: unknown, beforeResponse: boolean): GatewayError {
    const failure = describeFailure(error, this.stoppedBy, this.call.url, this.settings, this.limit);
    return noteFacts(failure, {
      beforeResponse,
      neverSent: beforeResponse && NOT_SENT_CODES.has(errorCode(error) ?? ''),
    });
  }

  /** A failure the transport describes itself (it knows more than the shared mapping). */
  protected ownError(failure: GatewayError, facts: AttemptFacts): GatewayError {
    return noteFacts(failure, facts);
  }
}

/**
 * `work`, or its failure as soon as `signal` aborts, whichever comes first. A host's fetch may not
 * heed its signal at once: VS Code's first resolves the proxy (a PAC script, the system's settings)
 * and loads the system's certificates, and passes the signal on only then; the deadline and the
 * caller's cancel must hold meanwhile.
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new Error('stopped'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Fires `onIdle` when one wait lasts `limitMs`; a single timer, re-armed lazily. A wait starts
 * with `startWaiting` and ends with `stopWaiting`; what happens between two waits (the caller's
 * own time) does not count. Calling `startWaiting` again without `stopWaiting` does not restart
 * the clock, so activity that is not real progress (keep-alives) can simply be left unreported.
 */
export class IdleWatch {
  private waitingSince = -1;
  private timer: Timer | undefined;

  constructor(
    private readonly limitMs: number,
    private readonly onIdle: () => void,
  ) {}

  startWaiting(): void {
    if (this.waitingSince < 0) this.waitingSince = performance.now();
    if (!this.timer) this.arm(this.limitMs);
  }

  stopWaiting(): void {
    this.waitingSince = -1;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
  }

  private check(): void {
    this.timer = undefined;
    if (this.waitingSince < 0) return;
    const left = this.limitMs - (performance.now() - this.waitingSince);
    if (left <= 0) this.onIdle();
    else this.arm(left);
  }
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Math.round(mb * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

function minutes(ms: number): string {
  const min = ms / 60_000;
  return min >= 1 ? `${Math.round(min * 10) / 10} min` : `${Math.round(ms / 100) / 10} s`;
}

export function cancelled(): GatewayError {
  return new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' });
}

/** The system or library code of a failure (ECONNRESET, UND_ERR_SOCKET, ...), from it or its causes. */
export function errorCode(error: unknown): string | undefined {
  const codes: string[] = [];
  let current: unknown = error;
  // Node's fetch (undici inside) wraps socket errors; the code may sit on a cause.
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes.find((code) => code.startsWith('E')) ?? codes[0];
}

function describeFailure(
  error: unknown,
  stoppedBy: StopReason | undefined,
  url: URL,
  settings: TransportSettings,
  limit: BodyLimit | undefined,
): GatewayError {
  if (GatewayError.is(error)) return error;
  const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
  const hints = settings.limitHints ?? {};
  const raise = (hint: string | undefined): string =>
    hint ? ` To allow more, raise the setting "${hint}".` : '';
  if (stoppedBy === 'too-large' && limit) {
    return new GatewayError({
      kind: 'invalid_response',
      message: `The answer from ${url.host} was larger than the limit of ${megabytes(limit.maxBytes)}, so it was stopped.${
        limit.bytesFromSetting ? raise(hints.maxResponseBytes) : ''
      }`,
      cause: error,
    });
  }
  if (stoppedBy === 'too-long' && limit?.maxMs !== undefined) {
    return new GatewayError({
      kind: 'timeout',
      message: `The answer from ${url.host} took longer than the limit of ${minutes(limit.maxMs)}, so it was stopped.${raise(
        hints.maxStreamMs,
      )}`,
      cause: error,
    });
  }
  if (stoppedBy === 'caller')
    return new GatewayError({ kind: 'aborted', message: 'The request was cancelled.', cause: error });
  if (stoppedBy === 'deadline') {
    return new GatewayError({
      kind: 'timeout',
      message: `The gateway at ${url.host} did not answer within ${seconds(settings.timeoutMs)}. Check your connection or raise the request timeout.`,
      cause: error,
    });
  }
  if (stoppedBy === 'idle') {
    return new GatewayError({
      kind: 'timeout',
      message: `The gateway's reply stayed silent for ${seconds(settings.streamIdleTimeoutMs)} (keep-alive messages do not count), so it was given up. The model may be overloaded; try again.${
        hints.streamIdleTimeoutMs ? ` The limit is the setting "${hints.streamIdleTimeoutMs}".` : ''
      }`,
      cause: error,
    });
  }
  const code = errorCode(error);
  const host = url.host;
  let message: string;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new GatewayError({
      kind: 'timeout',
      message: `Connecting to the gateway at ${host} timed out.`,
      cause: error,
    });
  } else if (code === 'ECONNREFUSED') {
    message = `Could not connect to the gateway at ${host}: the connection was refused. Check the base URL and that the gateway is running.`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    message = `Could not find the gateway host ${url.hostname}. Check the base URL and your network or proxy settings.`;
  } else if (code && /CERT|SELF_SIGNED|TLS|SSL/.test(code)) {
    message = `The TLS certificate of ${host} was not accepted (${code}). If a proxy on your network inspects traffic, add its certificate to the system's trusted certificates, which the editor reads.`;
  } else if (
    code === 'UND_ERR_SOCKET' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'UND_ERR_CLOSED'
  ) {
    message = `The connection to the gateway at ${host} was dropped${code === 'UND_ERR_SOCKET' ? '' : ` (${code})`}.`;
  } else {
    const detail = error instanceof Error ? error.message : String(error);
    message = `Network error talking to the gateway at ${host}: ${detail}${code ? ` (${code})` : ''}.`;
  }
  return new GatewayError({ kind: 'network', message, cause: error });
}
