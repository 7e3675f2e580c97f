/**
 * Workspace files the extension reads on its own, through the one bounded reader
 * (`boundedRead`), and the word to the user when one is skipped: what, where and why, once per
 * file and reason in a window (a chat reads instruction files on every turn).
 */
import type * as vscode from 'vscode';
import { readBounded } from './boundedRead';
import type { BoundedRead } from './boundedRead';
import { readUriBounded } from './boundedUriRead';
import { notify } from './notify';
import { HOST_PLATFORM } from './platform';

/**
 * `uri` read whole if it is a regular file within `maxBytes`. A `file:` URI on the desktop goes
 * through `readBounded` (real path, regular file, never more than the cap read); another scheme
 * (a virtual workspace), and every file in VS Code for the Web, through `vscode.workspace.fs`
 * (`readUriBounded`: its type and size first, and what it gives checked again).
 */
export async function readWorkspaceFile(uri: vscode.Uri, maxBytes: number): Promise<BoundedRead> {
  if (uri.scheme === 'file' && HOST_PLATFORM.kind === 'node') return readBounded(uri.fsPath, maxBytes);
  return readUriBounded(uri, maxBytes);
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
