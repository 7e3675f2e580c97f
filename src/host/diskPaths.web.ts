/**
 * How the extension names workspace files by path in VS Code for the Web: any scheme a file
 * system provider serves (`vscode-vfs:` in github.dev, `file:` for a local folder in vscode.dev),
 * named by the URI's own path (never `fsPath`, which depends on the browser's OS). There is no disk
 * to ask, and `vscode.workspace.fs` has no links to resolve: a real path is the path itself.
 */
import * as vscode from 'vscode';
import { findByWalking } from './fileWalk';

export function pathScheme(uri: vscode.Uri): boolean {
  return uri.scheme !== 'untitled';
}

export function pathOf(uri: vscode.Uri): string {
  return uri.path;
}

export function uriOfPath(near: vscode.Uri, path: string): vscode.Uri {
  return near.with({ path, query: '', fragment: '' });
}

export function realPath(path: string): Promise<string> {
  return Promise.resolve(path);
}

export function realUriPath(uri: vscode.Uri): Promise<string> {
  return Promise.resolve(uri.path);
}

/** Workspace folders whose search provider has answered once: an empty answer there is believed. */
const searched = new Set<string>();

/**
 * VS Code's file search where a search provider answers (github.dev, a local folder in
 * vscode.dev); where none does (it fails, or has never found anything in the folder), a bounded
 * walk of `vscode.workspace.fs` that leaves out the same folders (`fileWalk.ts`).
 */
export async function findFiles(
  where: { folder: vscode.Uri; base: vscode.Uri; glob: string },
  exclude: string | undefined,
  limit: number,
): Promise<vscode.Uri[]> {
  const key = where.folder.toString();
  const found = await Promise.resolve(
    vscode.workspace.findFiles(new vscode.RelativePattern(where.base, where.glob), exclude, limit),
  ).then(
    (uris) => uris,
    () => undefined,
  );
  if (found && found.length > 0) searched.add(key);
  if (found && searched.has(key)) return found;
  return findByWalking(where, exclude, limit);
}
