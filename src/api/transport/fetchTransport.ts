/**
 * One HTTP exchange with the gateway on the global `fetch`: the client's transport in every host.
 * In Node's extension host that `fetch` is VS Code's: it takes the proxy VS Code's settings, the
 * environment or the system name (`http.proxy`, `http.noProxy`, HTTPS_PROXY, PAC), never one for
 * `localhost`, `127.0.0.1` or `::1`, and trusts the system's certificates (`http.systemCertificates`);
 * in VS Code for the Web's web worker it is the browser's. Platform-neutral: no Node built-ins, no
 * Node types. The deadline, idle limit, caps, caller's signal, errors and log are exchange.ts's;
 * the body is read from `response.body`.
 *
 * What fetch cannot tell, it does not guess: a request that failed before any response is taken
 * as possibly sent (a POST that starts a job is not repeated) unless the failure itself proves
 * the connection never opened (Node's fetch names the socket error on a cause; a browser names
 * none).
 */
import { GatewayError } from '../errors';
import { HttpExchange, cancelled, errorCode, requestBody, requestHeaders } from './exchange';
import type { HttpCall, Transport, TransportSettings } from './exchange';

/** The client's transport. */
export function createTransport(settings: TransportSettings): Transport {
  return new FetchTransport(settings);
}

/** Sends with the global `fetch`, looked up at each request (VS Code may patch it after we load). */
export class FetchTransport implements Transport {
  /** Whether the log has said that the proxy setting does not apply in the browser. */
  private toldProxy = false;

  constructor(private readonly settings: TransportSettings) {}

  async open(call: HttpCall): Promise<HttpExchange> {
    if (call.signal?.aborted) throw cancelled();
    const exchange = new FetchExchange(call, this.settings);
    const browser = inBrowser();
    if (browser && !this.toldProxy && this.settings.proxy?.url?.trim()) {
      this.toldProxy = true;
      exchange.tell(
        'The proxy setting is not used here: requests go through the proxy of the browser or system.',
      );
    }
    // Browsers do not let a page set User-Agent (and where one does, it costs a CORS preflight
    // header the gateway must allow): left out there.
    const headers = requestHeaders(call, browser ? undefined : this.settings.userAgent);
    await exchange.send(headers, requestBody(call), browser);
    return exchange;
  }

  /** Nothing pooled of its own: the host's fetch keeps its connections. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Whether this runs in a browser-like global (a page or a web worker), where a failed fetch tells
 * nothing of why. Node has neither a document nor WorkerGlobalScope.
 */
export function inBrowser(): boolean {
  const global = globalThis as unknown as Record<string, unknown>;
  return typeof global.document === 'object' || typeof global.WorkerGlobalScope === 'function';
}

/**
 * The message for a fetch that failed without any response in a browser: the gateway is down, or
 * it refuses the cross-origin request the web extension host makes. Names what its admin must allow.
 */
export function unreachableFromBrowser(call: HttpCall): string {
  const auth =
    !call.apiKey || call.authHeader === 'none'
      ? []
      : [call.authHeader === 'api-key' ? 'api-key' : 'authorization'];
  const extra = Object.keys(call.extraHeaders ?? {}).map((name) => name.toLowerCase());
  const allowed = [...new Set([...auth, 'content-type', ...extra])];
  return (
    `Could not reach the gateway at ${call.url.host}: it is down, or it does not allow cross-origin requests from the editor's web origin. ` +
    `Its admin must answer the OPTIONS preflight and allow any origin (Access-Control-Allow-Origin: *, as the editor's origin changes), the headers ${allowed.join(', ')} and the methods GET and POST.`
  );
}

/** A request on fetch and, once `send` resolved, its response. */
class FetchExchange extends HttpExchange {
  private body: ReadableStream<Uint8Array> | null = null;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private ended = false;
  private browser = false;

  tell(note: string): void {
    this.note = note;
  }

  async send(headers: Record<string, string>, body: string | undefined, browser: boolean): Promise<void> {
    this.browser = browser;
    await this.sendWithin(async (signal) => {
      const response = await fetch(this.call.url, {
        method: this.call.method,
        headers,
        body,
        signal,
        // Redirects are the client's to follow (to check where they lead and where the key goes).
        redirect: 'manual',
        // No cookies of the editor's origin go to the gateway.
        credentials: 'omit',
      });
      if (signal.aborted) {
        // Given up while the host's fetch was still on its way (see `untilAborted`): nobody reads
        // this late response, so let its connection go.
        response.body?.cancel().catch(ignore);
        throw cancelled();
      }
      this.body = response.body;
      if (response.type === 'opaqueredirect') {
        // A browser hides a redirect's status and target from the page: it cannot be followed.
        throw new GatewayError({
          kind: 'invalid_response',
          message: `The gateway at ${this.call.url.host} answered with a redirect, which cannot be followed from the browser.`,
        });
      }
      this.status = response.status;
      const read: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        read[name.toLowerCase()] = value;
      });
      this.headers = read;
    });
  }

  protected get hasBody(): boolean {
    return this.body !== null;
  }

  protected async readPiece(): Promise<IteratorResult<Uint8Array>> {
    this.reader ??= (this.body as ReadableStream<Uint8Array>).getReader();
    const step = await this.reader.read();
    if (step.done) {
      this.ended = true;
      return { done: true, value: undefined };
    }
    return { done: false, value: step.value };
  }

  protected release(): void {
    if (this.ended || this.body === null) return;
    this.ended = true;
    // A body not read to its end: cancel the reader (or the stream, if never read) and abort the
    // request, which closes its connection.
    const cancelling = this.reader ? this.reader.cancel() : this.body.locked ? undefined : this.body.cancel();
    cancelling?.catch(ignore);
    this.controller.abort();
  }

  protected override toError(error: unknown, beforeResponse: boolean): GatewayError {
    // In a browser a failed fetch is a bare TypeError: down, or refused by CORS; it cannot tell.
    if (
      beforeResponse &&
      this.browser &&
      !this.stoppedBy &&
      error instanceof TypeError &&
      errorCode(error) === undefined
    ) {
      const failure = new GatewayError({
        kind: 'network',
        message: unreachableFromBrowser(this.call),
        cause: error,
      });
      return this.ownError(failure, { beforeResponse: true, neverSent: false });
    }
    return super.toError(error, beforeResponse);
  }
}

function ignore(): void {
  // Deliberately empty.
}
