/**
 * SSE data in the Node build: the parser is loaded by the first stream, so importing the client
 * costs nothing at extension start-up. The reading itself is sseData.ts.
 */
import { readSseDataWith } from './sseData';
import type { CreateParser } from './sseData';

let createParser: CreateParser | undefined;

/** Yields, per network read, the data strings of the events completed by it (see sseData.ts). */
export function readSseData(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  createParser ??= (require('eventsource-parser') as typeof import('eventsource-parser')).createParser;
  return readSseDataWith(createParser, chunks);
}
