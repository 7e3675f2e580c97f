/**
 * The one reader for a workspace file the extension reads on its own (`.vscode/mcp.json`,
 * instruction and agent files, settings it parses, `.gitignore`s): a repository chooses what
 * these are, and may make one a link to `/dev/zero`, a FIFO that never ends, or a 1 GB file.
 *
 * - The file is opened by its real path (no link in it), without following a link swapped in
 *   since, and without waiting on a FIFO's writer.
 * - What was opened must be a regular file: not a FIFO, device, socket or folder.
 * - Its size (asked of the opened file) must be within the cap; and however large it says it is
 *   (files of `/proc` say 0, a growing file says less than it holds), at most cap + 1 bytes are
 *   read: one byte more means it is over.
 *
 * A refusal says why, in words for the user. No `vscode` here: tested on plain Node.
 */
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { overCap, sizeText } from './boundedResult';
import type { BoundedRead } from './boundedResult';

export { overCap, sizeText, textOf } from './boundedResult';
export type { BoundedRead } from './boundedResult';

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

// Where the platform has them (not on Windows): no link at the last step, no wait on a FIFO.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Reads `file` whole if it is a regular file of at most `maxBytes`; otherwise says why not. */
export async function readBounded(file: string, maxBytes: number): Promise<BoundedRead> {
  const over = (size: string) => overCap(size, maxBytes);
  let real: string;
  try {
    real = await realpath(file);
  } catch (error) {
    return failure(error);
  }
  let handle: FileHandle | undefined;
  try {
    handle = await open(real, OPEN_FLAGS);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      const kind = kindOf(stat);
      const target = real === file ? '' : ` (it links to ${real})`;
      return { ok: false, missing: false, reason: `it is ${kind}, not a regular file${target}` };
    }
    if (stat.size > maxBytes) return over(sizeText(stat.size));
    // Room for what it says it holds and one byte more, grown (up to cap + 1) if it holds more.
    let bytes = new Uint8Array(Math.min(maxBytes, stat.size) + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        if (bytes.length > maxBytes) break;
        const grown = new Uint8Array(Math.min(maxBytes + 1, bytes.length * 2 + 4096));
        grown.set(bytes);
        bytes = grown;
      }
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) return over(`larger than its size says (more than ${sizeText(maxBytes)})`);
    return { ok: true, bytes: bytes.slice(0, length), realPath: real };
  } catch (error) {
    return failure(error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function failure(error: unknown): BoundedRead {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return { ok: false, missing: true, reason: 'it does not exist' };
  if (code === 'ELOOP') return { ok: false, missing: false, reason: 'it became a link while it was read' };
  // Opening a socket, or a device without a driver.
  if (code === 'ENXIO')
    return { ok: false, missing: false, reason: 'it is a socket or a device, not a regular file' };
  if (code === 'EAGAIN' || code === 'EWOULDBLOCK')
    return { ok: false, missing: false, reason: 'it cannot be read without waiting (not a regular file)' };
  return {
    ok: false,
    missing: false,
    reason: `it could not be read (${code ?? (error instanceof Error ? error.message : String(error))})`,
  };
}
