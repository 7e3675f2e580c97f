/**
 * `boundedRead.ts` in VS Code for the Web: no disk, so a file is named by its URI
 * (`uri.toString()`) and read through `vscode.workspace.fs`, with the same results and reasons:
 * regular files only, the size asked first, never more than the cap kept.
 */
import * as vscode from 'vscode';
import { readUriBounded } from './boundedUriRead';
import type { BoundedRead } from './boundedResult';

export { overCap, sizeText, textOf } from './boundedResult';
export type { BoundedRead } from './boundedResult';

/** Reads the file whose URI is `file` whole if it is a regular file of at most `maxBytes`; otherwise says why not. */
export function readBounded(file: string, maxBytes: number): Promise<BoundedRead> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(file, true);
  } catch {
    return Promise.resolve({ ok: false, missing: true, reason: 'it does not exist' });
  }
  return readUriBounded(uri, maxBytes);
}
