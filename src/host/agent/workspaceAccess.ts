import * as vscode from 'vscode';
import { IgnoreMatcher, parseGitignore, sortIgnoreFiles } from '../../core/agent/gitignore';
import type { IgnoreFile } from '../../core/agent/gitignore';
import { ToolInputError } from '../../core/agent/types';
import {
  displayPath,
  inGitFolder,
  isAbsolutePath,
  normalizeSegments,
  offLimitsPath,
  relativeInside,
  resolveWorkspacePath,
} from '../../core/agent/workspacePaths';
import type { ResolvedPath, WorkspaceFolderPath } from '../../core/agent/workspacePaths';
import { excludedByAny, expandBraces } from '../../core/inline/exclude';
import { judgeFolder } from './paths/folderRules';
import { textOf } from '../boundedRead';
import * as disk from '../diskPaths';
import { readWorkspaceFile } from '../workspaceFile';

/**
 * The agent's view of the workspace: every path the model names resolved inside a workspace
 * folder (lexically, then by its real path, so a symlink cannot lead out), folders judged by their
 * real path (a link to the home folder is the home folder), files that may hold secrets refused by
 * every name they have, and listings that honour `files.exclude` and `.gitignore`.
 */

export interface Located {
  uri: vscode.Uri;
  folder: number;
  /** The folder's URI: what a recorded change names, so undo writes there or nowhere. */
  folderUri: string;
  /** Relative to its folder, `/` separators; '' for the folder itself. */
  relative: string;
  /** As the model is shown it (with the folder's name when there are several). */
  display: string;
  /** Its real path on disk when located (symlinks resolved; the missing rest appended). */
  real: string;
  /**
   * The real path relative to the real workspace folder it lies in: what the file is, whatever
   * name the model used (`docs/setup.md` linked to `.vscode/tasks.json` is `.vscode/tasks.json`).
   */
  realRelative: string;
}

export interface ListedFile {
  uri: vscode.Uri;
  folder: number;
  relative: string;
  display: string;
  /** Its absolute real path (a listed link is judged by what it leads to). */
  real?: string;
}

/** A workspace folder the tools may use, with its real path. */
interface UsableFolder {
  folder: vscode.WorkspaceFolder;
  real: string;
}

/**
 * How this platform names, resolves and finds the workspace's files: on the desktop `file:`
 * folders by their disk paths, links resolved (`diskPaths.ts`, `paths/folderRules.ts`); in
 * VS Code for the Web any folder `vscode.workspace.fs` serves, by its URI path, with no links
 * (their `.web.ts` variants, which the browser build picks).
 */
export type WorkspaceFs = Pick<
  typeof disk,
  'pathScheme' | 'pathOf' | 'realPath' | 'findFiles' | 'linkOnPath'
> & {
  judgeFolder: typeof judgeFolder;
};
const HOST_FS: WorkspaceFs = { ...disk, judgeFolder };

/** Most files one listing reads from VS Code (before .gitignore filters them). */
export const LIST_SCAN_LIMIT = 20_000;
/** The longest the listing runs without letting the extension host do other work. */
const SLICE_MS = 20;

export class WorkspaceAccess {
  constructor(
    private readonly folders: () => readonly vscode.WorkspaceFolder[],
    /** Globs of files never read, listed or searched (the built-in secrets list and the user's). */
    private readonly secretPatterns: () => readonly string[],
    /** This platform's (tests give the other's, to compare them on one folder). */
    private readonly fs: WorkspaceFs = HOST_FS,
  ) {}

  /**
   * The workspace folders the tools may use: on the desktop only folders on disk (other schemes
   * cannot be checked for symlinks; in the browser every scheme `workspace.fs` serves), and a folder too broad by its path as written or by its real path is left out (see
   * `broadFolderReason`: a disk's root, the home folder or above it, a settings folder in it, a
   * system folder). A `.code-workspace` can add a folder that is a link to any of them.
   */
  async workspaceFolders(): Promise<vscode.WorkspaceFolder[]> {
    return (await this.usable()).map((usable) => usable.folder);
  }

  private async usable(): Promise<UsableFolder[]> {
    return (await this.judged())
      .filter((judged) => !judged.why)
      .map(({ folder, real }) => ({ folder, real }));
  }

  /** Every folder on disk, with its real path and why it is too broad, if it is. */
  private async judged(): Promise<Array<UsableFolder & { why?: string }>> {
    return Promise.all(
      this.folders()
        .filter((folder) => this.fs.pathScheme(folder.uri))
        .map(async (folder) => ({ folder, ...(await this.fs.judgeFolder(this.fs.pathOf(folder.uri))) })),
    );
  }

  /** Whether the tools keep off a file, named by any of its paths: a possible secret, or inside `.git`. */
  offLimits(...paths: string[]): boolean {
    return offLimitsPath(paths, this.secretPatterns());
  }

  private paths(usable: readonly UsableFolder[]): WorkspaceFolderPath[] {
    return usable.map(({ folder }) => ({ name: folder.name, path: this.fs.pathOf(folder.uri) }));
  }

  /** The secrets pattern any of a file's paths (relative or absolute) matches, if any. */
  secretPattern(...paths: string[]): string | undefined {
    return excludedByAny(paths, this.secretPatterns());
  }

  /**
   * Resolves a path the model gave, or throws `ToolInputError`: outside the folders (by `..`, an
   * absolute path, or a symlink whose real path leaves them) or a file that may hold secrets, by
   * its path as given, its real path relative to its folder, or its absolute real path.
   */
  async locate(raw: string): Promise<Located> {
    const judged = await this.judged();
    const usable = judged.filter((one) => !one.why);
    const paths = this.paths(usable);
    const broad = judged.filter((one) => one.why);
    const leftOut = (message: string, named?: string) =>
      new ToolInputError(
        `${message} ${broad
          .filter((one) => named === undefined || one.folder.name === named)
          .map(
            (one) =>
              `The workspace folder "${this.fs.pathOf(one.folder.uri)}" is not used by the agent's tools: it is ${one.why}, where every key and token would be exposed.`,
          )
          .join(' ')} Open a project folder instead.`,
      );
    // A path that starts with the name of a folder left out means that folder, not a subfolder
    // of the first one.
    const first = normalizeSegments(raw.trim())?.[0];
    if (
      !isAbsolutePath(raw.trim()) &&
      first !== undefined &&
      broad.some((one) => one.folder.name === first) &&
      !usable.some((one) => one.folder.name === first)
    )
      throw leftOut(`"${raw.trim()}" is in a workspace folder the tools do not use.`, first);
    let resolved;
    try {
      resolved = resolveWorkspacePath(raw, paths);
    } catch (error) {
      if (!(error instanceof ToolInputError) || broad.length === 0) throw error;
      throw leftOut(error.message);
    }
    return this.judge(usable, resolved);
  }

  /** A resolved path checked by its real path: inside a usable folder, no secret, not in `.git`. */
  private async judge(usable: readonly UsableFolder[], resolved: ResolvedPath): Promise<Located> {
    const display = displayPath(resolved, this.paths(usable));
    this.refuseSecret(display, resolved.relative);
    const folder = usable[resolved.folder].folder;
    const uri = resolved.relative
      ? vscode.Uri.joinPath(folder.uri, ...resolved.relative.split('/'))
      : folder.uri;
    if (await this.fs.linkOnPath(folder.uri, resolved.relative))
      throw new ToolInputError(
        `"${display}" goes through a symbolic link, which the agent's tools do not follow here: where it leads cannot be checked in this window.`,
      );
    const real = await realPathOfNearest(this.fs.pathOf(uri), this.fs.realPath);
    const realRelative = usable
      .map((one) => relativeInside(one.real, real))
      .find((relative) => relative !== undefined);
    if (realRelative === undefined)
      throw new ToolInputError(
        `"${display}" leads outside the workspace folders through a symbolic link; only files inside them can be used.`,
      );
    this.refuseSecret(display, realRelative, real);
    return {
      uri,
      folder: resolved.folder,
      folderUri: folder.uri.toString(),
      relative: resolved.relative,
      display,
      real,
      realRelative,
    };
  }

  /**
   * Locates an approved file again just before it is written, and refuses when it now leads
   * elsewhere (a parent folder swapped for a symbolic link after the approval).
   */
  async relocate(file: Located, raw: string): Promise<void> {
    const again = await this.locate(raw);
    if (again.real !== file.real || again.uri.toString() !== file.uri.toString())
      throw new ToolInputError(
        `"${file.display}" now leads somewhere else than when it was approved (a folder on its path changed), so nothing was written.`,
      );
  }

  /**
   * A file a turn changed, named by its folder's URI and folder-relative path (as recorded), judged
   * as `locate` judges the model's paths: the folder still usable, the real path inside a
   * workspace folder, no secret or `.git` by any of its names. Throws `ToolInputError`.
   */
  async locateRecorded(folderUri: string, relative: string): Promise<Located> {
    const usable = await this.usable();
    const index = usable.findIndex((one) => one.folder.uri.toString() === folderUri);
    if (index < 0)
      throw new ToolInputError(
        `The workspace folder of ${relative} is not open in this window, or is not one the agent's tools use.`,
      );
    const parts = normalizeSegments(relative);
    // eslint-disable-next-line no-control-regex
    if (!parts || parts.length === 0 || isAbsolutePath(relative) || /[\u0000-\u001f]/.test(relative))
      throw new ToolInputError(`${relative} is not a path inside the workspace.`);
    return this.judge(usable, { folder: index, relative: parts.join('/') });
  }

  /** The real path of `path` (or of its nearest existing parent), relative to a real folder and absolute. */
  private async realRelative(
    path: string,
    roots: readonly string[],
  ): Promise<{ relative: string; real: string } | undefined> {
    const real = await realPathOfNearest(path, this.fs.realPath);
    const relative = roots.map((root) => relativeInside(root, real)).find((r) => r !== undefined);
    return relative === undefined ? undefined : { relative, real };
  }

  private refuseSecret(display: string, ...paths: string[]): void {
    if (paths.some((path) => inGitFolder(path)))
      throw new ToolInputError(
        `"${display}" is inside a .git folder: the agent's tools do not read, list, search or change git's own files (its config can run commands and hold tokens). Use git commands with run_command instead.`,
      );
    const pattern = this.secretPattern(...paths);
    if (pattern)
      throw new ToolInputError(
        `"${display}" may hold secrets (it matches "${pattern}"), so the agent's tools do not read, list, search or change it.`,
      );
  }

  /** The folder-relative display of a uri inside a workspace folder, or undefined. */
  async describe(
    uri: vscode.Uri,
  ): Promise<{ folder: number; relative: string; display: string } | undefined> {
    const usable = await this.usable();
    const paths = this.paths(usable);
    for (let folder = 0; folder < paths.length; folder++) {
      const { uri: root } = usable[folder].folder;
      if (root.scheme !== uri.scheme || root.authority !== uri.authority) continue;
      const relative = relativeInside(paths[folder].path, this.fs.pathOf(uri));
      if (relative !== undefined)
        return { folder, relative, display: displayPath({ folder, relative }, paths) };
    }
    return undefined;
  }

  /**
   * Files under `base` (a workspace folder or a folder in one) matching `glob`, with
   * `files.exclude`, every `.gitignore` and the secrets list applied; at most `limit`, sorted.
   */
  async listFiles(options: {
    base?: Located;
    glob?: string;
    limit: number;
  }): Promise<{ files: ListedFile[]; more: boolean; notice?: string }> {
    const usable = await this.usable();
    const folders = usable.map((one) => one.folder);
    const paths = this.paths(usable);
    const out: ListedFile[] = [];
    const notices: string[] = [];
    let more = false;
    const targets = options.base ? [options.base.folder] : folders.map((_, i) => i);
    for (const index of targets) {
      const folder = folders[index];
      const matcher = await this.ignoreMatcher(folder);
      const baseUri = options.base && options.base.folder === index ? options.base.uri : folder.uri;
      const uris = await this.fs.findFiles(
        { folder: folder.uri, base: baseUri, glob: options.glob ?? '**/*' },
        excludeGlob(matcher.files, folder),
        LIST_SCAN_LIMIT,
      );
      let slice = Date.now();
      for (let i = 0; i < uris.length; i++) {
        // Files are checked in slices of at most ~20 ms, so the extension host stays responsive.
        if (Date.now() - slice >= SLICE_MS) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          slice = Date.now();
        }
        const uri = uris[i];
        const relative = relativeInside(this.fs.pathOf(folder.uri), this.fs.pathOf(uri));
        if (relative === undefined || this.offLimits(relative) || matcher.ignored(relative)) continue;
        out.push({
          uri,
          folder: index,
          relative,
          display: displayPath({ folder: index, relative }, paths),
        });
      }
      const notice = matcher.notice();
      if (notice) notices.push(folders.length > 1 ? `${folder.name}: ${notice}` : notice);
    }
    out.sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
    // VS Code's file search follows symbolic links: keep only files whose real path stays inside
    // (and is no secret there), checked in order until the limit is reached.
    const roots = usable.map((one) => one.real);
    const kept: ListedFile[] = [];
    // Where links cannot be resolved (the browser), a file reached through one is left out.
    const links = folders.map(() => new Map<string, Promise<boolean>>());
    for (const file of out) {
      const real = await this.realRelative(this.fs.pathOf(file.uri), roots);
      if (real === undefined || this.offLimits(real.relative, real.real)) continue;
      if (await this.fs.linkOnPath(folders[file.folder].uri, file.relative, links[file.folder])) continue;
      if (kept.length === options.limit) {
        more = true;
        break;
      }
      kept.push({ ...file, real: real.real });
    }
    return { files: kept, more, ...(notices.length ? { notice: notices.join('; ') } : {}) };
  }

  /**
   * The folder's `.gitignore` files, root first (`files.exclude` applies to finding them), in a
   * matcher whose work is bounded.
   */
  private async ignoreMatcher(folder: vscode.WorkspaceFolder): Promise<IgnoreMatcher> {
    const uris = await this.fs.findFiles(
      { folder: folder.uri, base: folder.uri, glob: '**/.gitignore' },
      undefined,
      200,
    );
    const files: IgnoreFile[] = [];
    for (const uri of uris) {
      const relative = relativeInside(this.fs.pathOf(folder.uri), this.fs.pathOf(uri));
      if (relative === undefined) continue;
      // An unreadable .gitignore (a FIFO, a link to /dev/zero, over 512 KB) hides nothing.
      const read = await readWorkspaceFile(uri, 512 * 1024);
      if (read.ok) files.push(parseGitignore(textOf(read.bytes), relative.split('/').slice(0, -1).join('/')));
    }
    const all = new IgnoreMatcher(sortIgnoreFiles(files));
    // Files a .gitignore itself ignores (one inside node_modules) say nothing.
    const kept = all.files.filter((file) => !file.folder || !all.ignored(file.folder, true));
    return new IgnoreMatcher(kept, all.skipped);
  }
}

/** The real path of `path`, or of its nearest existing parent with the rest appended. */
async function realPathOfNearest(path: string, realpath: WorkspaceFs['realPath']): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (let i = 0; i < 256; i++) {
    try {
      const real = await realpath(current);
      return rest.length ? `${real.replace(/[\\/]+$/, '')}/${rest.reverse().join('/')}` : real;
    } catch {
      const cut = Math.max(current.lastIndexOf('/'), current.lastIndexOf('\\'));
      if (cut <= 0) return path;
      rest.push(current.slice(cut + 1));
      current = current.slice(0, cut);
    }
  }
  return path;
}

/**
 * `files.exclude` (what `findFiles` applies when given no exclude) joined with the folders the
 * `.gitignore` files name, so `node_modules` is not walked only to be filtered out. Only simple
 * rules are turned into globs, and none when a file re-includes anything; the exact `.gitignore`
 * check runs on what comes back either way.
 */
function excludeGlob(ignores: readonly IgnoreFile[], folder: vscode.WorkspaceFolder): string | undefined {
  const globs: string[] = [];
  const filesExclude =
    vscode.workspace.getConfiguration('files', folder.uri).get<Record<string, unknown>>('exclude') ?? {};
  const reincludes = ignores.some((file) => file.rules.some((rule) => rule.negated));
  // Without .gitignore rules to add, VS Code applies files.exclude itself, exactly.
  if (reincludes || ignores.length === 0) return undefined;
  // One brace group of alternatives: the globs inside it cannot have braces of their own.
  for (const [glob, on] of Object.entries(filesExclude))
    if (on === true) globs.push(...(expandBraces(glob) ?? []).filter((one) => !one.includes(',')));
  for (const file of ignores)
    for (const rule of file.rules) {
      if (/[{},[\]!\\]/.test(rule.pattern) || globs.length > 400) continue;
      const prefix = file.folder ? `${file.folder}/` : '';
      const at = rule.anchored ? `${prefix}${rule.pattern}` : `${prefix}**/${rule.pattern}`;
      globs.push(`${at}/**`);
      if (!rule.folderOnly) globs.push(at);
    }
  if (globs.length === 0) return undefined;
  return `{${globs.join(',')}}`;
}
