/** SSE data in the browser build: one bundle, so the parser is simply imported (see sse.ts). */
import { createParser } from 'eventsource-parser';
import { readSseDataWith } from './sseData';

/** Yields, per network read, the data strings of the events completed by it (see sseData.ts). */
export function readSseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  return readSseDataWith(createParser, chunks);
}
