import type { GatewayExtrasOptions } from './gatewayExtras';
import type { IncomingHttpHeaders } from 'node:http';
import type { OpenRouterQuirks } from './openRouterQuirks';

export interface MediaTimings {
  /** How long a new job reports `queued`. */
  queuedMs: number;
  /** How long it then reports `processing` before it completes (or fails). */
  processingMs: number;
  /**
   * Counted in status requests instead of time, for tests that assert the sequence of statuses
   * whatever the machine's load: the first `queuedPolls` GETs of a job answer `queued`, the next
   * `processingPolls` answer `processing`, the rest the end. Both must be given to count.
   */
  queuedPolls?: number;
  processingPolls?: number;
}

export interface SimulatorOptions {
  /** 0 (default): a free port. */
  port?: number;
  /**
   * The loopback address it listens on (default 127.0.0.1). The browser tests of sign-in use
   * another one: code-server rewrites what it opens on 127.0.0.1 or localhost to its own proxy.
   */
  host?: string;
  /** Pause between two streamed chunks, so a demo visibly streams. Default 5 ms; 0: as fast as possible. */
  chunkDelayMs?: number;
  mediaTimings?: Partial<MediaTimings>;
  /** Only these keys are accepted (401 otherwise). Default: any key. */
  validKeys?: string[];
  /** Other gateways' auth forms, required headers and `/model/info` (see gatewayExtras.ts). */
  extras?: GatewayExtrasOptions;
  /** Name of the simulated upstream provider, reported in chunks and errors. */
  providerName?: string;
  /** The catalog served at GET /v1/models (default: a few chat and media models). */
  models?: unknown[];
  /**
   * How every media job answers, as a real async media API does (see mediaShapes.ts); a job's
   * `#sim:shape:<name>` marker wins. Default: the simulator's own shape.
   */
  mediaShape?: import('./mediaShapes').MediaShape;
  /**
   * Which media API it speaks (see openRouterMedia.ts): its own `/v1/media` (default),
   * OpenRouter's (no `/v1/media`), or OpenAI's `/v1/images/generations` (no `/v1/media`).
   */
  mediaApi?: import('./openRouterMedia').MediaApi;
  /** The key's credit at GET /v1/key and /v1/credits; `null`: the gateway has no credit endpoints. */
  credits?: { limit: number | null; usage: number } | null;
  /** Answer with OpenRouter's quirks (see openRouterQuirks.ts); absent: the plain shapes. */
  openRouterQuirks?: OpenRouterQuirks;
  /**
   * Answer as another kind of gateway does (see dialectModes.ts): strict OpenAI, LiteLLM, or a
   * local server. Its base URL is then `baseUrl` (`…/v1`, or the bare origin for LiteLLM).
   */
  dialect?: import('./dialectModes').SimDialect;
  /**
   * How it answers browsers (see cors.ts): `allow` (default: preflights answered, every response
   * allows the request's Origin, no custom header exposed) or `refuse` (a gateway without CORS).
   */
  cors?: import('./cors').CorsMode;
}

/** An `image_url` part the simulator found in a chat request. */
export interface SeenImage {
  requestId: number;
  mimeType: string;
  bytes: number;
}

export interface RecordedRequest {
  /** 1, 2, ... in arrival order. */
  id: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** The query string (`?id=…`), when there was one. */
  query?: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, the raw text if it was not JSON, undefined when empty. */
  body: unknown;
  /** Date.now() at arrival. */
  time: number;
  /** Scenario names in force for this request, e.g. ['500-then-ok:2']. */
  scenarios: string[];
  /** Chat requests: how many `cache_control` marks their messages carried. */
  cacheMarks?: number;
  /** Chat requests with `tools`: the function names they declared. */
  offeredTools?: string[];
  /** Chat requests ending in `tool` messages: those results, with the names of the calls they answer. */
  toolMessages?: Array<{ callId: string; name: string; content: string }>;
  /** Scripted (`sim-agent`) chat requests: the 1-based step the simulator answered. */
  agentStep?: number;
  /** Scripted chat requests refused with 400: why (a tool conversation a provider would refuse). */
  wireProblem?: string;
  /** The request asked for a summary of earlier turns (compaction); the reply is a canned summary. */
  summaryOf?: number;
}

export interface ClosedConnection {
  requestId: number;
  path: string;
  time: number;
}

/** A request the second origin (results hosted elsewhere) received. */
export interface ResultOriginRequest {
  path: string;
  /** The Authorization header it carried: it must never carry one. */
  authorization?: string;
  /** Every header it carried: no gateway header may reach it either. */
  headers?: Record<string, string | string[] | undefined>;
}
