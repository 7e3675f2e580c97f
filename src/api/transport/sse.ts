/**
 * Bytes of a `text/event-stream` response → the `data` of each event, as the SSE specification
 * (WHATWG HTML, "Server-sent events") has a client read them: lines end in CR, LF or CRLF, even
 * when the pair is split across two network reads; `:` starts a comment (`: OPENROUTER
 * PROCESSING`); `data` lines are joined with LF; a blank line ends an event, and an event without
 * data is not one. Decoding is streaming, so a UTF-8 character split across two reads survives,
 * and the decoder drops a leading byte order mark. The unit tier checks the parser against
 * eventsource-parser, event by event, on streams split anywhere.
 */
import { GatewayError } from '../errors';

/** An event larger than this is not a chat chunk; stop before it exhausts memory. */
const MAX_EVENT_CHARS = 32 * 1024 * 1024;

/**
 * What one `data` line costs beyond its characters, counted against the event's limit: its slot
 * in the list of lines and its string's header. Else a stream of empty `data` lines (5 bytes
 * each) would be held at about twice its size before the limit saw it.
 */
const LINE_COST = 16;

const LINE_END = /\r\n?|\n/g;

/** Reads SSE text fed in pieces, and hands over each event's data. */
export class SseParser {
  /** The unterminated end of what was fed so far. */
  private partial = '';
  /** A CR ended the last piece: an LF that starts the next one belongs to it. */
  private afterCr = false;
  private data: string[] = [];
  private dataChars = 0;

  constructor(
    private readonly onData: (data: string) => void,
    private readonly maxEventChars = MAX_EVENT_CHARS,
  ) {}

  feed(text: string): void {
    if (text.length === 0) return;
    let from = this.afterCr && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCr = false;
    LINE_END.lastIndex = from;
    for (let end = LINE_END.exec(text); end !== null; end = LINE_END.exec(text)) {
      // A CR at the very end may be the first half of a CRLF split across pieces.
      if (end[0] === '\r' && end.index === text.length - 1) this.afterCr = true;
      const line = this.partial + text.slice(from, end.index);
      this.partial = '';
      from = end.index + end[0].length;
      this.line(line);
    }
    this.partial += text.slice(from);
    if (this.partial.length + this.dataChars > this.maxEventChars) throw tooLarge();
  }

  /** The end of the stream: an unterminated last line and event still count. */
  end(): void {
    if (this.partial.length > 0) this.line(this.partial);
    this.partial = '';
    this.line('');
  }

  private line(line: string): void {
    if (line.length === 0) {
      if (this.data.length > 0) this.onData(this.data.join('\n'));
      this.data = [];
      this.dataChars = 0;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    // `event`, `id` and `retry` are the browser's EventSource's business; the client reads data.
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    this.data.push(value);
    this.dataChars += value.length + LINE_COST;
    if (this.dataChars > this.maxEventChars) throw tooLarge();
  }
}

function tooLarge(): GatewayError {
  return new GatewayError({
    kind: 'invalid_response',
    message: 'The gateway sent a stream event too large to be a chat chunk; the reply was given up.',
  });
}

/**
 * Yields, per network read, the data strings of the events completed by it (often none, often
 * many: batching keeps the per-event cost low on fast streams).
 */
export async function* readSseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let pending: string[] = [];
  const parser = new SseParser((data) => pending.push(data));
  const take = (): string[] => {
    const ready = pending;
    pending = [];
    return ready;
  };
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) parser.feed(text);
    const ready = take();
    if (ready.length > 0) yield ready;
  }
  parser.feed(decoder.decode());
  parser.end();
  const last = take();
  if (last.length > 0) yield last;
}
