/**
 * The gateway client: chat (whole or streamed) and asynchronous media jobs. Creating it does no
 * I/O and loads nothing; the HTTP stack is set up by the first call.
 */
import { parseGeneration } from './chatChunks';
import {
  chatDeltasFromJson,
  chatDeltasFromSse,
  parseChatCompletion,
  parseChatReply,
  textChunkAsChat,
} from './chatStream';
import { dialectFromCatalog, dialectFromHeaders, parseLearnedDialect, resolveDialect } from './dialects';
import type { Dialect, GatewayEndpoints, LearnedDialect } from './dialects';
import { addressPlace, downloadRefusal, sendsKeyTo } from './downloadPolicy';
import { apiRoot, readApiKey, resolveEndpoint } from './endpoint';
import { GatewayError } from './errors';
import { IdleWatch, concatBytes } from './transport/exchange';
import type { BodyLimit, HttpExchange, Transport, TransportFactory } from './transport/exchange';
import { createTransport } from './transport/fetchTransport';
import { proxyEnvironment } from './transport/proxy';
import { httpError } from './httpErrors';
import type { HttpErrorContext } from './httpErrors';
import { tryParseJson } from './json';
import { gatewayUrl, normalizeMediaRecord, normalizeMediaStarted } from './media';
import {
  MEDIA_ROUTE_PATHS,
  checkMediaParameters,
  isSyncRoute,
  mediaRouteBody,
  normalizeSyncRecord,
  parseChatMediaModels,
  parseImageModels,
  parseVideoModels,
  syncJobId,
} from './mediaRoutes';
import type { MediaModelInfo, MediaRoute } from './mediaRoutes';
import {
  isKnownImageGenerationModel,
  parseKnownImageModels,
  parseModelInfoMediaModels,
} from './mediaModelSources';
import { Semaphore } from './limiter';
import { ProblemReporter } from './problems';
import { isSecretHeaderName, redact, redactError, urlCredentials } from './redact';
import type { Secrets } from './redact';
import { learnRefusal, refusedField, shapeRequest } from './requestShaper';
import type { ShapedPath } from './requestShaper';
import { realTiming, withRetries } from './retry';
import type { RetryRule, RetryTiming } from './retry';
import { readSseData } from './transport/sse';
import type {
  CallOptions,
  ChatCompletion,
  ChatDelta,
  ChatRequest,
  ClientOptions,
  CreditsDocument,
  DialectNotice,
  TextCompletionRequest,
  DownloadedFile,
  DownloadOptions,
  Generation,
  MediaRecord,
  MediaRequest,
  MediaStarted,
  MediaStatusOptions,
} from './types';
import { MAX_USD } from './types';

export interface GatewayClient {
  /** One whole reply (the request is sent without `stream`). */
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatCompletion>;
  /** The reply as it is written. Never retried once the gateway has started answering. */
  streamChat(request: ChatRequest, options?: CallOptions): AsyncIterable<ChatDelta>;
  /**
   * `POST /v1/completions`, streamed: a text completion (fill-in-the-middle when the request has a
   * `suffix`). Its `choices[].text` arrive as `content` deltas, with the same meta, finish and
   * usage deltas as a chat stream. Aborting the signal closes the connection.
   */
  streamCompletion(request: TextCompletionRequest, options?: CallOptions): AsyncIterable<ChatDelta>;
  /** Starts a media job. Never repeated automatically: a second request could start a second billed job. */
  startMedia(request: MediaRequest, options?: CallOptions): Promise<MediaStarted>;
  /**
   * The job's status: at its `pollingUrl` when it has one (the key goes along only when that is
   * on the gateway's origin), else `GET /v1/media/{id}`.
   */
  getMedia(id: string, options?: MediaStatusOptions): Promise<MediaRecord>;
  /**
   * The gateway's media models from its catalogs (`/v1/images/models`, `/v1/videos/models`,
   * `/v1/models?output_modalities=image,video,audio`), each with the route it is started on, its
   * kind, price and parameters. Catalogs the gateway lacks are skipped; never throws for them.
   * With `reuse`, a list read in the last half minute is answered without asking again.
   */
  listMediaModels(options?: CallOptions, reuse?: boolean): Promise<MediaModelInfo[]>;
  /** Fetches a media result by URL (the key is sent only if the URL is on the gateway's origin). */
  download(url: string, options?: DownloadOptions): Promise<DownloadedFile>;
  /**
   * `GET /v1/models`: the gateway's catalog as the JSON it sent (parsed by the catalog codec, the
   * one boundary for it). Throws a GatewayError for an error status or a body that is not JSON.
   */
  listModels(options?: CallOptions, query?: { outputModalities?: 'all' }): Promise<unknown>;
  /**
   * `GET /v1/models/{id}/endpoints`: the providers that serve one model, as the JSON sent (parsed
   * by the endpoints codec). Throws a GatewayError for an error status (404: no such endpoint).
   */
  listModelEndpoints(model: string, options?: CallOptions): Promise<unknown>;
  /**
   * The account's credit: `GET /v1/key`, else `GET /v1/credits` (OpenRouter-style). Resolves to
   * the JSON of the first that answers, or undefined when the gateway offers neither (404/405).
   */
  getCredits(options?: CallOptions): Promise<CreditsDocument | undefined>;
  /**
   * `GET /v1/generation?id=`: what a finished reply cost, by its id (the chunks' `id` or the
   * `X-Generation-Id` header). Undefined when the record holds nothing usable; throws a
   * GatewayError otherwise, a 404 included (the record often appears only a while after the reply).
   */
  getGeneration(id: string, options?: CallOptions): Promise<Generation | undefined>;
  /**
   * `POST /v1/auth/keys` (Sign in with OpenRouter): trades a sign-in code and its PKCE verifier
   * for a key, as the JSON sent (`{key, user_id}`, read by the sign-in codec). Sent without a key
   * and never repeated: a code works once.
   */
  exchangeAuthCode(code: string, codeVerifier: string, options?: CallOptions): Promise<unknown>;
  /**
   * `GET /v1/model/info` (LiteLLM): each model's `model_info` (`supports_function_calling`,
   * `supports_vision`, `mode`), as the JSON sent. Undefined, without a request, where the dialect
   * has no such catalog.
   */
  listModelInfo(options?: CallOptions): Promise<unknown>;
  /** The gateway's dialect now: the setting's, else what its host and answers gave away. */
  dialect(): Dialect;
  /** What was learned about the gateway from its answers (refused fields, models without tools). */
  learned(): LearnedDialect;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/** Seams for tests: a fake clock for the retry pauses, and the transport. */
export interface ClientInternals {
  timing?: RetryTiming;
  transport?: TransportFactory;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 180_000;
export const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_USER_AGENT = 'gateway-ai-vscode';

interface ExchangeSpec {
  method: 'GET' | 'POST';
  body?: unknown;
  accept: string;
  rule: RetryRule;
  error: Omit<HttpErrorContext, 'secret'>;
  /** 3xx answers are returned, not treated as errors. */
  followRedirects?: boolean;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 200 * 1024 * 1024;
export const DEFAULT_MAX_STREAM_MS = 30 * 60_000;
/** A whole JSON answer (a chat reply, a media record) larger than this is not a real one. */
export const MAX_JSON_BYTES = 8 * 1024 * 1024;
const MAX_REDIRECTS = 5;
/** Downloads of media results at once, per client. */
export const DEFAULT_MAX_CONCURRENT_DOWNLOADS = 4;
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];
/** A media catalog read longer ago than this is read again when it does not know a model. */
const MEDIA_CATALOG_REFRESH_MS = 30_000;

/** The 400 bodies of refused requests, for reading which field was refused. */
const REFUSAL_TEXT = new WeakMap<GatewayError, string>();

/**
 * What the client learned of its gateway's media routes (see mediaRoutes.ts). A client serves one
 * base URL, and a new one is made when it changes, so this is learned again for a new gateway.
 */
interface MediaRouteBook {
  /** Whether `POST /v1/media` exists: true once it started a job, false once it 404s beside catalogs. */
  mediaEndpoint?: boolean;
  /** The route each model was started on, or that its catalog entry names. */
  routes: Map<string, MediaRoute>;
  /** The last catalogs read, and when. */
  models?: Map<string, MediaModelInfo>;
  modelsAt?: number;
}

export function createGatewayClient(options: ClientOptions, internals: ClientInternals = {}): GatewayClient {
  return new HttpGatewayClient(
    options,
    internals.timing ?? realTiming,
    internals.transport ?? createTransport,
  );
}

class HttpGatewayClient implements GatewayClient {
  private transportInstance: Transport | undefined;
  private readonly problems: ProblemReporter;
  /** Proxy credentials: redacted from every error, like the key. */
  private readonly proxySecrets: string[];
  private readonly downloadSlots: Semaphore;
  private readonly mediaRoutes: MediaRouteBook = { routes: new Map() };
  /** Notices already given, by `kind field model`, so each is told once. */
  private readonly noticed = new Set<string>();
  /**
   * What was learned of the gateway (a client serves one base URL). The host hands in what it kept
   * (`learnedDialect`) when it makes a client anew, and keeps each change (`onDialectLearned`).
   */
  private learnedNow: LearnedDialect;
  /** The values of the extra headers last sent: redacted from every error, like the key. */
  private headerSecrets: string[] = [];

  constructor(
    private readonly options: ClientOptions,
    private readonly timing: RetryTiming,
    private readonly makeTransport: TransportFactory,
  ) {
    this.problems = new ProblemReporter(options.onProblem);
    this.learnedNow = parseLearnedDialect(options.learnedDialect);
    this.downloadSlots = new Semaphore(
      Math.floor(positive(options.maxConcurrentDownloads, DEFAULT_MAX_CONCURRENT_DOWNLOADS)),
    );
    const env = proxyEnvironment();
    this.proxySecrets = [options.proxy?.url, ...PROXY_ENV.map((name) => env[name])].flatMap(urlCredentials);
  }

  dialect(): Dialect {
    return resolveDialect(this.options.dialect ?? 'auto', this.options.baseUrl, this.learned());
  }

  learned(): LearnedDialect {
    return this.learnedNow;
  }

  private learn(update: (learned: LearnedDialect) => LearnedDialect): void {
    const before = this.learned();
    const after = update(before);
    if (JSON.stringify(after) === JSON.stringify(before)) return;
    this.learnedNow = after;
    try {
      this.options.onDialectLearned?.(this.options.baseUrl, after);
    } catch {
      // The host's storage failing must not fail the request.
    }
  }

  private notice(notice: Omit<DialectNotice, 'baseUrl'>): void {
    const key = `${notice.kind} ${notice.field ?? notice.dialect ?? ''} ${notice.field === 'tools' ? (notice.model ?? '') : ''}`;
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    try {
      this.options.onDialectNotice?.({ ...notice, baseUrl: this.options.baseUrl });
    } catch {
      // A listener's failure is not the request's.
    }
  }

  /**
   * What a gateway answer gives away about its kind (`x-litellm-*`, `x-portkey-*` headers), when
   * the setting leaves it to us and its host did not say. Only answers from the gateway's origin.
   */
  private observe(url: URL, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    if (this.options.dialect && this.options.dialect !== 'auto') return;
    if (url.origin !== this.endpoint('').origin) return;
    this.detected(dialectFromHeaders(headers), 'headers');
  }

  /**
   * Learns the kind the gateway gave away. Its own headers outrank its catalog's shape (a gateway
   * in front of OpenRouter lists OpenRouter's catalog), so a catalog never overrides a kind known.
   */
  private detected(kind: Dialect['kind'] | undefined, from: 'headers' | 'catalog'): void {
    if (!kind || (this.options.dialect !== undefined && this.options.dialect !== 'auto')) return;
    const before = this.dialect().kind;
    const known = this.learned().kind;
    if (known === kind || (from === 'catalog' && known !== undefined)) return;
    this.learn((learned) => ({ ...learned, kind }));
    const after = this.dialect();
    if (after.kind !== before)
      this.notice({
        kind: 'detected',
        dialect: after.kind,
        message: `The gateway answers as ${after.label} does; requests are shaped for it.`,
      });
  }

  private secrets(apiKey: string | undefined): Secrets {
    return [apiKey, ...this.proxySecrets, ...this.headerSecrets];
  }

  private get streamLimit(): BodyLimit {
    return {
      maxBytes: positive(this.options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES),
      maxMs: positive(this.options.maxStreamMs, DEFAULT_MAX_STREAM_MS),
      bytesFromSetting: true,
    };
  }

  async chat(request: ChatRequest, callOptions: CallOptions = {}): Promise<ChatCompletion> {
    const body: Record<string, unknown> = { ...request };
    delete body.stream;
    let apiKey: string | undefined;
    try {
      const opened = await this.openShaped(callOptions, '/v1/chat/completions', body, 'application/json');
      apiKey = opened.apiKey;
      const cost = this.headerCost(opened.exchange);
      const text = await readAll(opened.exchange, jsonLimit(this.options.maxStreamMs));
      const completion = parseChatCompletion(text, this.secrets(apiKey), this.problems);
      if (cost !== undefined && completion.usage?.cost === undefined)
        completion.usage = { ...completion.usage, cost };
      return completion;
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  streamChat(request: ChatRequest, callOptions: CallOptions = {}): AsyncIterable<ChatDelta> {
    return this.streamDeltas('/v1/chat/completions', request, callOptions);
  }

  streamCompletion(request: TextCompletionRequest, callOptions: CallOptions = {}): AsyncIterable<ChatDelta> {
    return this.streamDeltas('/v1/completions', request, callOptions);
  }

  private async *streamDeltas(
    apiPath: '/v1/chat/completions' | '/v1/completions',
    request: ChatRequest | TextCompletionRequest,
    callOptions: CallOptions,
  ): AsyncGenerator<ChatDelta> {
    let apiKey: string | undefined;
    let exchange: HttpExchange | undefined;
    let failure: GatewayError | undefined;
    // Text completions carry `choices[].text`; read as chat chunks, every other field is shared.
    const shape = apiPath === '/v1/completions' ? textChunkAsChat : undefined;
    try {
      const opened = await this.openShaped(
        callOptions,
        apiPath,
        { ...request, stream: true },
        'text/event-stream',
      );
      apiKey = opened.apiKey;
      exchange = opened.exchange;
      // LiteLLM names the cost in a header; it goes out after the gateway's own usage, if any.
      const cost = this.headerCost(exchange);
      let reportedCost = false;
      const noteCost = async function* (
        deltas: AsyncIterable<ChatDelta> | Iterable<ChatDelta>,
      ): AsyncGenerator<ChatDelta> {
        for await (const delta of deltas) {
          if (delta.type === 'usage' && delta.usage.cost !== undefined) reportedCost = true;
          yield delta;
        }
      };
      // OpenRouter names the reply in a header before the first chunk; the chunks' `id` follows.
      const generationId = exchange.header('x-generation-id')?.trim();
      if (generationId) yield { type: 'meta', id: generationId.slice(0, 200) };
      if (/application\/json/i.test(exchange.header('content-type') ?? '')) {
        // A gateway may ignore `stream: true` and answer with one JSON document.
        exchange.setLimit(jsonLimit(this.options.maxStreamMs));
        const whole = parseChatReply(await exchange.text(), this.secrets(apiKey));
        yield* noteCost(
          chatDeltasFromJson(shape ? shape(whole) : whole, this.secrets(apiKey), this.problems),
        );
      } else {
        exchange.setLimit(this.streamLimit);
        const events = untilIdle(
          readSseData(exchange.chunks()),
          exchange,
          this.options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
        );
        yield* noteCost(chatDeltasFromSse(events, this.secrets(apiKey), this.problems, shape));
      }
      // The header's cost (LiteLLM's) stands only where the reply itself reported none.
      if (cost !== undefined && !reportedCost) yield { type: 'usage', usage: { cost } };
    } catch (error) {
      failure = asGatewayError(error, this.secrets(apiKey));
      throw failure;
    } finally {
      exchange?.finish(failure);
    }
  }

  async startMedia(request: MediaRequest, callOptions: CallOptions = {}): Promise<MediaStarted> {
    const book = this.mediaRoutes;
    // A route learned before, or named by the catalogs last read: no request is spent finding it.
    const listed = book.models?.get(request.model);
    let known = book.routes.get(request.model) ?? (listed?.route !== 'media' ? listed?.route : undefined);
    // A catalog's `/v1/images/generations` is a guess where the gateway may also have a job API:
    // tried first, and on a 404 the job API is asked as for a model no catalog names.
    if (
      known === 'images-generations' &&
      !book.routes.has(request.model) &&
      book.mediaEndpoint === undefined &&
      !isKnownImageGenerationModel(request.model)
    ) {
      try {
        const started = await this.startOn('images-generations', request, callOptions, listed);
        book.routes.set(request.model, 'images-generations');
        return started;
      } catch (error) {
        if (!isMissingEndpoint(error)) throw error;
        known = undefined;
      }
    }
    // An image model OpenAI-style servers are known to serve: straight to /v1/images/generations,
    // unless this gateway has shown it takes jobs at /v1/media.
    if (known === undefined && book.mediaEndpoint !== true && isKnownImageGenerationModel(request.model)) {
      try {
        const started = await this.startOn('images-generations', request, callOptions);
        book.routes.set(request.model, 'images-generations');
        return started;
      } catch (error) {
        if (!isMissingEndpoint(error)) throw error;
      }
    }
    let missing: GatewayError | undefined;
    // The gateway's own job API first, where it exists (or may): it takes any model it knows.
    if ((known === undefined || known === 'media') && book.mediaEndpoint !== false) {
      try {
        const started = await this.startOn('media', request, callOptions);
        book.mediaEndpoint = true;
        book.routes.set(request.model, 'media');
        return started;
      } catch (error) {
        if (!isMissingEndpoint(error) || known === 'media') throw error;
        missing = error as GatewayError;
      }
    }
    let info = known && known !== 'media' ? undefined : await this.mediaModel(request.model, callOptions);
    const route = known && known !== 'media' ? known : info?.route !== 'media' ? info?.route : undefined;
    if (route) {
      // The catalogs name another route for it: this gateway serves media without `/v1/media`.
      if (missing) book.mediaEndpoint = false;
      info ??= book.models?.get(request.model);
      const started = await this.startOn(route, request, callOptions, info);
      book.routes.set(request.model, route);
      return started;
    }
    // No catalog knows it: an OpenAI-style server may still make it at `/v1/images/generations`.
    try {
      const started = await this.startOn('images-generations', request, callOptions);
      if (missing) book.mediaEndpoint = false;
      book.routes.set(request.model, 'images-generations');
      return started;
    } catch (error) {
      throw missing && isMissingEndpoint(error) ? missing : error;
    }
  }

  /** The catalog entry of a media model, reading the catalogs when they are old or lack it. */
  private async mediaModel(model: string, callOptions: CallOptions): Promise<MediaModelInfo | undefined> {
    const book = this.mediaRoutes;
    const fresh = book.modelsAt !== undefined && Date.now() - book.modelsAt < MEDIA_CATALOG_REFRESH_MS;
    if (!book.models?.has(model) && !fresh) await this.listMediaModels(callOptions);
    return book.models?.get(model);
  }

  async listMediaModels(callOptions: CallOptions = {}, reuse = false): Promise<MediaModelInfo[]> {
    const book = this.mediaRoutes;
    if (
      reuse &&
      book.models &&
      book.modelsAt !== undefined &&
      Date.now() - book.modelsAt < MEDIA_CATALOG_REFRESH_MS
    )
      return [...book.models.values()];
    const read = (path: string): Promise<unknown> =>
      this.getJson(callOptions, path, 'models', 'media model catalog').catch((error: unknown) => {
        if (GatewayError.is(error) && error.kind === 'aborted') throw error;
        return undefined;
      });
    const [videos, images, chat] = await Promise.all([
      read('/v1/videos/models'),
      read('/v1/images/models'),
      read('/v1/models?output_modalities=image,video,audio'),
    ]);
    const imageModels = parseImageModels(images);
    // A gateway with an images catalog of its own (OpenRouter) makes chat models' pictures in chat.
    const chatImages: MediaRoute = images !== undefined ? 'chat-images' : 'images-generations';
    // Without one (OpenAI-style servers, LiteLLM, Portkey): LiteLLM describes its models at
    // `/model/info`, and the plain catalog lists OpenAI's image ids where the server has them.
    const [described, plain] =
      images === undefined ? await Promise.all([read('/v1/model/info'), read('/v1/models')]) : [];
    const models = new Map<string, MediaModelInfo>();
    for (const info of [
      ...parseVideoModels(videos),
      ...imageModels,
      ...parseChatMediaModels(chat, chatImages),
      ...parseModelInfoMediaModels(described),
      ...parseKnownImageModels(plain),
    ])
      if (!models.has(info.id)) models.set(info.id, info);
    this.mediaRoutes.models = models;
    this.mediaRoutes.modelsAt = Date.now();
    return [...models.values()];
  }

  /**
   * Starts a job on one route. A synchronous route's answer is the result: the job comes back
   * completed, with its record. A video job without a polling URL is asked for at
   * `/v1/videos/{id}`.
   */
  private async startOn(
    route: MediaRoute,
    request: MediaRequest,
    callOptions: CallOptions,
    info?: MediaModelInfo,
  ): Promise<MediaStarted> {
    let apiKey: string | undefined;
    try {
      // Checked against the model's catalog entry before anything is sent (or billed).
      const invalid = checkMediaParameters(info, request.parameters);
      if (invalid) throw new GatewayError({ kind: 'config', message: invalid });
      const opened = await this.open(callOptions, {
        method: 'POST',
        apiPath: MEDIA_ROUTE_PATHS[route],
        body: mediaRouteBody(route, request, info?.reference),
        accept: 'application/json',
        rule: 'start-once',
        error: { operation: 'media-start', model: request.model },
      });
      apiKey = opened.apiKey;
      if (isSyncRoute(route)) {
        // Pictures come whole in the answer, base64: more than a JSON answer's usual cap.
        const body = await readJson(opened.exchange, 'media result', this.streamLimit);
        const id = syncJobId(route, Date.now());
        const record = normalizeSyncRecord(
          route,
          body,
          id,
          this.problems,
          this.secrets(apiKey),
          this.options.baseUrl,
        );
        return { id, status: record.status, record, route };
      }
      const started = normalizeMediaStarted(
        await readJson(opened.exchange, 'media job', jsonLimit(this.options.maxStreamMs)),
        this.problems,
        {
          baseUrl: this.options.baseUrl,
        },
      );
      started.route = route;
      // A polling URL that could never be asked (this computer or a private network while the
      // gateway is not there) is dropped now: the job is asked for at the gateway instead.
      if (started.pollingUrl && this.pollingRefusal(new URL(started.pollingUrl))) {
        this.problems.unknown('media.polling_url', 'an address the download rule refuses; not used');
        delete started.pollingUrl;
      }
      // The polling URL is stored with the job: one that carries a secret (`?key=…`) is not kept.
      if (started.pollingUrl && redact(started.pollingUrl, this.secrets(apiKey)) !== started.pollingUrl) {
        this.problems.unknown('media.polling_url', 'a URL that carries a secret; not kept');
        delete started.pollingUrl;
      }
      if (!started.pollingUrl && route === 'videos')
        started.pollingUrl = this.endpoint(`/v1/videos/${encodeURIComponent(started.id)}`).href;
      return started;
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  async getMedia(id: string, callOptions: MediaStatusOptions = {}): Promise<MediaRecord> {
    let apiKey: string | undefined;
    try {
      if (!id)
        throw new GatewayError({
          kind: 'config',
          message: 'A media job id is needed to ask for its status.',
        });
      const spec: ExchangeSpec = {
        method: 'GET',
        accept: 'application/json',
        rule: 'idempotent',
        error: { operation: 'media-get', mediaId: id },
      };
      const pollingUrl = this.usablePollingUrl(callOptions.pollingUrl);
      let opened: { exchange: HttpExchange; apiKey: string | undefined; url: URL };
      if (pollingUrl) {
        opened = await this.openPollingUrl(pollingUrl, callOptions, spec);
      } else {
        // Any other id goes in as one encoded path segment, `/` and `?` included. Only `.` and `..`
        // cannot: URLs resolve them (encoded too), and the request would go to another path.
        if (id === '.' || id === '..')
          throw new GatewayError({
            kind: 'config',
            message: `The media job id "${id}" cannot be asked for in a URL.`,
          });
        const apiPath = `/v1/media/${encodeURIComponent(id)}`;
        opened = { ...(await this.open(callOptions, { ...spec, apiPath })), url: this.endpoint(apiPath) };
      }
      apiKey = opened.apiKey;
      return normalizeMediaRecord(
        await readJson(opened.exchange, 'media status', jsonLimit(this.options.maxStreamMs)),
        id,
        this.problems,
        this.secrets(apiKey),
        { baseUrl: this.options.baseUrl, statusUrl: opened.url.href },
      );
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  /**
   * A job's own polling URL, as the gateway named it when the job started, checked again here (it
   * may come from a stored file written under older rules): an http(s) URL the download rule
   * allows (never this computer or a private network unless the gateway is there). Undefined for
   * any other, and the job is asked for at the gateway's own `/v1/media/{id}` instead: refusing
   * it on every check would leave the job polled without end.
   */
  private usablePollingUrl(pollingUrl: string | undefined): URL | undefined {
    if (pollingUrl === undefined) return undefined;
    const href = gatewayUrl(pollingUrl);
    if (!href || this.pollingRefusal(new URL(href))) {
      this.problems.unknown(
        'media.polling_url',
        'a URL the download rule refuses; asked at the gateway instead',
      );
      return undefined;
    }
    return new URL(href);
  }

  /** Asks a usable polling URL, sending the key only to the gateway's origin. */
  private async openPollingUrl(
    url: URL,
    callOptions: CallOptions,
    spec: ExchangeSpec,
  ): Promise<{ exchange: HttpExchange; apiKey: string | undefined; url: URL }> {
    if (callOptions.signal?.aborted)
      throw new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' });
    const apiKey = sendsKeyTo(url, this.endpoint('')) ? await this.gatewayKey() : undefined;
    return { exchange: await this.send(url, apiKey, callOptions.signal, spec), apiKey, url };
  }

  /**
   * Why a job's polling URL may not be asked (downloadPolicy.ts), or undefined. On another origin
   * than the gateway's it must also be https: the gateway names it, and we ask it every few
   * seconds for as long as the job runs.
   */
  private pollingRefusal(url: URL): string | undefined {
    const gateway = this.endpoint('');
    const refusal = downloadRefusal(url, {
      gateway,
      named: url,
      redirected: false,
      what: { noun: "The job's polling URL", verb: 'asked' },
    });
    if (refusal || url.origin === gateway.origin || url.protocol === 'https:') return refusal;
    return "The job's polling URL is on another origin than the gateway's and not https.";
  }

  private endpoint(apiPath: string): URL {
    // Cloudflare's base URL is its API root already (`…/compat`): its paths have no `/v1`.
    const path = this.dialect().baseIsApiRoot ? apiPath.replace(/^\/v1(?=[/?]|$)/, '') : apiPath;
    return resolveEndpoint(this.options.baseUrl, path);
  }

  async download(url: string, callOptions: DownloadOptions = {}): Promise<DownloadedFile> {
    try {
      // A few at once: a record may name many results, and each download is held in memory.
      return await this.downloadSlots.run(() => this.downloadNow(url, callOptions), callOptions.signal);
    } catch (error) {
      if (GatewayError.is(error)) throw error;
      throw new GatewayError({ kind: 'aborted', message: 'The request was cancelled.', cause: error });
    }
  }

  private async downloadNow(url: string, callOptions: DownloadOptions): Promise<DownloadedFile> {
    let apiKey: string | undefined;
    try {
      const gateway = resolveEndpoint(this.options.baseUrl, '');
      const named = downloadUrl(url);
      let target = named;
      for (let redirects = 0; ; redirects++) {
        // Never this computer or a private network unless the gateway is there; redirects only
        // to the gateway or the result's own site (downloadPolicy.ts).
        const refusal = downloadRefusal(target, { gateway, named, redirected: redirects > 0 });
        if (refusal) throw new GatewayError({ kind: 'invalid_response', message: refusal });
        // The key goes only to the gateway itself, never to a storage host it links to.
        apiKey = sendsKeyTo(target, gateway) ? await this.gatewayKey() : undefined;
        const exchange = await this.send(target, apiKey, callOptions.signal, {
          method: 'GET',
          accept: '*/*',
          rule: 'idempotent',
          error: { operation: 'download' },
          followRedirects: true,
        });
        const location =
          exchange.status >= 300 && exchange.status < 400 ? exchange.header('location') : undefined;
        if (location === undefined) {
          const limit = this.streamLimit;
          // An explicit cap from the caller is not the setting's, so the error does not name it.
          if (callOptions.maxBytes !== undefined) {
            limit.maxBytes = positive(callOptions.maxBytes, limit.maxBytes);
            limit.bytesFromSetting = false;
          }
          exchange.setLimit(limit);
          return await readDownload(exchange, limit.maxBytes);
        }
        exchange.finish();
        if (redirects >= MAX_REDIRECTS) {
          throw new GatewayError({
            kind: 'invalid_response',
            message: `The download of ${target.host} was redirected too many times.`,
          });
        }
        target = downloadUrl(new URL(location, target).toString());
      }
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  async listModels(
    callOptions: CallOptions = {},
    query: { outputModalities?: 'all' } = {},
  ): Promise<unknown> {
    const path = query.outputModalities
      ? `/v1/models?output_modalities=${query.outputModalities}`
      : '/v1/models';
    const catalog = await this.getJson(callOptions, path, 'models', 'model catalog');
    this.detected(dialectFromCatalog(catalog, this.options.baseUrl), 'catalog');
    return catalog;
  }

  async listModelInfo(callOptions: CallOptions = {}): Promise<unknown> {
    if (!this.dialect().catalog.modelInfo) return undefined;
    return this.getJson(callOptions, '/v1/model/info', 'models', 'model info');
  }

  /** Asks one of OpenRouter's own endpoints where the dialect has it; undefined, without a request, elsewhere. */
  private async ifEndpoint<T>(name: keyof GatewayEndpoints, ask: () => Promise<T>): Promise<T | undefined> {
    return this.dialect().endpoints[name] ? ask() : undefined;
  }

  async listModelEndpoints(model: string, callOptions: CallOptions = {}): Promise<unknown> {
    const path = modelEndpointsPath(model);
    if (path === undefined)
      throw new GatewayError({
        kind: 'config',
        message: 'That is not a model id: no endpoints were asked for.',
      });
    return this.ifEndpoint('modelEndpoints', () =>
      this.getJson(callOptions, path, 'models', 'model endpoints'),
    );
  }

  async getCredits(callOptions: CallOptions = {}): Promise<CreditsDocument | undefined> {
    for (const source of ['key', 'credits'] as const) {
      try {
        const body = await this.ifEndpoint(source, () =>
          this.getJson(callOptions, `/v1/${source}`, 'credits', 'credits'),
        );
        if (body !== undefined) return { source, body };
      } catch (error) {
        // A gateway without the endpoint: try the other one, then report that it has none.
        if (isMissingEndpoint(error)) continue;
        throw error;
      }
    }
    return undefined;
  }

  async getGeneration(id: string, callOptions: CallOptions = {}): Promise<Generation | undefined> {
    const body = await this.ifEndpoint('generation', () =>
      this.getJson(callOptions, `/v1/generation?id=${encodeURIComponent(id)}`, 'generation', 'generation'),
    );
    return body === undefined ? undefined : parseGeneration(body, this.problems);
  }

  /** LiteLLM's cost header, in USD, where the dialect has one and it holds a usable figure. */
  private headerCost(exchange: HttpExchange): number | undefined {
    const name = this.dialect().costHeader;
    if (!name) return undefined;
    return parseHeaderCost(exchange.header(name));
  }

  /**
   * Sends a chat or completion body shaped for the dialect (requestShaper.ts). A 400 that names a
   * field the body carried is learned (never sent to this gateway again, and told once) and the
   * request sent once more without it: at most one such retry, and only before any answer was
   * read, so a stream that started is never sent again.
   */
  private async openShaped(
    callOptions: CallOptions,
    apiPath: ShapedPath,
    request: Record<string, unknown>,
    accept: string,
  ): Promise<{ exchange: HttpExchange; apiKey: string | undefined }> {
    const model = typeof request.model === 'string' ? request.model : undefined;
    const spec = {
      method: 'POST' as const,
      apiPath,
      accept,
      rule: 'idempotent' as const,
      error: { operation: 'chat' as const, model },
    };
    const body = shapeRequest(request, apiPath, this.dialect(), this.learned());
    try {
      return await this.open(callOptions, { ...spec, body });
    } catch (error) {
      const text = GatewayError.is(error) && error.status === 400 ? REFUSAL_TEXT.get(error) : undefined;
      const field = text === undefined ? undefined : refusedField(text, body);
      // OpenRouter takes every field of its own; a 400 there is about a value or an upstream, and
      // learning from it would drop the user's routing (`provider`: privacy, price limits).
      if (field === undefined || this.dialect().kind === 'openrouter') throw error;
      this.learn((learned) => learnRefusal(learned, field, model ?? '', apiPath));
      this.notice({
        kind: 'refused-field',
        field,
        model,
        message:
          field === 'tools'
            ? `The gateway refused tools for ${model ?? 'the model'}: they are off for it, and the request was sent again without them.`
            : `The gateway does not take the request field "${field}": it is no longer sent to ${apiRoot(this.options.baseUrl)}, and the request was sent again without it.`,
      });
      const again = shapeRequest(request, apiPath, this.dialect(), this.learned());
      return this.open(callOptions, { ...spec, body: again });
    }
  }

  async exchangeAuthCode(
    code: string,
    codeVerifier: string,
    callOptions: CallOptions = {},
  ): Promise<unknown> {
    const secrets = [code, codeVerifier, ...this.proxySecrets];
    try {
      if (callOptions.signal?.aborted)
        throw new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' });
      const exchange = await this.send(this.endpoint('/v1/auth/keys'), undefined, callOptions.signal, {
        method: 'POST',
        body: { code, code_verifier: codeVerifier, code_challenge_method: 'S256' },
        accept: 'application/json',
        rule: 'start-once',
        maxRetries: 0,
        error: { operation: 'sign-in' },
      });
      return await readJson(exchange, 'sign-in', jsonLimit(this.options.maxStreamMs));
    } catch (error) {
      throw asGatewayError(error, secrets);
    }
  }

  private async getJson(
    callOptions: CallOptions,
    apiPath: string,
    operation: 'models' | 'credits' | 'generation',
    what: string,
  ): Promise<unknown> {
    let apiKey: string | undefined;
    try {
      const opened = await this.open(callOptions, {
        method: 'GET',
        apiPath,
        accept: 'application/json',
        rule: 'idempotent',
        error: { operation },
      });
      apiKey = opened.apiKey;
      return await readJson(opened.exchange, what, jsonLimit(this.options.maxStreamMs));
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  async close(): Promise<void> {
    const transport = this.transportInstance;
    this.transportInstance = undefined;
    await transport?.close();
  }

  /** Validates the settings and reads the key, then sends (see `send`). */
  private async open(
    callOptions: CallOptions,
    spec: ExchangeSpec & { apiPath: string },
  ): Promise<{ exchange: HttpExchange; apiKey: string | undefined }> {
    if (callOptions.signal?.aborted)
      throw new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' });
    const url = this.endpoint(spec.apiPath);
    const apiKey = await this.gatewayKey();
    try {
      const maxRetries = callOptions.maxRetries;
      return { exchange: await this.send(url, apiKey, callOptions.signal, { ...spec, maxRetries }), apiKey };
    } catch (error) {
      throw asGatewayError(error, this.secrets(apiKey));
    }
  }

  /**
   * The key for a request to the gateway's own origin: none with the `none` auth form; optional
   * when the gateway is on this computer (a local server may need none, and its 401 asks for one).
   */
  private async gatewayKey(): Promise<string | undefined> {
    const form = this.options.authHeader ?? 'bearer';
    if (form === 'none') return undefined;
    const gateway = this.endpoint('');
    return readApiKey(this.options.apiKey, addressPlace(gateway.hostname) === 'loopback');
  }

  /** The extra headers, read at each call; only ever for the gateway's own origin. */
  private async extraHeaders(): Promise<Readonly<Record<string, string>> | undefined> {
    if (!this.options.headers) return undefined;
    let headers: Readonly<Record<string, string>>;
    try {
      headers = await this.options.headers();
    } catch (error) {
      throw new GatewayError({
        kind: 'config',
        message: 'The extra request headers could not be read from secret storage.',
        cause: error,
      });
    }
    // Only the values of headers named like credentials: `x-portkey-provider: openai` is not one,
    // and redacting it would blank every "openai" in the gateway's messages.
    const secrets = Object.entries(headers)
      .filter(([name]) => isSecretHeaderName(name))
      .map(([, value]) => value);
    this.headerSecrets = [...new Set([...this.headerSecrets, ...secrets])].slice(-64);
    return headers;
  }

  /**
   * Sends with retries until a 2xx response (or, when following redirects, a 3xx) has headers.
   * Error statuses are read, logged and turned into a GatewayError here. The extra headers go
   * along only to the gateway's own origin, by the same rule as the key (downloadPolicy.ts).
   */
  private async send(
    url: URL,
    apiKey: string | undefined,
    signal: AbortSignal | undefined,
    spec: ExchangeSpec,
  ): Promise<HttpExchange> {
    const onGateway = sendsKeyTo(url, this.endpoint(''));
    const extraHeaders = onGateway ? await this.extraHeaders() : undefined;
    const keyless = onGateway && !apiKey;
    return withRetries(
      async (attempt) => {
        const opened = await this.transport.open({
          method: spec.method,
          url,
          apiKey,
          authHeader: this.options.authHeader,
          extraHeaders,
          body: spec.body,
          accept: spec.accept,
          signal,
          attempt,
        });
        const { status } = opened;
        this.observe(url, opened.headers);
        if ((status >= 200 && status < 300) || (spec.followRedirects && status >= 300 && status < 400))
          return opened;
        let failure: GatewayError;
        try {
          // A byte now and then must not keep the call waiting for the whole 64 KiB kept.
          opened.setLimit(jsonLimit(this.options.maxStreamMs));
          const text = await opened.errorText();
          failure = redactError(
            httpError(status, opened.headers, text, {
              ...spec.error,
              secret: this.secrets(apiKey),
              path: url.pathname,
              keyless,
            }),
            this.secrets(apiKey),
          );
          if (status === 400) REFUSAL_TEXT.set(failure, redact(text, this.secrets(apiKey)));
        } catch (error) {
          failure = asGatewayError(error, this.secrets(apiKey));
        }
        opened.finish(failure);
        throw failure;
      },
      {
        rule: spec.rule,
        maxRetries: spec.maxRetries ?? this.options.maxRetries ?? DEFAULT_MAX_RETRIES,
        timing: this.timing,
        signal,
      },
    );
  }

  private get transport(): Transport {
    this.transportInstance ??= this.makeTransport({
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      streamIdleTimeoutMs: this.options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
      limitHints: this.options.limitHints,
      proxy: this.options.proxy,
      userAgent: this.options.userAgent ?? DEFAULT_USER_AGENT,
      log: this.options.log,
    });
    return this.transportInstance;
  }
}

/** `x-litellm-response-cost`: a plain number of USD; anything else (or an absurd figure) is none. */
export function parseHeaderCost(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text || text.length > 40 || !/^\d+(?:\.\d+)?(?:e-?\d+)?$/i.test(text)) return undefined;
  const cost = Number(text);
  return Number.isFinite(cost) && cost >= 0 && cost < MAX_USD ? cost : undefined;
}

/**
 * The cap on a whole JSON answer: its size is fixed, not a setting; its time is the streams' total
 * (`maxStreamMs`), since a byte now and then keeps the idle limit from ever firing.
 */
function jsonLimit(maxStreamMs: number | undefined): BodyLimit {
  return {
    maxBytes: MAX_JSON_BYTES,
    maxMs: positive(maxStreamMs, DEFAULT_MAX_STREAM_MS),
    bytesFromSetting: false,
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

/**
 * Passes the SSE batches on, and gives the exchange up when no real event (a non-empty `data`)
 * came for `idleMs`. Keep-alive comments and empty events bring no batch or only empty strings,
 * so they never restart the clock; the consumer's time with a batch does not count.
 */
async function* untilIdle(
  batches: AsyncIterable<string[]>,
  exchange: HttpExchange,
  idleMs: number,
): AsyncGenerator<string[]> {
  const watch = new IdleWatch(idleMs, () => exchange.giveUpIdle());
  try {
    watch.startWaiting();
    for await (const batch of batches) {
      if (!batch.some((data) => data.trim() !== '')) continue;
      watch.stopWaiting();
      yield batch;
      watch.startWaiting();
    }
  } finally {
    watch.dispose();
  }
}

async function readAll(exchange: HttpExchange, limit: BodyLimit): Promise<string> {
  let failure: GatewayError | undefined;
  try {
    exchange.setLimit(limit);
    return await exchange.text();
  } catch (error) {
    failure = asGatewayError(error, undefined);
    throw failure;
  } finally {
    exchange.finish(failure);
  }
}

async function readJson(exchange: HttpExchange, what: string, limit: BodyLimit): Promise<unknown> {
  const text = await readAll(exchange, limit);
  const parsed = tryParseJson(text);
  if (!parsed.ok)
    throw new GatewayError({
      kind: 'invalid_response',
      message: `The gateway's ${what} answer is not valid JSON.`,
    });
  return parsed.value;
}

/** A 404 or 405 to a start: the gateway has no such endpoint (or does not know the model there). */
function isMissingEndpoint(error: unknown): boolean {
  return GatewayError.is(error) && (error.status === 404 || error.status === 405);
}

function downloadUrl(text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new GatewayError({
      kind: 'config',
      message: `Only http(s) URLs can be downloaded, not "${text.slice(0, 100)}".`,
    });
  }
  return url;
}

async function readDownload(exchange: HttpExchange, maxBytes: number): Promise<DownloadedFile> {
  let failure: GatewayError | undefined;
  try {
    const declared = Number(exchange.header('content-length'));
    // The cap itself is enforced while reading (see `setLimit`); a declared size fails at once.
    if (Number.isFinite(declared) && declared > maxBytes) throw exchange.tooLarge();
    const parts: Uint8Array[] = [];
    for await (const chunk of exchange.chunks()) parts.push(chunk);
    return {
      bytes: concatBytes(parts),
      contentType: exchange.header('content-type')?.split(';')[0].trim() || undefined,
    };
  } catch (error) {
    failure = asGatewayError(error, undefined);
    throw failure;
  } finally {
    exchange.finish(failure);
  }
}

/** Every error leaving the client is a GatewayError with the key and proxy credentials scrubbed. */
function asGatewayError(error: unknown, secrets: Secrets): GatewayError {
  const gatewayError = GatewayError.is(error)
    ? error
    : new GatewayError({
        kind: 'invalid_response',
        message: `Unexpected error: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
  return redactError(gatewayError, secrets);
}

/**
 * `/v1/models/{id}/endpoints` for a model id, or undefined for an id with an empty, `.` or `..`
 * segment: URLs resolve those (encoded dots too), which would climb out of the models path. The id
 * keeps its slash (`vendor/model`): each segment is encoded alone.
 */
export function modelEndpointsPath(model: string): string | undefined {
  const segments = model.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return undefined;
  return `/v1/models/${segments.map(encodeURIComponent).join('/')}/endpoints`;
}
