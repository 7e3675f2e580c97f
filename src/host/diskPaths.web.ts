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

/**
 * Whether `relative` inside `folder` goes through a link: the folder itself, a folder on the way,
 * or the file. `workspace.fs` serves a link as what it leads to (its type has the SymbolicLink
 * bit) and cannot say where that is, so the tools refuse such a path rather than read or write
 * through it: on the desktop its real path would be judged (outside the workspace, a secret's).
 * A path that does not exist yet is no link. `seen` keeps answers across the files of one listing.
 */
export async function linkOnPath(
  folder: vscode.Uri,
  relative: string,
  seen = new Map<string, Promise<boolean>>(),
): Promise<boolean> {
  const parts = relative.split('/').filter((part) => part !== '');
  for (let i = 0; i <= parts.length; i++) {
    const key = parts.slice(0, i).join('/');
    let linked = seen.get(key);
    if (!linked) {
      linked = Promise.resolve(
        vscode.workspace.fs.stat(vscode.Uri.joinPath(folder, ...parts.slice(0, i))),
      ).then(
        (stat) => (stat.type & vscode.FileType.SymbolicLink) !== 0,
        () => false,
      );
      seen.set(key, linked);
    }
    if (await linked) return true;
  }
  return false;
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
