import { open } from 'node:fs/promises';
import type * as vscode from 'vscode';
import { readStart as readStartWhole } from './readStart.web';

/**
 * At most the first `maxBytes` of a file, and its whole size: a preview of a large text result
 * reads only what it shows. Files outside the local disk are read whole, then cut.
 */
export async function readStart(
  file: vscode.Uri,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; size: number }> {
  if (file.scheme !== 'file') return readStartWhole(file, maxBytes);
  const handle = await open(file.fsPath, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = new Uint8Array(Math.min(size, maxBytes));
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: buffer.subarray(0, read), size };
  } finally {
    await handle.close();
  }
}
