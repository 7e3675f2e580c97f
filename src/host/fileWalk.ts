/**
 * Finding files by walking `vscode.workspace.fs`, for where no search provider answers
 * `findFiles` (a virtual workspace in VS Code for the Web). Bounded like `findFiles` with a
 * limit: at most `limit` files, at most `scanLimit` entries looked at, at most `budgetMs` of
 * time; folders an exclude glob names are never entered, nor `.git`, nor a link to a folder (a
 * loop). The matching runs in slices of a few milliseconds, so the extension host stays
 * responsive.
 */
import * as vscode from 'vscode';
import { inGitFolder } from '../core/agent/workspacePaths';
import { compileGlob, globMatches } from '../core/inline/exclude';
import type { CompiledGlob } from '../core/inline/exclude';

export interface WalkOptions {
  /** The workspace folder: exclude globs are relative to it. */
  folder: vscode.Uri;
  /** Where to start (the folder, or a folder inside it): `glob` is relative to it. */
  base: vscode.Uri;
  glob: string;
  /** Globs of files and folders to leave out, relative to `folder` (`files.exclude`, a `{a,b}` group). */
  exclude: readonly string[];
  limit: number;
  /** Most entries (files and folders) looked at. */
  scanLimit?: number;
  /** Most time spent, in milliseconds. */
  budgetMs?: number;
}

export const WALK_SCAN_LIMIT = 50_000;
export const WALK_BUDGET_MS = 10_000;
/** The longest the walk runs without letting the extension host do other work. */
const SLICE_MS = 8;

/** The globs of an exclude as `findFiles` takes it: one glob, or one `{a,b,c}` group of them. */
export function excludeGlobs(exclude: string | undefined): string[] {
  if (!exclude) return [];
  const group = /^\{([^{}]*)\}$/.exec(exclude);
  return group ? group[1].split(',').filter(Boolean) : [exclude];
}

/** Files under `base` matching `glob`, in the walk's order (breadth first); see the file's comment. */
export async function walkFiles(options: WalkOptions): Promise<vscode.Uri[]> {
  const glob = compileGlob(options.glob);
  if (!glob) return [];
  const excludes = options.exclude
    .map((pattern) => compileGlob(pattern))
    .filter((one): one is CompiledGlob => one !== undefined);
  const excluded = (relative: string) => excludes.some((one) => globMatches(one, relative));
  const scanLimit = options.scanLimit ?? WALK_SCAN_LIMIT;
  const deadline = Date.now() + (options.budgetMs ?? WALK_BUDGET_MS);
  const baseRelative = relativeTo(options.folder, options.base);
  if (baseRelative === undefined) return [];
  const found: vscode.Uri[] = [];
  // Each folder as its URI, its path relative to the workspace folder and to the base.
  const queue: Array<{ uri: vscode.Uri; relative: string; fromBase: string }> = [
    { uri: options.base, relative: baseRelative, fromBase: '' },
  ];
  let scanned = 0;
  let slice = Date.now();
  while (queue.length > 0 && found.length < options.limit && scanned < scanLimit) {
    if (Date.now() >= deadline) break;
    const dir = queue.shift()!;
    let entries: [string, vscode.FileType][] | 'late';
    try {
      entries = await beforeDeadline(vscode.workspace.fs.readDirectory(dir.uri), deadline);
    } catch {
      continue;
    }
    // A file system that does not answer (a remote repository's, stalled) ends the walk at its budget.
    if (entries === 'late') break;
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, type] of entries) {
      if (Date.now() - slice >= SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        slice = Date.now();
      }
      if (++scanned > scanLimit || found.length >= options.limit) break;
      const relative = dir.relative ? `${dir.relative}/${name}` : name;
      const fromBase = dir.fromBase ? `${dir.fromBase}/${name}` : name;
      if (excluded(relative) || inGitFolder(relative)) continue;
      const link = (type & vscode.FileType.SymbolicLink) !== 0;
      if (type & vscode.FileType.Directory) {
        if (!link) queue.push({ uri: vscode.Uri.joinPath(dir.uri, name), relative, fromBase });
      } else if (type & vscode.FileType.File && globMatches(glob, fromBase))
        found.push(vscode.Uri.joinPath(dir.uri, name));
    }
  }
  return found;
}

/** What `work` gives, or 'late' once `deadline` (epoch ms) passes first. */
function beforeDeadline<T>(work: Thenable<T>, deadline: number): Promise<T | 'late'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([Promise.resolve(work), late]).finally(() => clearTimeout(timer));
}

/** `inner`'s path relative to `outer` (same scheme and authority), '' for itself, or undefined. */
function relativeTo(outer: vscode.Uri, inner: vscode.Uri): string | undefined {
  if (outer.scheme !== inner.scheme || outer.authority !== inner.authority) return undefined;
  const root = outer.path.replace(/\/+$/, '');
  if (inner.path.replace(/\/+$/, '') === root) return '';
  return inner.path.startsWith(`${root}/`)
    ? inner.path.slice(root.length + 1).replace(/\/+$/, '')
    : undefined;
}

/**
 * What `findFiles` would find (`exclude` as it takes it: undefined for `files.exclude`), by a
 * bounded walk: where no search provider answers.
 */
export function findByWalking(
  where: { folder: vscode.Uri; base: vscode.Uri; glob: string },
  exclude: string | undefined,
  limit: number,
): Promise<vscode.Uri[]> {
  const filesExclude =
    vscode.workspace.getConfiguration('files', where.folder).get<Record<string, unknown>>('exclude') ?? {};
  const globs =
    exclude === undefined
      ? Object.entries(filesExclude)
          .filter(([, on]) => on === true)
          .map(([glob]) => glob)
      : excludeGlobs(exclude);
  return walkFiles({ ...where, exclude: globs, limit });
}
