/**
 * Writes a planned event stream: batched for speed, paced for demos, cut into n-byte socket writes
 * for fragmentation tests, with `\r\n` line ends on request, and with the faults of the scenarios
 * (a dropped connection, a stall).
 */
import type { ServerResponse } from 'node:http';

export type SseItem =
  | { kind: 'data'; json: unknown }
  | { kind: 'comment'; text: string }
  /** Written as is: a malformed data line. */
  | { kind: 'raw'; text: string }
  | { kind: 'done' }
  /** Destroys the connection after flushing what came before. */
  | { kind: 'drop' }
  /** Stops writing forever (until the client gives up). */
  | { kind: 'stall' }
  /** Writes `make(n)` every `everyMs`, n = 0, 1, ..., until the client goes away (or 30 minutes). */
  | { kind: 'forever'; everyMs: number; make: (n: number) => SseItem };

export interface SseWriteOptions {
  /** Pause after each item; 0 writes everything in large batches. */
  delayMs: number;
  /** Write the byte stream this many bytes per socket write. */
  chunkBytes?: number;
  crlf: boolean;
  /** Called right before the simulator itself destroys the connection. */
  onDrop: () => void;
}

const BATCH_CHARS = 64 * 1024;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The bytes of items that involve no fault (`drop`/`stall` are not text). */
export function encodeSse(items: SseItem[], crlf: boolean): string {
  const eol = crlf ? '\r\n' : '\n';
  return items.map((item) => encodeItem(item, eol)).join('');
}

function encodeItem(item: SseItem, eol: string): string {
  switch (item.kind) {
    case 'data':
      return `data: ${JSON.stringify(item.json)}${eol}${eol}`;
    case 'comment':
      return `: ${item.text}${eol}${eol}`;
    case 'raw':
      return `${item.text}${eol}${eol}`;
    case 'done':
      return `data: [DONE]${eol}${eol}`;
    default:
      return '';
  }
}

/** Writes prepared stream bytes in large slices (or `chunkBytes` ones) and ends the response. */
export async function writeSseBytes(
  response: ServerResponse,
  bytes: Buffer,
  chunkBytes: number | undefined,
): Promise<void> {
  for (let offset = 0; offset < bytes.length && !response.destroyed; offset += BATCH_CHARS) {
    await writeBytes(response, bytes.subarray(offset, offset + BATCH_CHARS), chunkBytes);
  }
  if (!response.destroyed) response.end();
}

export async function writeSse(
  response: ServerResponse,
  items: SseItem[],
  options: SseWriteOptions,
): Promise<void> {
  const eol = options.crlf ? '\r\n' : '\n';
  let batch = '';
  const flush = async (): Promise<void> => {
    if (!batch) return;
    const text = batch;
    batch = '';
    await writeBytes(response, Buffer.from(text, 'utf8'), options.chunkBytes);
  };

  for (const item of items) {
    if (response.destroyed) return;
    switch (item.kind) {
      case 'drop':
        await flush();
        // Let the bytes reach the client before the connection goes.
        await sleep(20);
        options.onDrop();
        response.socket?.destroy();
        return;
      case 'stall':
        await flush();
        return;
      case 'forever': {
        await flush();
        const until = Date.now() + 30 * 60_000;
        for (let n = 0; !response.destroyed && Date.now() < until; n++) {
          await writeBytes(response, Buffer.from(encodeItem(item.make(n), eol), 'utf8'), options.chunkBytes);
          await sleep(item.everyMs);
        }
        return;
      }
      default:
        batch += encodeItem(item, eol);
    }
    if (options.delayMs > 0) {
      await flush();
      await sleep(options.delayMs);
    } else if (batch.length >= BATCH_CHARS) {
      await flush();
    }
  }
  await flush();
  if (!response.destroyed) response.end();
}

async function writeBytes(
  response: ServerResponse,
  bytes: Buffer,
  chunkBytes: number | undefined,
): Promise<void> {
  if (!chunkBytes) {
    if (!response.write(bytes)) await drained(response);
    return;
  }
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
    if (response.destroyed) return;
    const accepted = response.write(bytes.subarray(offset, offset + chunkBytes));
    // One write per turn of the event loop, so the pieces leave (and arrive) separately.
    if (accepted) await nextTurn();
    else await drained(response);
  }
}

/** Resolves when the response can take more bytes, or has closed. */
export function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
