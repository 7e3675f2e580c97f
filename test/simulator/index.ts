/**
 * A local stand-in for the AI gateway, faithful to its interface (OpenRouter-style chat with SSE,
 * asynchronous media jobs, Bearer keys, error bodies), with scenario switches that make it fail
 * in every way the client must survive. Plain node:http; used by unit, integration and
 * end-to-end tests, the demo and the benchmark.
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleChat } from './chat';
import { answerScripted, handleCompletions } from './completions';
import type { CompletionScript, ScriptedCore } from './completions';
import { DEFAULT_CATALOG, handleCredits, handleKey, handleModels, simEndpoints } from './catalog';
import type { AllModalitiesMode, CatalogMode, CreditState, SimModel } from './catalog';
import type { RequestContext } from './context';
import { applyCors } from './cors';
import type { CorsMode, PreflightRecord } from './cors';
import { OAuthDesk } from './oauth';
import { GatewayExtras } from './gatewayExtras';
import { MediaJobs, handleMediaGet, handleMediaStart, mediaPng } from './media';
import { QuirksState } from './openRouterQuirks';
import {
  CHAT_IMAGE_CATALOG_ENTRY,
  IMAGE_MODELS,
  VIDEO_MODELS,
  asksForImages,
  handleChatImages,
  handleImageGenerations,
  handleImages,
  handleVideoStart,
} from './openRouterMedia';
import type { MediaApi } from './openRouterMedia';
import type { MediaHost } from './media';
import { MP4_BYTES } from './mediaShapes';
import type { MediaShape } from './mediaShapes';
import { gradientPng } from './png';
import { parseJson, readBody, isRecord, sendError, sendJson } from './respond';
import { dialectBaseUrl, internalPath, liteLlmModelInfo, modeCatalog, sendOpenAiError } from './dialectModes';
import type { SimDialect } from './dialectModes';
import { ScenarioSet, parseScenarioList } from './scenarios';
import { drained } from './sseWriter';
import type { Scenario } from './scenarios';
import type { ClosedConnection, MediaTimings, RecordedRequest, SeenImage, SimulatorOptions } from './types';
import type { ResultOriginRequest } from './types';

export type { CompletionScript } from './completions';
export type { ClosedConnection, MediaTimings, RecordedRequest, SeenImage, SimulatorOptions } from './types';
export type { GenerationRecord, OpenRouterQuirks } from './openRouterQuirks';
export { liteLlmModelInfo } from './gatewayExtras';
export type { GatewayExtrasOptions } from './gatewayExtras';
export type { ResultOriginRequest } from './types';
export { CORS_MODES, PREFLIGHT_MAX_AGE_S } from './cors';
export type { CorsMode, PreflightRecord } from './cors';
export { MEDIA_SHAPES, MP4_BYTES, VIDEO_COST } from './mediaShapes';
export {
  CHAT_IMAGE_COST,
  IMAGE_COST,
  IMAGE_MODELS,
  SIM_CHAT_IMAGE_MODEL,
  SIM_IMAGE_MODEL,
  SIM_VIDEO_MODEL,
  VIDEO_MODELS,
} from './openRouterMedia';
export type { MediaApi } from './openRouterMedia';
export type { MediaShape } from './mediaShapes';
export { DIALECT_MODELS, SIM_DIALECTS } from './dialectModes';
export type { SimDialect } from './dialectModes';

const API_PREFIX = '/api';
const DEFAULT_MEDIA_TIMINGS: MediaTimings = { queuedMs: 1500, processingMs: 3000 };

/**
 * Events: 'request' (RecordedRequest), 'connection-closed' (ClosedConnection) when a client goes
 * away before its response was complete, 'preflight' (PreflightRecord) for each CORS preflight.
 */
export class GatewaySimulator extends EventEmitter implements ScriptedCore, MediaHost {
  /** Every request except the /__sim control calls, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Responses the client abandoned before they were complete. */
  readonly closedConnectionLog: ClosedConnection[] = [];
  /** Requests for /img/* (tracking images in hostile replies). */
  imageRequests = 0;
  /** Every `image_url` part of every chat request, in arrival order. */
  readonly seenImages: SeenImage[] = [];
  /** Requests for /api/files/* (media results served by URL). */
  fileRequests = 0;
  /** /api/files/* responses being written now, and the most there ever were at once. */
  filesInFlight = 0;
  peakFilesInFlight = 0;
  /** Sign in with OpenRouter: the page and the code exchange. */
  readonly oauth = new OAuthDesk();
  readonly providerName: string;
  readonly chunkDelayMs: number;
  readonly mediaTimings: MediaTimings;
  /**
   * What POST /v1/completions answers, and, while set, every chat request too (the inline
   * completions' chat path). Undefined: completions answer a fixed text, chat its echo.
   */
  completionScript: CompletionScript | undefined;
  /** What GET /v1/models answers (see CatalogMode). */
  catalogMode: CatalogMode = 'ok';
  /** What GET /v1/models?output_modalities=all answers (see AllModalitiesMode). */
  allModalitiesMode: AllModalitiesMode = 'ok';
  /** Whether GET /v1/models/{id}/endpoints exists (false: 404, as on gateways without it). */
  endpointsAvailable = true;
  models: unknown[];
  /** The key's credit; undefined: the gateway has no credit endpoints (404). */
  credits: CreditState | undefined;
  /** OpenRouter's quirks when the options ask for them; every reply's generation record in any case. */
  readonly quirks: QuirksState;
  origin = '';
  baseUrl = '';
  port = 0;
  /** How media jobs answer unless a job's marker says otherwise (see mediaShapes.ts). */
  readonly mediaShape: MediaShape | undefined;
  /**
   * A second loopback origin that hosts results, as a storage host does: `/files/<job id>.png`.
   * It records every request, with the Authorization header it carried (never one, or the key
   * leaked).
   */
  resultOrigin = '';
  readonly resultRequests: ResultOriginRequest[] = [];
  /**
   * Which media API it speaks (see openRouterMedia.ts): `gateway` (its own `/v1/media`, the
   * default), `openrouter` (no `/v1/media`; images, chat images and videos as OpenRouter serves
   * them) or `openai` (no `/v1/media`; `/v1/images/generations`).
   */
  mediaApi: MediaApi;
  /** The bytes of every picture served inline by the OpenRouter and OpenAI media routes. */
  readonly servedMedia: Buffer[] = [];
  /** The kind of gateway it answers as (see dialectModes.ts); undefined: its own, OpenRouter-style. */
  readonly dialect: SimDialect | undefined;
  /**
   * How it answers browsers (see cors.ts): `allow` (the default) or `refuse`, a gateway without
   * CORS. Both origins follow it; a test may change it between requests.
   */
  cors: CorsMode;
  /** Every CORS preflight either origin answered, in arrival order (not in `requests`). */
  readonly preflights: PreflightRecord[] = [];

  private readonly server: Server;
  private readonly resultServer: Server;
  private readonly validKeys: Set<string> | undefined;
  private readonly extras: GatewayExtras;
  private readonly jobs = new MediaJobs();
  private readonly keyScenarios = new Map<string, Scenario[]>();
  private globalScenarios: Scenario[] = [];
  private readonly hits = new Map<string, number>();
  private nextRequestId = 1;

  constructor(private readonly options: SimulatorOptions = {}) {
    super();
    this.providerName = options.providerName ?? 'SimProvider';
    this.chunkDelayMs = options.chunkDelayMs ?? 5;
    this.mediaTimings = {
      queuedMs: options.mediaTimings?.queuedMs ?? DEFAULT_MEDIA_TIMINGS.queuedMs,
      processingMs: options.mediaTimings?.processingMs ?? DEFAULT_MEDIA_TIMINGS.processingMs,
      queuedPolls: options.mediaTimings?.queuedPolls,
      processingPolls: options.mediaTimings?.processingPolls,
    };
    this.models = options.models ?? DEFAULT_CATALOG;
    this.dialect = options.dialect;
    this.cors = options.cors ?? 'allow';
    // Other kinds of gateway have no credit endpoints.
    this.credits =
      options.credits === null || this.dialect ? undefined : (options.credits ?? { limit: 10, usage: 2.5 });
    this.validKeys = options.validKeys ? new Set(options.validKeys) : undefined;
    this.extras = new GatewayExtras(options.extras);
    this.quirks = new QuirksState(options.openRouterQuirks, () => this.models);
    this.mediaShape = options.mediaShape;
    this.mediaApi = options.mediaApi ?? (this.dialect && this.dialect !== 'local' ? 'openai' : 'gateway');
    this.resultServer = createServer((request, response) => this.handleResultOrigin(request, response));
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent)
          sendError(
            response,
            500,
            `Simulator failure: ${error instanceof Error ? error.message : String(error)}`,
          );
        else response.destroy();
      });
    });
  }

  get closedConnections(): number {
    return this.closedConnectionLog.length;
  }

  /**
   * Every distinct `Origin` a request or preflight carried, to either origin. Node's fetch and
   * undici send none; a browser (VS Code for the Web's extension host worker) always does.
   */
  get originsSeen(): string[] {
    const seen = new Set<string>();
    const add = (origin: string | string[] | undefined): void => {
      if (typeof origin === 'string') seen.add(origin);
    };
    for (const r of this.requests) add(r.headers.origin);
    for (const p of this.preflights) add(p.origin);
    for (const r of this.resultRequests) add(r.headers?.origin);
    return [...seen];
  }

  /** Answers a preflight outright (recorded), or sets the CORS header the response will carry. */
  private corsAnswered(request: IncomingMessage, response: ServerResponse, path: string): boolean {
    const preflight = applyCors(this.cors, request, response, path);
    if (!preflight) return false;
    this.preflights.push(preflight);
    this.emit('preflight', preflight);
    return true;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.origin = `http://${this.options.host ?? '127.0.0.1'}:${this.port}`;
    this.baseUrl = this.dialect ? dialectBaseUrl(this.dialect, this.origin) : `${this.origin}${API_PREFIX}`;
    await new Promise<void>((resolve, reject) => {
      this.resultServer.once('error', reject);
      this.resultServer.listen(0, '127.0.0.1', () => resolve());
    });
    this.resultOrigin = `http://127.0.0.1:${(this.resultServer.address() as AddressInfo).port}`;
    return this;
  }

  /** `name`, `name:arg` or a comma-separated list for every request; undefined clears. */
  setScenario(spec: string | undefined): void {
    this.globalScenarios = parseScenarioList(spec);
  }

  setScenarioForKey(apiKey: string, spec: string | undefined): void {
    const scenarios = parseScenarioList(spec);
    if (scenarios.length > 0) this.keyScenarios.set(apiKey, scenarios);
    else this.keyScenarios.delete(apiKey);
  }

  /** Forgets requests, counters, jobs and scenarios. */
  reset(): void {
    this.requests.length = 0;
    this.closedConnectionLog.length = 0;
    this.imageRequests = 0;
    this.fileRequests = 0;
    this.peakFilesInFlight = 0;
    this.seenImages.length = 0;
    this.resultRequests.length = 0;
    this.servedMedia.length = 0;
    this.preflights.length = 0;
    this.cors = this.options.cors ?? 'allow';
    this.keyScenarios.clear();
    this.globalScenarios = [];
    this.catalogMode = 'ok';
    this.completionScript = undefined;
    this.allModalitiesMode = 'ok';
    this.endpointsAvailable = !this.dialect;
    this.hits.clear();
    this.jobs.clear();
  }

  /** Resolves at the next abandoned response (optionally of one request), or rejects after `timeoutMs`. */
  waitForClosedConnection(requestId?: number, timeoutMs = 2000): Promise<ClosedConnection> {
    const already = this.closedConnectionLog.find(
      (entry) => requestId === undefined || entry.requestId === requestId,
    );
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const onClosed = (entry: ClosedConnection): void => {
        if (requestId !== undefined && entry.requestId !== requestId) return;
        clearTimeout(timer);
        this.off('connection-closed', onClosed);
        resolve(entry);
      };
      const timer = setTimeout(() => {
        this.off('connection-closed', onClosed);
        reject(new Error(`No connection closed within ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('connection-closed', onClosed);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.resultServer.closeAllConnections();
    await Promise.all(
      [this.server, this.resultServer].map(
        (server) => new Promise<void>((resolve) => server.close(() => resolve())),
      ),
    );
  }

  scenariosFor(context: RequestContext, markers: Scenario[]): ScenarioSet {
    return new ScenarioSet([
      ...context.headerScenarios,
      ...markers,
      ...(this.keyScenarios.get(context.apiKey) ?? []),
      ...this.globalScenarios,
    ]);
  }

  countHit(counter: string): number {
    const before = this.hits.get(counter) ?? 0;
    this.hits.set(counter, before + 1);
    return before;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    const asked = url.pathname;
    // Another kind of gateway serves its API at `/v1/…` (LiteLLM also without `/v1`).
    const path =
      this.dialect && !asked.startsWith('/__sim/') ? (internalPath(this.dialect, asked) ?? asked) : asked;
    if (this.corsAnswered(request, response, path)) return;
    const rawBody = await readBody(request);
    if (path.startsWith('/__sim/'))
      return this.handleControl(request.method ?? 'GET', path, parseJson(rawBody), response);

    const record: RecordedRequest = {
      id: this.nextRequestId++,
      method: request.method ?? 'GET',
      path,
      ...(url.search ? { query: url.search } : {}),
      headers: request.headers,
      body: parseJson(rawBody),
      time: Date.now(),
      scenarios: [],
    };
    this.requests.push(record);
    this.emit('request', record);
    let droppedByUs = false;
    response.on('close', () => {
      if (response.writableFinished || droppedByUs) return;
      const entry: ClosedConnection = { requestId: record.id, path, time: Date.now() };
      this.closedConnectionLog.push(entry);
      this.emit('connection-closed', entry);
    });

    // OpenRouter's sign-in page lives beside the API, not under it; the exchange needs no key.
    if (request.method === 'GET' && path === '/auth') return this.oauth.page(url, response);
    if (request.method === 'POST' && path === `${API_PREFIX}/v1/auth/keys`)
      return this.oauth.exchange(record.body, response);
    if (request.method === 'GET' && path.startsWith('/img/')) {
      this.imageRequests += 1;
      return this.sendPng(response, gradientPng(8, 8, this.imageRequests));
    }
    if (request.method === 'GET' && path.startsWith('/api/files/'))
      return this.handleFile(path.slice('/api/files/'.length), url.searchParams, response);

    const route = this.apiRoute(request.method ?? 'GET', path);
    const extra =
      !route &&
      path.startsWith(API_PREFIX) &&
      this.extras.serves(request.method ?? 'GET', path.slice(API_PREFIX.length));
    if (this.dialect && !extra && !this.dialectServes(route?.name))
      return sendOpenAiError(response, 404, `Invalid URL (${request.method} ${asked})`);
    if (!route && !extra) return sendError(response, 404, `Not found: ${request.method} ${path}`);
    if (this.dialect === 'litellm') dropRetryAfter(response);
    const apiKey = this.authenticate(request, response);
    if (apiKey === undefined) return;
    if (!route) {
      if (this.extras.answer(request.method ?? 'GET', path.slice(API_PREFIX.length), response)) return;
      return sendError(response, 404, `Not found: ${request.method} ${path}`);
    }
    const context: RequestContext = {
      record,
      request,
      response,
      apiKey,
      body: record.body,
      headerScenarios: parseScenarioList(headerText(request.headers['x-sim-scenario'])),
      markDropped: () => {
        droppedByUs = true;
      },
    };
    // LiteLLM's mode describes its own models; elsewhere `/model/info` is what the test set (or 404).
    if (route.name === 'model-info') {
      if (this.dialect === 'litellm') return sendJson(response, 200, liteLlmModelInfo());
      this.extras.answer('GET', '/v1/model/info', response);
      return;
    }
    if (route.name === 'models' && this.dialect) return sendJson(response, 200, modeCatalog(this.dialect));
    if (route.name === 'models')
      return handleModels(
        response,
        this.catalogMode,
        (this.mediaApi === 'openrouter'
          ? [...this.models, CHAT_IMAGE_CATALOG_ENTRY]
          : this.models) as never[],
        url.searchParams,
        this.allModalitiesMode,
      );
    if (route.name === 'media-catalog') {
      if (this.mediaApi !== 'openrouter') return sendError(response, 404, 'Not Found');
      return sendJson(response, 200, { data: route.id === 'images' ? IMAGE_MODELS : VIDEO_MODELS });
    }
    if (route.name === 'images' || route.name === 'videos-start' || route.name === 'images-generations') {
      const offered = route.name === 'images-generations' ? 'openai' : 'openrouter';
      if (this.mediaApi !== offered) return sendError(response, 404, 'Not Found');
      if (route.name === 'images') return handleImages(context, this);
      if (route.name === 'videos-start') return handleVideoStart(context, this, this.jobs);
      return handleImageGenerations(context, this, this.jobs);
    }
    if (route.name === 'media-start' && this.mediaApi !== 'gateway')
      return sendError(response, 404, 'Not Found');
    if (route.name === 'chat' && this.mediaApi === 'openrouter' && asksForImages(context.body))
      return handleChatImages(context, this);
    if (route.name === 'endpoints') {
      const model = (this.models as SimModel[]).find((m) => m.id === route.id);
      if (!this.endpointsAvailable || !model) return sendError(response, 404, 'Not Found');
      return sendJson(response, 200, simEndpoints(model));
    }
    if (route.name === 'key') return handleKey(response, this.credits);
    if (route.name === 'credits') return handleCredits(response, this.credits);
    if (route.name === 'completions') return handleCompletions(context, this);
    if (route.name === 'chat' && this.completionScript) return this.answerChatScripted(context);
    if (route.name === 'generation')
      return this.quirks.answerGeneration(response, url.searchParams.get('id'));
    if (route.name === 'chat') return handleChat(context, this);
    if (route.name === 'media-start') return handleMediaStart(context, this, this.jobs);
    if (route.name === 'media-content') return this.sendContent(route.id ?? '', response);
    return handleMediaGet(context, this, this.jobs, route.id ?? '');
  }

  /** A video job's file, behind the key like every /api route (OpenAI's `/content`, OpenRouter's). */
  private sendContent(id: string, response: ServerResponse): void {
    if (!this.jobs.get(id)) return sendError(response, 404, `Media job ${id} not found.`);
    response.writeHead(200, {
      'content-type': 'video/mp4',
      'content-length': MP4_BYTES.length,
      'cache-control': 'no-store',
    });
    response.end(MP4_BYTES);
  }

  /** The second origin: results hosted away from the gateway, which must never get the key. */
  private handleResultOrigin(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://result.invalid').pathname;
    if (this.corsAnswered(request, response, path)) return;
    const authorization = request.headers.authorization;
    this.resultRequests.push({
      path,
      headers: request.headers,
      ...(authorization !== undefined ? { authorization } : {}),
    });
    const match = /^\/files\/([^/]+)\.png$/.exec(path);
    const job = match ? this.jobs.get(decodeURIComponent(match[1])) : undefined;
    if (request.method !== 'GET' || !job) return sendError(response, 404, 'No such file.');
    this.sendPng(response, mediaPng(job));
  }

  private apiRoute(
    method: string,
    path: string,
  ):
    | {
        name:
          | 'chat'
          | 'completions'
          | 'media-start'
          | 'media-get'
          | 'media-content'
          | 'models'
          | 'endpoints'
          | 'key'
          | 'credits'
          | 'generation'
          | 'media-catalog'
          | 'images'
          | 'videos-start'
          | 'images-generations'
          | 'model-info';
        id?: string;
      }
    | undefined {
    if (method === 'GET' && path === `${API_PREFIX}/v1/generation`) return { name: 'generation' };
    if (method === 'GET' && path === `${API_PREFIX}/v1/models`) return { name: 'models' };
    if (method === 'GET' && path === `${API_PREFIX}/v1/model/info`) return { name: 'model-info' };
    const endpoints = new RegExp(`^${API_PREFIX}/v1/models/(.+)/endpoints$`).exec(path);
    if (method === 'GET' && endpoints) return { name: 'endpoints', id: decodeURIComponent(endpoints[1]) };
    if (method === 'GET' && path === `${API_PREFIX}/v1/key`) return { name: 'key' };
    if (method === 'GET' && path === `${API_PREFIX}/v1/credits`) return { name: 'credits' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/chat/completions`) return { name: 'chat' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/completions`) return { name: 'completions' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/media`) return { name: 'media-start' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/images`) return { name: 'images' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/videos`) return { name: 'videos-start' };
    if (method === 'POST' && path === `${API_PREFIX}/v1/images/generations`)
      return { name: 'images-generations' };
    if (method === 'GET' && path === `${API_PREFIX}/v1/images/models`)
      return { name: 'media-catalog', id: 'images' };
    if (method === 'GET' && path === `${API_PREFIX}/v1/videos/models`)
      return { name: 'media-catalog', id: 'videos' };
    if (method !== 'GET') return undefined;
    const content = new RegExp(`^${API_PREFIX}/v1/(?:media|videos)/([^/]+)/content$`).exec(path);
    if (content) return { name: 'media-content', id: decodeURIComponent(content[1]) };
    // The status of a job, at the simulator's own path or at the polling URL its shape names.
    const media = new RegExp(
      `^${API_PREFIX}/v1/(?:media|videos|predictions)/([^/]+)$|^${API_PREFIX}/v1/fal/requests/([^/]+)/status$`,
    ).exec(path);
    if (media) return { name: 'media-get', id: decodeURIComponent(media[1] ?? media[2]) };
    return undefined;
  }

  /** Whether the kind of gateway it answers as has that route. */
  private dialectServes(route: string | undefined): boolean {
    switch (route) {
      case 'chat':
      case 'completions':
      case 'models':
        return true;
      case 'model-info':
        return this.dialect === 'litellm';
      case 'images-generations':
        return this.dialect !== 'local';
      default:
        return false;
    }
  }

  /**
   * A key another kind of gateway refuses: not among `validKeys`, or (without them) one that
   * contains "wrong". LiteLLM without a database answers 400 "No connected db.", OpenAI 401.
   */
  private refusedByDialect(key: string, response: ServerResponse): boolean {
    const wrong = this.validKeys ? !this.validKeys.has(key) : key.includes('wrong');
    if (!wrong) return false;
    if (this.dialect === 'litellm')
      sendOpenAiError(response, 400, 'No connected db.', { type: 'no_db_connection', code: '400' });
    else
      sendOpenAiError(response, 401, `Incorrect API key provided: ${key.slice(0, 3)}***${key.slice(-4)}.`, {
        code: 'invalid_api_key',
      });
    return true;
  }

  /** The Bearer key, or undefined after answering 401. */
  private authenticate(request: IncomingMessage, response: ServerResponse): string | undefined {
    const other = this.extras.authenticate(request);
    if (other && 'status' in other) {
      sendError(response, other.status, other.message);
      return undefined;
    }
    if (other) return other.key;
    const header = request.headers.authorization;
    if (this.dialect) {
      // A local server needs no key; the others take `Bearer <key>`.
      const key = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1];
      if (key === undefined && this.dialect === 'local') return '';
      if (key === undefined) {
        sendOpenAiError(response, 401, "You didn't provide an API key.", { type: 'invalid_request_error' });
        return undefined;
      }
      return this.dialect === 'local' || !this.refusedByDialect(key, response) ? key : undefined;
    }
    if (!header) {
      sendError(response, 401, 'No auth credentials found');
      return undefined;
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) {
      sendError(response, 401, "Malformed Authorization header: expected 'Bearer <key>'");
      return undefined;
    }
    const key = match[1];
    if (this.validKeys && !this.validKeys.has(key)) {
      // Echoes the key, as some servers do: the client must scrub it from what it shows.
      sendError(response, 401, `User not found for key ${key}`);
      return undefined;
    }
    return key;
  }

  /** A chat request while a completion script is set: the script's text, as chat chunks. */
  private answerChatScripted(context: RequestContext): Promise<void> {
    const body = isRecord(context.body) ? context.body : {};
    const model = typeof body.model === 'string' ? body.model : 'sim/unknown';
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const prompt = messages
      .map((m) => (isRecord(m) && typeof m.content === 'string' ? m.content : ''))
      .join('\n');
    return answerScripted(context, this, { model, prompt, suffix: '', chat: true });
  }

  private handleControl(method: string, path: string, body: unknown, response: ServerResponse): void {
    if (method === 'POST' && path === '/__sim/scenario') {
      const spec = isRecord(body) && typeof body.name === 'string' ? body.name : undefined;
      const key = isRecord(body) && typeof body.key === 'string' ? body.key : undefined;
      if (key) this.setScenarioForKey(key, spec);
      else this.setScenario(spec);
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__sim/catalog') {
      // {"status": 404} makes the catalog fail, {"status": 200} serves it again.
      const status = isRecord(body) && typeof body.status === 'number' ? body.status : 200;
      this.catalogMode = status === 200 ? 'ok' : status === 404 ? '404' : { status };
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__sim/completion') {
      // {"text": "...", "firstByteDelayMs": 0, "pieceDelayMs": 0}; no text: back to the default.
      const text = isRecord(body) && typeof body.text === 'string' ? body.text : undefined;
      const delay = (field: string): number | undefined =>
        isRecord(body) && typeof body[field] === 'number' ? body[field] : undefined;
      this.completionScript =
        text === undefined
          ? undefined
          : { text, firstByteDelayMs: delay('firstByteDelayMs'), pieceDelayMs: delay('pieceDelayMs') };
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__sim/media-api') {
      // {"api": "openrouter" | "openai" | "gateway"}
      const api = isRecord(body) ? body.api : undefined;
      if (api !== 'gateway' && api !== 'openrouter' && api !== 'openai')
        return sendError(response, 400, 'api must be gateway, openrouter or openai');
      this.mediaApi = api;
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__sim/cors') {
      // {"mode": "allow" | "refuse"}
      const mode = isRecord(body) ? body.mode : undefined;
      if (mode !== 'allow' && mode !== 'refuse')
        return sendError(response, 400, 'mode must be allow or refuse');
      this.cors = mode;
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'POST' && path === '/__sim/reset') {
      this.reset();
      return sendJson(response, 200, { ok: true });
    }
    if (method === 'GET' && path === '/__sim/requests') {
      return sendJson(response, 200, {
        requests: this.requests,
        closedConnections: this.closedConnections,
        imageRequests: this.imageRequests,
        fileRequests: this.fileRequests,
        seenImages: this.seenImages,
        preflights: this.preflights,
        origins: this.originsSeen,
      });
    }
    sendError(response, 404, `Unknown control call ${method} ${path}`);
  }

  /**
   * Media results served by URL: `<job id>.png`, `<job id>.txt` (text/plain), `<job id>?as=text`
   * (text/plain without an extension), `stream.bin?mb=<n>` (n MB of zeros, chunked, without a
   * length), `redirect?to=<url>` (302). `?delay=<ms>` holds any of them back first.
   */
  private async handleFile(name: string, query: URLSearchParams, response: ServerResponse): Promise<void> {
    this.fileRequests += 1;
    this.filesInFlight += 1;
    this.peakFilesInFlight = Math.max(this.peakFilesInFlight, this.filesInFlight);
    response.once('close', () => (this.filesInFlight -= 1));
    const delay = Number(query.get('delay') ?? 0);
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (name === 'redirect') {
      response.writeHead(302, { location: query.get('to') ?? '/', 'content-length': 0 });
      return void response.end();
    }
    if (name === 'stream.bin') return this.sendZeros(response, Number(query.get('mb') ?? 1));
    const [, stem = '', extension] = /^([^/.]+)(?:\.(png|txt))?$/.exec(name) ?? [];
    const job = this.jobs.get(decodeURIComponent(stem));
    if (!job) return sendError(response, 404, 'No such file.');
    if (extension === 'png') return this.sendPng(response, mediaPng(job));
    if (extension === 'txt' || query.get('as') === 'text') {
      const text = Buffer.from(`A text result for the prompt: ${job.prompt}`, 'utf8');
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': text.length });
      return void response.end(text);
    }
    sendError(response, 404, 'No such file.');
  }

  /** `megabytes` MB in 64 KiB chunks, without a Content-Length; stops when the client goes away. */
  private async sendZeros(response: ServerResponse, megabytes: number): Promise<void> {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
    const chunk = Buffer.alloc(64 * 1024);
    const chunks = Math.ceil((megabytes * 1024 * 1024) / chunk.length);
    for (let sent = 0; sent < chunks && !response.destroyed; sent++) {
      if (!response.write(chunk)) await drained(response);
    }
    if (!response.destroyed) response.end();
  }

  private sendPng(response: ServerResponse, png: Buffer): void {
    response.writeHead(200, {
      'content-type': 'image/png',
      'content-length': png.length,
      'cache-control': 'no-store',
    });
    response.end(png);
  }
}

/** LiteLLM passes no `Retry-After` on: every answer goes out without it. */
function dropRetryAfter(response: ServerResponse): void {
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  (response as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args) => {
    response.removeHeader('retry-after');
    for (const arg of args)
      if (isRecord(arg))
        for (const name of Object.keys(arg)) if (name.toLowerCase() === 'retry-after') delete arg[name];
    return writeHead(...args);
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

export async function startGatewaySimulator(options: SimulatorOptions = {}): Promise<GatewaySimulator> {
  return new GatewaySimulator(options).listen();
}
