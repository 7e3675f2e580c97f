/**
 * MCP's Streamable HTTP transport over `fetch` (Node's and the browser's alike): each message is a
 * POST; the reply is JSON or an event stream, read within bounds. The `Mcp-Session-Id` of the
 * initialize reply goes with every later request, with `MCP-Protocol-Version`; closing ends the
 * session with a DELETE. The configuration's headers go with every request, under ours; a redirect
 * is refused (the user agreed to this URL, and its headers may carry a token). After the handshake
 * the server's own stream (a GET) is opened once, for what it sends unasked (that its tools
 * changed, a ping); a server without one answers 405. It is not opened again when it ends.
 */
import { MAX_MCP_MESSAGE_CHARS, preview } from './mcpMessages';
import { abortReason } from './mcpSession';
import type { McpOutgoing, McpTransport, McpTransportSink } from './mcpSession';

/** The `fetch` the transport calls (the host's own; tests pass theirs). */
export type McpFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Most bytes one reply (a JSON body or one request's event stream) may hold. */
export const MAX_MCP_REPLY_BYTES = 2 * MAX_MCP_MESSAGE_CHARS;
/** How long the DELETE that ends a session may take. */
const CLOSE_TIMEOUT_MS = 2_000;
const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;

export class McpHttpTransport implements McpTransport {
  readonly repliesInline = true;
  private sink: McpTransportSink | undefined;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly open = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly fetch: McpFetch,
  ) {}

  start(sink: McpTransportSink): Promise<void> {
    this.sink = sink;
    return Promise.resolve();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  ready(): void {
    void this.listen();
  }

  /** The server's own stream, read until it ends or the connection closes; each event bounded. */
  private async listen(): Promise<void> {
    if (this.closed) return;
    const controller = new AbortController();
    this.open.add(controller);
    try {
      const headers = this.requestHeaders();
      headers.set('accept', 'text/event-stream');
      const response = await this.fetch(this.url, {
        method: 'GET',
        headers,
        redirect: 'error',
        signal: controller.signal,
      });
      const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (!response.ok || type !== 'text/event-stream' || !response.body) {
        // None offered (405, or another refusal): the server sends everything in its replies.
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      await readEvents(response.body, (data) => this.deliver(data), Number.POSITIVE_INFINITY);
    } catch (error) {
      if (!controller.signal.aborted) this.sink?.problem(`its own stream broke: ${describe(error).message}`);
    } finally {
      this.open.delete(controller);
    }
  }

  async send(message: McpOutgoing, signal: AbortSignal): Promise<void> {
    if (this.closed) throw new Error('the connection was closed');
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.open.add(controller);
    try {
      const headers = this.requestHeaders();
      headers.set('content-type', 'application/json');
      headers.set('accept', 'application/json, text/event-stream');
      const response = await this.fetch(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(message),
        redirect: 'error',
        signal: controller.signal,
      });
      const sessionId = response.headers.get('mcp-session-id');
      if (sessionId !== null && this.sessionId === undefined && message.method === 'initialize') {
        if (!SESSION_ID.test(sessionId))
          throw new Error('the server gave a session id that is not visible ASCII');
        this.sessionId = sessionId;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        if (response.status === 404 && this.sessionId !== undefined)
          throw new Error('the server ended the session (HTTP 404); turn the server off and on again');
        throw new Error(`the server answered HTTP ${response.status}${statusText(response)}`);
      }
      if (response.status === 202 || !response.body) return;
      const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (type === 'application/json') this.deliver(await readText(response.body, MAX_MCP_REPLY_BYTES));
      else if (type === 'text/event-stream') await readEvents(response.body, (data) => this.deliver(data));
      else {
        await response.body.cancel().catch(() => undefined);
        // A notification or a reply of ours needs no answer; anything else does.
        if ('id' in message && 'method' in message)
          throw new Error(`the server answered with "${preview(type)}", not JSON or an event stream`);
      }
    } catch (error) {
      if (controller.signal.aborted && signal.aborted) throw abortReason(signal);
      throw describe(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.open.delete(controller);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
    if (this.sessionId === undefined) return;
    // The server may free the session now; one that does not allow it says 405, which is fine.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), CLOSE_TIMEOUT_MS);
    try {
      const response = await this.fetch(this.url, {
        method: 'DELETE',
        headers: this.requestHeaders(),
        redirect: 'error',
        signal: controller.signal,
      });
      await response.body?.cancel().catch(() => undefined);
    } catch {
      // The session ends on the server's side in time anyway.
    } finally {
      clearTimeout(timer);
    }
  }

  /** The configuration's headers, then ours. */
  private requestHeaders(): Headers {
    const headers = new Headers(this.headers);
    if (this.sessionId !== undefined) headers.set('mcp-session-id', this.sessionId);
    if (this.protocolVersion !== undefined) headers.set('mcp-protocol-version', this.protocolVersion);
    return headers;
  }

  private deliver(text: string): void {
    if (text.trim()) this.sink?.message(text);
  }
}

function statusText(response: Response): string {
  const text = preview(response.statusText);
  return response.statusText && text !== 'empty' ? ` ${text}` : '';
}

/** A network failure says why; `fetch` itself only says "fetch failed". */
function describe(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const cause = (error as { cause?: unknown }).cause;
  if (error.message === 'fetch failed' && cause instanceof Error)
    return new Error(`the server could not be reached: ${cause.message}`);
  return error;
}

/** A body as UTF-8 text, refused past `maxBytes`. */
export async function readText(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new Error(`the server's reply is larger than ${maxBytes} bytes`);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
    if (size > maxBytes) await body.cancel().catch(() => undefined);
  }
  return text + decoder.decode();
}

/**
 * The data of each `message` event of an event stream, as it completes: fields per the SSE
 * specification (`data` lines joined, `event` names the type, comments and other fields skipped,
 * any line end), an event bounded by the message limit and the stream by `maxBytes`.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onData: (data: string) => void,
  maxBytes = MAX_MCP_REPLY_BYTES,
): Promise<void> {
  const parser = new SseParser(onData);
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new Error(`the server's event stream is larger than ${maxBytes} bytes`);
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    parser.end();
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/** Text of an event stream in, the data of each complete `message` event out. */
export class SseParser {
  private line = '';
  private data: string[] = [];
  private dataChars = 0;
  private event = '';
  private afterCr = false;

  constructor(private readonly onData: (data: string) => void) {}

  feed(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 && this.afterCr) {
        // The `\n` of a `\r\n` (maybe split across two reads) ends no second line.
        this.afterCr = false;
        start = i + 1;
        continue;
      }
      this.afterCr = c === 13;
      if (c !== 10 && c !== 13) continue;
      this.takeLine(this.line + text.slice(start, i));
      this.line = '';
      start = i + 1;
    }
    if (start < text.length) {
      this.line += text.slice(start);
      if (this.line.length > MAX_MCP_MESSAGE_CHARS)
        throw new Error(`the server sent an event line longer than ${MAX_MCP_MESSAGE_CHARS} characters`);
    }
  }

  /** A stream that ends without a blank line still completes its last event. */
  end(): void {
    if (this.line) this.takeLine(this.line);
    this.line = '';
    this.takeLine('');
  }

  private takeLine(line: string): void {
    if (line === '') {
      if (this.data.length && (this.event === '' || this.event === 'message'))
        this.onData(this.data.join('\n'));
      this.data = [];
      this.dataChars = 0;
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.dataChars += value.length + 1;
      if (this.dataChars > MAX_MCP_MESSAGE_CHARS)
        throw new Error(`the server sent an event larger than ${MAX_MCP_MESSAGE_CHARS} characters`);
      this.data.push(value);
    } else if (field === 'event') this.event = value;
  }
}
