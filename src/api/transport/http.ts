/**
 * One HTTP exchange with the gateway on undici: dispatcher per client (direct or through a proxy),
 * a deadline for connect + response headers, an idle limit while reading the body, and the
 * caller's AbortSignal (those, the caps and the errors are shared with the fetch transport:
 * exchange.ts). undici is loaded on first use so that importing the client costs nothing at
 * extension start-up. The browser build takes http.web.ts instead.
 */
import type { Dispatcher } from 'undici';
import { GatewayError } from '../errors';
import { HttpExchange, cancelled, requestBody, requestHeaders } from './exchange';
import type { HttpCall, Transport, TransportSettings } from './exchange';
import { proxyEnvironment, proxyUrlFor } from './proxy';
import { loadUndici } from './undiciParts';
import type { UndiciParts } from './undiciParts';

type ResponseBody = Dispatcher.ResponseData['body'];

/** The transport of the Node build. */
export function createTransport(settings: TransportSettings): Transport {
  return new HttpTransport(settings);
}

export class HttpTransport implements Transport {
  private readonly dispatchers = new Map<string, Dispatcher>();

  /**
   * `undici` loads the parts of undici on first use: in the package, from the sibling bundle
   * dist/undici.js (a test of that bundle passes its `loadUndici`).
   */
  constructor(
    private readonly settings: TransportSettings,
    private readonly undici: () => UndiciParts = loadUndici,
  ) {}

  /** Sends the request and resolves once response headers arrived (any status). */
  async open(call: HttpCall): Promise<HttpExchange> {
    if (call.signal?.aborted) throw cancelled();
    const dispatcher = this.dispatcherFor(call.url);
    const exchange = new UndiciExchange(call, this.settings);
    await exchange.send(
      this.undici().request,
      dispatcher,
      requestHeaders(call, this.settings.userAgent),
      requestBody(call),
    );
    return exchange;
  }

  /** Releases pooled connections; a later call opens new ones. */
  async close(): Promise<void> {
    const open = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(open.map((dispatcher) => dispatcher.close().catch(() => undefined)));
  }

  private dispatcherFor(url: URL): Dispatcher {
    const proxyUrl = proxyUrlFor(url, this.settings.proxy, proxyEnvironment());
    const key = proxyUrl ?? 'direct';
    let dispatcher = this.dispatchers.get(key);
    if (!dispatcher) {
      dispatcher = proxyUrl ? this.createProxyAgent(proxyUrl) : this.createAgent();
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  private createAgent(): Dispatcher {
    const { Agent } = this.undici();
    // undici's own header/body timeouts are off: ours (below) cover connect + headers as one
    // deadline and measure body idleness only while we are actually waiting for data.
    // A direct connection always checks the certificate: `strictSSL` (VS Code's
    // `http.proxyStrictSSL`) is about connections through a proxy, whose own certificate, or the
    // one it re-signs the gateway's with, a corporate network may not have in the usual CAs.
    return new Agent({
      connect: { timeout: this.settings.timeoutMs, rejectUnauthorized: true },
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  private createProxyAgent(proxyUrl: string): Dispatcher {
    const { ProxyAgent } = this.undici();
    try {
      const parsed = new URL(proxyUrl);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new Error('unsupported protocol');
    } catch {
      // The URL may carry proxy credentials (user:password@): never repeat that part.
      const shown = proxyUrl.replace(/\/\/[^/@]*@/, '//');
      throw new GatewayError({
        kind: 'config',
        message: `The proxy URL "${shown}" is not a valid http(s) URL.`,
      });
    }
    const tls = { rejectUnauthorized: this.strictSSL };
    return new ProxyAgent({
      uri: proxyUrl,
      requestTls: tls,
      proxyTls: tls,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** Whether connections through the proxy check certificates (direct ones always do). */
  private get strictSSL(): boolean {
    return this.settings.proxy?.strictSSL !== false;
  }
}

/** A request on undici and, once `send` resolved, its response. */
class UndiciExchange extends HttpExchange {
  private body: ResponseBody | undefined;
  private iterator: AsyncIterator<Uint8Array> | undefined;

  async send(
    request: UndiciParts['request'],
    dispatcher: Dispatcher,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<void> {
    await this.sendWithin(async (signal) => {
      const response = await request(dispatcher, this.call.url, {
        method: this.call.method,
        headers,
        body,
        signal,
      });
      this.status = response.statusCode;
      this.headers = response.headers;
      this.body = response.body;
    });
  }

  protected get hasBody(): boolean {
    return this.body !== undefined;
  }

  protected readPiece(): Promise<IteratorResult<Uint8Array>> {
    this.iterator ??= (this.body as ResponseBody)[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    return this.iterator.next();
  }

  protected release(): void {
    const body = this.body;
    // A body not read to its end cannot leave the socket reusable: destroying it closes the socket.
    // Its 'error' event (undici reports the abort as one) has nobody left to hear it.
    if (body && !body.readableEnded && !body.destroyed) body.on('error', ignore).destroy();
  }
}

function ignore(): void {
  // Deliberately empty.
}
