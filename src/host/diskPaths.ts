/**
 * How the extension names workspace files by path, on the desktop: `file:` URIs only, by their
 * path on disk (`fsPath`), with symbolic links resolved through the disk. The browser build picks
 * `diskPaths.web.ts`, where files are only reached through `vscode.workspace.fs`.
 */
import { realpath } from 'node:fs/promises';
import * as vscode from 'vscode';

/** Whether files under `uri` can be named by path and checked for links: on the desktop, `file:` only. */
export function pathScheme(uri: vscode.Uri): boolean {
  return uri.scheme === 'file';
}

/** The path a workspace file is judged by: its path on disk. */
export function pathOf(uri: vscode.Uri): string {
  return uri.fsPath;
}

/** The URI of a path `pathOf` gave for a file beside `near`. */
export function uriOfPath(near: vscode.Uri, path: string): vscode.Uri {
  void near;
  return vscode.Uri.file(path);
}

/** The real path of `path` (every link resolved); rejects when it does not exist. */
export function realPath(path: string): Promise<string> {
  return realpath(path);
}

/** The real path of a document or folder as a URI path (`/c:/x` on Windows), rejecting when it cannot be read. */
export async function realUriPath(uri: vscode.Uri): Promise<string> {
  return vscode.Uri.file(await realpath(uri.fsPath)).path;
}

/**
 * Whether `relative` inside `folder` goes through a link the platform cannot resolve. Never on the
 * desktop: there every path is judged by its real path instead (`realPath`).
 */
export function linkOnPath(
  folder: vscode.Uri,
  relative: string,
  seen?: Map<string, Promise<boolean>>,
): Promise<boolean> {
  void folder;
  void relative;
  void seen;
  return Promise.resolve(false);
}

/**
 * Files under `base` (inside the workspace folder `folder`) matching `glob`, as VS Code's file
 * search finds them: `exclude` in the form `findFiles` takes (undefined: `files.exclude`).
 */
export function findFiles(
  where: { folder: vscode.Uri; base: vscode.Uri; glob: string },
  exclude: string | undefined,
  limit: number,
): Thenable<vscode.Uri[]> {
  return vscode.workspace.findFiles(new vscode.RelativePattern(where.base, where.glob), exclude, limit);
}
