/**
 * Workspace files the extension reads on its own, through the one bounded reader
 * (`boundedRead`), and the word to the user when one is skipped: what, where and why, once per
 * file and reason in a window (a chat reads instruction files on every turn).
 */
import * as vscode from 'vscode';
import { overCap, readBounded, sizeText } from './boundedRead';
import type { BoundedRead } from './boundedRead';
import { notify } from './notify';

/**
 * `uri` read whole if it is a regular file within `maxBytes`. A `file:` URI goes through
 * `readBounded` (real path, regular file, never more than the cap read); another scheme (a
 * virtual workspace) is asked its type and size first, and what it gives is checked again.
 */
export async function readWorkspaceFile(uri: vscode.Uri, maxBytes: number): Promise<BoundedRead> {
  if (uri.scheme === 'file') return readBounded(uri.fsPath, maxBytes);
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (!(stat.type & vscode.FileType.File))
      return { ok: false, missing: false, reason: 'it is not a regular file' };
    if (stat.size > maxBytes) return overCap(sizeText(stat.size), maxBytes);
    const bytes = await vscode.workspace.fs.readFile(uri);
    if (bytes.length > maxBytes) return overCap(sizeText(bytes.length), maxBytes);
    return { ok: true, bytes, realPath: uri.toString() };
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound')
      return { ok: false, missing: true, reason: 'it does not exist' };
    return { ok: false, missing: false, reason: `it could not be read (${String(error)})` };
  }
}

const told = new Set<string>();

/**
 * Logs that a workspace file was skipped and tells the user once (per file and reason, in this
 * window): "Gateway AI skipped the instruction file AGENTS.md: it is 1 GB, over the 256 KB limit."
 */
export function reportSkipped(
  logger: { warn(message: string): void },
  what: string,
  path: string,
  reason: string,
): void {
  const message = `Gateway AI skipped ${what} ${path}: ${reason}.`;
  const key = `${what}\u0000${path}\u0000${reason}`;
  if (told.has(key)) return;
  told.add(key);
  logger.warn(message);
  void notify.warn(message);
}
