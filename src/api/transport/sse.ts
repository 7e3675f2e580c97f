/**
 * Bytes of a `text/event-stream` response → the `data` of each event. Decoding is streaming, so
 * a UTF-8 character split across two network reads survives, and parsing is eventsource-parser's,
 * so comments (`: OPENROUTER PROCESSING`), `\r\n` line ends and events split anywhere are handled
 * as the SSE specification says.
 */
import type { EventSourceMessage, ParseError } from 'eventsource-parser';
import { GatewayError } from '../errors';

type EventSourceParserModule = typeof import('eventsource-parser');

let parserModule: EventSourceParserModule | undefined;
function loadParser(): EventSourceParserModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  parserModule ??= require('eventsource-parser') as EventSourceParserModule;
  return parserModule;
}

/** An event larger than this is not a chat chunk; stop before it exhausts memory. */
const MAX_EVENT_CHARS = 32 * 1024 * 1024;

/**
 * Yields, per network read, the data strings of the events completed by it (often none, often
 * many: batching keeps the per-event cost low on fast streams).
 */
export async function* readSseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let pending: string[] = [];
  let parseError: ParseError | undefined;
  const parser = loadParser().createParser({
    onEvent: (event: EventSourceMessage) => {
      pending.push(event.data);
    },
    onError: (error: ParseError) => {
      // Unknown fields are allowed by the spec and ignored; only an overflow is fatal.
      if (error.type === 'max-buffer-size-exceeded') parseError = error;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });

  const take = (): string[] => {
    if (parseError) {
      throw new GatewayError({
        kind: 'invalid_response',
        message: 'The gateway sent a stream event too large to be a chat chunk; the reply was given up.',
      });
    }
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
  // Whatever an unterminated last event held still counts: end its line and the event.
  parser.feed(`${decoder.decode()}\n\n`);
  const last = take();
  if (last.length > 0) yield last;
}
