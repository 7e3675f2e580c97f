/**
 * Our MCP client, over any transport: the handshake (`initialize`, then `notifications/initialized`),
 * `tools/list` with its pages, `tools/call`, answers to the server's `ping`, and its
 * `notifications/tools/list_changed`. Requests end in time or on abort (the server is told with
 * `notifications/cancelled`); a JSON-RPC error reply becomes an `McpError`. Every message from the
 * server passes `parseMcpMessages` first; what does not parse is reported, never thrown.
 *
 * No `vscode` and no Node here: the desktop's stdio and HTTP transports and the browser's HTTP one
 * all run this.
 */
import type { JsonRpcId, McpServerMessage } from './mcpMessages';
import {
  MCP_PROTOCOL_VERSIONS,
  parseInitializeResult,
  parseMcpMessages,
  parseToolsPage,
} from './mcpMessages';

/** A message we send: a request, a notification or a reply to the server's request. */
export type McpOutgoing = Record<string, unknown> & { jsonrpc: '2.0' };

/** Where a transport delivers what the server sends. */
export interface McpTransportSink {
  /** One message's JSON text (or a batch's), as received: parsed by the session. */
  message(text: string): void;
  /** Something the transport could not read (an overlong line, a broken stream). */
  problem(reason: string): void;
  /** The connection ended without `close()`. */
  closed(reason: string): void;
}

export interface McpTransport {
  start(sink: McpTransportSink): Promise<void>;
  /**
   * Sends one message. A transport whose replies come back on the request itself (HTTP) resolves
   * once the reply's body has been read, so an answer that never came is known then; `signal`
   * ends the exchange.
   */
  send(message: McpOutgoing, signal: AbortSignal): Promise<void>;
  /** True when `send` resolving means every reply to that message has arrived (HTTP). */
  readonly repliesInline: boolean;
  /** The version the handshake agreed, for a transport that sends it along (HTTP). */
  setProtocolVersion?(version: string): void;
  /** The handshake is done: a transport may now open the server's own stream (HTTP). */
  ready?(): void;
  close(): Promise<void>;
}

export interface McpSessionOptions {
  clientName: string;
  clientVersion: string;
  onToolsChanged(): void;
  /** The connection ended without `close()`. */
  onClosed(reason: string): void;
  /** A message of the server's that was not understood (for the log). */
  onProblem(reason: string): void;
  /** How long a request other than a tool call, and a tool call, may take (tests shorten them). */
  requestTimeoutMs?: number;
  callTimeoutMs?: number;
}

/** The server answered a request with a JSON-RPC error. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'McpError';
  }
}

/** Most pages and tools `listTools` reads: a server that keeps paging is cut off there. */
export const MAX_TOOL_PAGES = 50;
export const MAX_TOOLS = 2_000;
/** How long a request other than a tool call may take. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** How long a tool call may run before the client gives up on it (Stop ends it sooner). */
export const CALL_TIMEOUT_MS = 10 * 60_000;
/**
 * Most of the server's own requests answered at once: one that floods us with pings and never
 * takes the answers (over HTTP, a POST each, held open) gets no more than this, the rest unanswered.
 */
export const MAX_SERVER_REQUESTS_ANSWERING = 8;

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

export class McpSession {
  private nextId = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  private closing = false;
  /** The handshake is done: an end from now on is the server stopping, not a failed start. */
  private connected = false;
  private ended: string | undefined;
  /** The last message not understood, named in the error of a request that then gets no answer. */
  private lastProblem: string | undefined;
  /** Our answers to the server's requests not yet sent. */
  private answering = 0;
  /** `tools/list` runs in progress, and whether the server said its tools changed since one began. */
  private listing = 0;
  private toolsChanged = false;

  constructor(
    private readonly transport: McpTransport,
    private readonly options: McpSessionOptions,
  ) {}

  /** Starts the transport and shakes hands; rejects (after closing) when that fails or takes longer than `timeoutMs`. */
  async connect(timeoutMs: number): Promise<void> {
    const sink: McpTransportSink = {
      message: (text) => this.receive(text),
      problem: (reason) => this.problem(reason),
      closed: (reason) => this.end(reason),
    };
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`the server did not answer within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
    try {
      await withAbort(this.transport.start(sink), controller.signal);
      const result = await this.request(
        'initialize',
        {
          protocolVersion: MCP_PROTOCOL_VERSIONS[0],
          capabilities: {},
          clientInfo: { name: this.options.clientName, version: this.options.clientVersion },
        },
        controller.signal,
        timeoutMs,
      );
      const agreed = parseInitializeResult(result);
      if (typeof agreed === 'string') throw new Error(`the server cannot be used: ${agreed}`);
      this.transport.setProtocolVersion?.(agreed.protocolVersion);
      await this.notify('notifications/initialized', {}, controller.signal);
      this.connected = true;
      this.transport.ready?.();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw controller.signal.aborted ? abortReason(controller.signal) : error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every tool the server lists, over its pages (bounded), as raw entries for `parseExternalTools`. */
  async listTools(signal?: AbortSignal): Promise<unknown[]> {
    this.listing++;
    // What this listing reads is newer than any notice so far.
    this.toolsChanged = false;
    try {
      return await this.listPages(signal);
    } finally {
      this.listing--;
      // A notice heard while listing may be about tools the pages already read past: once more.
      if (!this.listing && this.toolsChanged && !this.closing && this.ended === undefined)
        this.options.onToolsChanged();
    }
  }

  private async listPages(signal: AbortSignal | undefined): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (let page = 0; page < MAX_TOOL_PAGES && tools.length < MAX_TOOLS; page++) {
      const result = await this.request(
        'tools/list',
        cursor ? { cursor } : {},
        signal,
        this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      );
      const parsed = parseToolsPage(result);
      if (typeof parsed === 'string') throw new Error(`the server's reply was not understood: ${parsed}`);
      tools.push(...parsed.tools.slice(0, MAX_TOOLS - tools.length));
      cursor = parsed.nextCursor;
      // A cursor seen before would page forever.
      if (!cursor || seen.has(cursor)) break;
      seen.add(cursor);
    }
    return tools;
  }

  /** The raw `CallToolResult` (outside data: `toolResultText` reads it). */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    return this.request(
      'tools/call',
      { name, arguments: args },
      signal,
      this.options.callTimeoutMs ?? CALL_TIMEOUT_MS,
    );
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.failAll(new Error('the connection was closed'));
    await this.transport.close();
  }

  private request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    if (this.closing || this.ended !== undefined)
      return Promise.reject(new Error(`the connection has ended${this.ended ? `: ${this.ended}` : ''}`));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = this.nextId++;
    const exchange = new AbortController();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        exchange.abort();
      };
      const cancel = (error: Error, reason: string) => {
        if (!this.pending.has(id)) return;
        settle();
        reject(error);
        // The exchange is over for us: the server may stop working on it (never on initialize).
        if (method !== 'initialize')
          void this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => undefined);
      };
      const onAbort = () => cancel(abortReason(signal!), 'the user stopped it');
      const timer = setTimeout(
        () =>
          cancel(
            new Error(
              `the server did not answer ${method} within ${Math.round(timeoutMs / 1000)} s${this.problemNote()}`,
            ),
            'timed out',
          ),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        method,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.transport.send({ jsonrpc: '2.0', id, method, params }, exchange.signal).then(
        () => {
          // Over HTTP the reply came with the request, or never will.
          if (this.transport.repliesInline && this.pending.has(id))
            this.pending
              .get(id)
              ?.reject(new Error(`the server's reply to ${method} held no answer${this.problemNote()}`));
        },
        (error: unknown) => {
          if (this.pending.has(id)) this.pending.get(id)?.reject(asError(error));
        },
      );
    });
  }

  private notify(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    if (this.ended !== undefined) return Promise.resolve();
    return this.transport.send({ jsonrpc: '2.0', method, params }, signal ?? this.sendBound());
  }

  /** A message that expects no answer gets as long as a request would: a server cannot hold it open forever. */
  private sendBound(): AbortSignal {
    return AbortSignal.timeout(this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  }

  private receive(text: string): void {
    const parsed = parseMcpMessages(text);
    if (!parsed.ok) {
      this.problem(`the server sent ${parsed.reason}`);
      return;
    }
    for (const message of parsed.messages) this.handle(message);
  }

  private handle(message: McpServerMessage): void {
    switch (message.kind) {
      case 'result':
        this.pending.get(message.id)?.resolve(message.result);
        return;
      case 'error': {
        const pending = message.id === null ? undefined : this.pending.get(message.id);
        if (pending)
          pending.reject(
            new McpError(
              message.code,
              `the server answered ${pending.method} with an error: ${message.message}`,
            ),
          );
        else this.problem(`the server sent an error for no request of ours: ${message.message}`);
        return;
      }
      case 'request':
        if (this.answering >= MAX_SERVER_REQUESTS_ANSWERING) {
          this.problem(
            `the server sent more than ${MAX_SERVER_REQUESTS_ANSWERING} requests at once; its "${message.method}" is left unanswered`,
          );
          return;
        }
        this.answering++;
        // We offer no capabilities, so the one request a server may send us is `ping`.
        void this.transport
          .send(
            message.method === 'ping'
              ? { jsonrpc: '2.0', id: message.id, result: {} }
              : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } },
            this.sendBound(),
          )
          .catch(() => undefined)
          .finally(() => this.answering--);
        return;
      case 'notification':
        if (message.method === 'notifications/tools/list_changed') this.heardToolsChanged();
        return;
    }
  }

  /**
   * The server says its tools changed: heard once until a listing begins, and not while one runs
   * (its end hears it then), so a flood of notices is one listing at a time, never one each.
   */
  private heardToolsChanged(): void {
    if (this.toolsChanged) return;
    this.toolsChanged = true;
    if (!this.listing) this.options.onToolsChanged();
  }

  private problem(reason: string): void {
    this.lastProblem = reason;
    this.options.onProblem(reason);
  }

  private problemNote(): string {
    return this.lastProblem ? ` (it sent something not understood: ${this.lastProblem})` : '';
  }

  private end(reason: string): void {
    if (this.ended !== undefined) return;
    this.ended = reason;
    this.failAll(new Error(`the server stopped: ${reason}`));
    if (!this.closing && this.connected) this.options.onClosed(reason);
  }

  private failAll(error: Error): void {
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Why `signal` aborted, as an Error (an `AbortError` when it gave no Error). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error('The operation was aborted.');
  error.name = 'AbortError';
  return error;
}

/** `promise`, or the signal's reason once it aborts. */
function withAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(asError(error));
      },
    );
  });
}
