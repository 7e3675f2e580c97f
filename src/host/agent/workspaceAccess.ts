import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { IgnoreMatcher, parseGitignore, sortIgnoreFiles } from '../../core/agent/gitignore';
import type { IgnoreFile } from '../../core/agent/gitignore';
import { ToolInputError } from '../../core/agent/types';
import {
  displayPath,
  inGitFolder,
  relativeInside,
  resolveWorkspacePath,
  tooBroadFolder,
} from '../../core/agent/workspacePaths';
import type { WorkspaceFolderPath } from '../../core/agent/workspacePaths';
import { excludedBy, expandBraces } from '../../core/inline/exclude';

/**
 * The agent's view of the workspace: every path the model names resolved inside a workspace
 * folder (lexically, then by its real path, so a symlink cannot lead out), files that may hold
 * secrets refused, and listings that honour `files.exclude` and `.gitignore`.
 */

export interface Located {
  uri: vscode.Uri;
  folder: number;
  /** Relative to its folder, `/` separators; '' for the folder itself. */
  relative: string;
  /** As the model is shown it (with the folder's name when there are several). */
  display: string;
  /** Its real path on disk when located (symlinks resolved; the missing rest appended). */
  real: string;
}

export interface ListedFile {
  uri: vscode.Uri;
  folder: number;
  relative: string;
  display: string;
}

/** Most files one listing reads from VS Code (before .gitignore filters them). */
export const LIST_SCAN_LIMIT = 20_000;
/** The longest the listing runs without letting the extension host do other work. */
const SLICE_MS = 20;

export class WorkspaceAccess {
  constructor(
    private readonly folders: () => readonly vscode.WorkspaceFolder[],
    /** Globs of files never read, listed or searched (the built-in secrets list and the user's). */
    private readonly secretPatterns: () => readonly string[],
  ) {}

  /**
   * The workspace folders on disk the tools may use: other schemes cannot be checked for symlinks,
   * and a folder that is a disk's root, the home folder or above it is too broad (see `broadFolders`).
   */
  workspaceFolders(): vscode.WorkspaceFolder[] {
    return this.folders().filter(
      (folder) => folder.uri.scheme === 'file' && !tooBroadFolder(folder.uri.fsPath, homedir()),
    );
  }

  /** Workspace folders left out for being a disk's root, the home folder or above it. */
  private broadFolders(): vscode.WorkspaceFolder[] {
    return this.folders().filter(
      (folder) => folder.uri.scheme === 'file' && tooBroadFolder(folder.uri.fsPath, homedir()),
    );
  }

  /** Whether the tools keep off a relative path: a possible secret, or inside `.git`. */
  offLimits(relative: string): boolean {
    return inGitFolder(relative) || this.secretPattern(relative) !== undefined;
  }

  private folderPaths(): WorkspaceFolderPath[] {
    return this.workspaceFolders().map((folder) => ({ name: folder.name, path: folder.uri.fsPath }));
  }

  /** The secrets pattern a relative path matches, if any. */
  secretPattern(relative: string): string | undefined {
    return relative ? excludedBy(relative, this.secretPatterns()) : undefined;
  }

  /**
   * Resolves a path the model gave, or throws `ToolInputError`: outside the folders (by `..`, an
   * absolute path, or a symlink whose real path leaves them) or a file that may hold secrets.
   */
  async locate(raw: string): Promise<Located> {
    const folders = this.workspaceFolders();
    const paths = this.folderPaths();
    let resolved;
    try {
      resolved = resolveWorkspacePath(raw, paths);
    } catch (error) {
      const broad = this.broadFolders();
      if (!(error instanceof ToolInputError) || broad.length === 0) throw error;
      throw new ToolInputError(
        `${error.message} The workspace folder${broad.length === 1 ? '' : 's'} ${broad.map((folder) => `"${folder.uri.fsPath}"`).join(', ')} ${broad.length === 1 ? 'is' : 'are'} not used by the agent's tools: a folder that is a disk's root, the home folder or above it would expose every key and token there. Open a project folder instead.`,
      );
    }
    const display = displayPath(resolved, paths);
    this.refuseSecret(resolved.relative, display);
    const uri = resolved.relative
      ? vscode.Uri.joinPath(folders[resolved.folder].uri, ...resolved.relative.split('/'))
      : folders[resolved.folder].uri;
    const real = await realPathOfNearest(uri.fsPath);
    const roots = await this.realRoots();
    const inside = roots.map((root) => relativeInside(root, real)).find((relative) => relative !== undefined);
    if (inside === undefined)
      throw new ToolInputError(
        `"${display}" leads outside the workspace folders through a symbolic link; only files inside them can be used.`,
      );
    this.refuseSecret(inside, display);
    return { uri, folder: resolved.folder, relative: resolved.relative, display, real };
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

  private realRoots(): Promise<string[]> {
    return Promise.all(this.folderPaths().map((folder) => realpath(folder.path).catch(() => folder.path)));
  }

  /** The real path of `path` (or of its nearest existing parent) relative to a real folder, or undefined. */
  private async realRelative(path: string, roots: readonly string[]): Promise<string | undefined> {
    const real = await realPathOfNearest(path);
    return roots.map((root) => relativeInside(root, real)).find((relative) => relative !== undefined);
  }

  private refuseSecret(relative: string, display: string): void {
    if (inGitFolder(relative))
      throw new ToolInputError(
        `"${display}" is inside a .git folder: the agent's tools do not read, list, search or change git's own files (its config can run commands and hold tokens). Use git commands with run_command instead.`,
      );
    const pattern = this.secretPattern(relative);
    if (pattern)
      throw new ToolInputError(
        `"${display}" may hold secrets (it matches "${pattern}"), so the agent's tools do not read, list, search or change it.`,
      );
  }

  /** The folder-relative display of a uri inside a workspace folder, or undefined. */
  describe(uri: vscode.Uri): { folder: number; relative: string; display: string } | undefined {
    if (uri.scheme !== 'file') return undefined;
    const paths = this.folderPaths();
    for (let folder = 0; folder < paths.length; folder++) {
      const relative = relativeInside(paths[folder].path, uri.fsPath);
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
    const folders = this.workspaceFolders();
    const out: ListedFile[] = [];
    const notices: string[] = [];
    let more = false;
    const targets = options.base ? [options.base.folder] : folders.map((_, i) => i);
    for (const index of targets) {
      const folder = folders[index];
      const matcher = await this.ignoreMatcher(folder);
      const baseUri = options.base && options.base.folder === index ? options.base.uri : folder.uri;
      const pattern = new vscode.RelativePattern(baseUri, options.glob ?? '**/*');
      const uris = await vscode.workspace.findFiles(
        pattern,
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
        const relative = relativeInside(folder.uri.fsPath, uri.fsPath);
        if (relative === undefined || this.offLimits(relative) || matcher.ignored(relative)) continue;
        out.push({
          uri,
          folder: index,
          relative,
          display: displayPath({ folder: index, relative }, this.folderPaths()),
        });
      }
      const notice = matcher.notice();
      if (notice) notices.push(folders.length > 1 ? `${folder.name}: ${notice}` : notice);
    }
    out.sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
    // VS Code's file search follows symbolic links: keep only files whose real path stays inside
    // (and is no secret there), checked in order until the limit is reached.
    const roots = await this.realRoots();
    const kept: ListedFile[] = [];
    for (const file of out) {
      const real = await this.realRelative(file.uri.fsPath, roots);
      if (real === undefined || this.offLimits(real)) continue;
      if (kept.length === options.limit) {
        more = true;
        break;
      }
      kept.push(file);
    }
    return { files: kept, more, ...(notices.length ? { notice: notices.join('; ') } : {}) };
  }

  /**
   * The folder's `.gitignore` files, root first (`files.exclude` applies to finding them), in a
   * matcher whose work is bounded.
   */
  private async ignoreMatcher(folder: vscode.WorkspaceFolder): Promise<IgnoreMatcher> {
    const uris = await vscode.workspace.findFiles(
      new vscode.RelativePattern(folder, '**/.gitignore'),
      undefined,
      200,
    );
    const files: IgnoreFile[] = [];
    for (const uri of uris) {
      const relative = relativeInside(folder.uri.fsPath, uri.fsPath);
      if (relative === undefined) continue;
      try {
        const bytes = await vscode.workspace.fs.readFile(uri);
        if (bytes.length > 512 * 1024) continue;
        files.push(
          parseGitignore(new TextDecoder().decode(bytes), relative.split('/').slice(0, -1).join('/')),
        );
      } catch {
        // An unreadable .gitignore hides nothing.
      }
    }
    const all = new IgnoreMatcher(sortIgnoreFiles(files));
    // Files a .gitignore itself ignores (one inside node_modules) say nothing.
    const kept = all.files.filter((file) => !file.folder || !all.ignored(file.folder, true));
    return new IgnoreMatcher(kept, all.skipped);
  }
}

/** The real path of `path`, or of its nearest existing parent with the rest appended. */
async function realPathOfNearest(path: string): Promise<string> {
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
