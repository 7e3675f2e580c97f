/**
 * Where a path the model names lies, worked out lexically: against the workspace folders, with
 * `.` and `..` resolved, before anything touches the disk. A path that would leave every folder
 * is refused here; the host then checks the real path (symlinks) of what it found.
 *
 * Pure: folders are given as absolute paths (`/` or `\` separators, a drive letter or not).
 */
import { excludedByAny } from '../inline/exclude';
import { ToolInputError } from './types';

export interface WorkspaceFolderPath {
  /** The folder's name, as VS Code shows it (a path may start with it when there are several). */
  name: string;
  /** Absolute path on disk. */
  path: string;
}

/** A path inside a workspace folder. */
export interface ResolvedPath {
  /** The folder's index. */
  folder: number;
  /** Relative to the folder, `/` separators, no `.` or `..`; '' is the folder itself. */
  relative: string;
}

export const MAX_TOOL_PATH_LENGTH = 4096;

function slashes(path: string): string {
  return path.replace(/\\/g, '/');
}

/** A Windows path (drive letter or UNC) compares without case, as the disk does. */
function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:\//.test(path) || path.startsWith('//');
}

export function isAbsolutePath(path: string): boolean {
  const p = slashes(path);
  return p.startsWith('/') || /^[A-Za-z]:(\/|$)/.test(p);
}

/** `.` and `..` resolved; undefined when `..` climbs above the start. */
export function normalizeSegments(path: string): string[] | undefined {
  const out: string[] = [];
  for (const part of slashes(path).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out;
}

/**
 * `candidate` relative to `root` (both absolute), or undefined when it lies outside. '' is the
 * root itself. Compares without case on Windows paths.
 */
export function relativeInside(root: string, candidate: string): string | undefined {
  const windows = isWindowsPath(slashes(root));
  const rootParts = normalizeSegments(root);
  const parts = normalizeSegments(candidate);
  if (!rootParts || !parts || parts.length < rootParts.length) return undefined;
  const rootPrefix = /^\/\//.test(slashes(root)) ? '//' : '';
  const candidatePrefix = /^\/\//.test(slashes(candidate)) ? '//' : '';
  if (rootPrefix !== candidatePrefix) return undefined;
  for (let i = 0; i < rootParts.length; i++) {
    const same = windows ? rootParts[i].toLowerCase() === parts[i].toLowerCase() : rootParts[i] === parts[i];
    if (!same) return undefined;
  }
  return parts.slice(rootParts.length).join('/');
}

/**
 * Resolves a path the model gave: relative to the first folder, or (with several folders) to the
 * folder whose name it starts with; an absolute path must lie inside a folder. Throws
 * `ToolInputError` with a message for the model otherwise.
 */
export function resolveWorkspacePath(raw: string, folders: readonly WorkspaceFolderPath[]): ResolvedPath {
  if (folders.length === 0)
    throw new ToolInputError('No folder is open in the workspace, so there are no files to use.');
  const path = raw.trim();
  if (path.length > MAX_TOOL_PATH_LENGTH) throw new ToolInputError('The path is too long.');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(path)) throw new ToolInputError('The path holds control characters.');
  if (isAbsolutePath(path)) {
    for (let i = 0; i < folders.length; i++) {
      const relative = relativeInside(folders[i].path, path);
      if (relative !== undefined) return { folder: i, relative };
    }
    throw new ToolInputError(
      `"${path}" is outside the workspace folders; only files inside them can be used. Give a path relative to the workspace folder.`,
    );
  }
  if (/^~(\/|\\|$)/.test(path))
    throw new ToolInputError(
      `"${path}" names the home folder; only files inside the workspace folders can be used.`,
    );
  const parts = normalizeSegments(path);
  if (!parts)
    throw new ToolInputError(
      `"${path}" climbs out of the workspace with "..": only files inside the workspace folders can be used.`,
    );
  if (folders.length > 1 && parts.length > 0) {
    const named = folders.findIndex((folder) => folder.name === parts[0]);
    // With several folders, a path may start with a folder's name, as VS Code shows them.
    if (named >= 0) return { folder: named, relative: parts.slice(1).join('/') };
  }
  return { folder: 0, relative: parts.join('/') };
}

/** How a resolved path is shown to the model: with the folder's name when there are several. */
export function displayPath(resolved: ResolvedPath, folders: readonly WorkspaceFolderPath[]): string {
  const prefix = folders.length > 1 ? folders[resolved.folder]?.name : undefined;
  if (!prefix) return resolved.relative || '.';
  return resolved.relative ? `${prefix}/${resolved.relative}` : prefix;
}

/**
 * Whether a relative path lies in (or is) a `.git` folder, in any of the forms a disk may accept
 * for it: any case, trailing dots or spaces (Windows drops them), the 8.3 short name `GIT~1`.
 * Git's own files are off limits to the tools: `.git/config` can name a command (`core.fsmonitor`)
 * that VS Code's Git runs on its next status, hooks are programs, and remote URLs carry tokens.
 */
export function inGitFolder(relative: string): boolean {
  return slashes(relative)
    .split('/')
    .some((part) => {
      const name = part.toLowerCase().replace(/[. ]+$/, '');
      return name === '.git' || /^git~\d+$/.test(name);
    });
}

/** Folders under the home folder that hold settings and logins rather than projects. */
const HOME_SETTINGS = new Set(['appdata', 'library']);
/** System folders that are never a project: their files are the machine's, not the workspace's. */
const SYSTEM_FOLDERS = new Set(['proc', 'sys', 'dev', 'etc']);

/**
 * Why a workspace folder is too broad for the tools, or undefined when it is not:
 * - `root`: the root of a disk (`/`, `C:\`);
 * - `home`: the user's home folder or a folder above it (an untrusted `.code-workspace` may add
 *   `../..`, or a link to it; reading it would read every key and token in the home folder);
 * - `home settings`: a folder in the home folder whose name starts with a dot (`~/.aws`, `~/.ssh`,
 *   `~/.config`, …), `~/AppData` or `~/Library`, or any folder inside one of them: logins and
 *   tokens live there, under names no project uses;
 * - `system`: `/proc`, `/sys`, `/dev`, `/etc`, or a folder inside one (`/proc/self/root` is `/`).
 *
 * Pure: the host passes the folder's real path (symbolic links resolved) and the home folder's,
 * and asks again with the paths as written.
 */
export function broadFolderReason(
  folder: string,
  home: string | undefined,
): 'root' | 'home' | 'home settings' | 'system' | undefined {
  const parts = normalizeSegments(folder);
  if (!parts || parts.length === 0) return 'root';
  const windows = isWindowsPath(slashes(folder));
  if (parts.length === 1 && /^[A-Za-z]:$/.test(parts[0])) return 'root';
  if (home !== undefined && home !== '') {
    if (relativeInside(folder, home) !== undefined) return 'home';
    const inside = relativeInside(home, folder);
    const first = inside?.split('/')[0];
    if (first && (first.startsWith('.') || HOME_SETTINGS.has(first.toLowerCase()))) return 'home settings';
  }
  if (!windows) {
    // macOS keeps /etc at /private/etc.
    const top = parts[0] === 'private' && parts.length > 1 ? parts[1] : parts[0];
    if (SYSTEM_FOLDERS.has(top)) return 'system';
  } else if (parts.length >= 2 && parts[1].toLowerCase() === 'windows') return 'system';
  return undefined;
}

/** Whether a workspace folder is too broad for the tools (see `broadFolderReason`). */
export function tooBroadFolder(folder: string, home: string | undefined): boolean {
  return broadFolderReason(folder, home) !== undefined;
}

/** Why a folder is too broad, in words (after "it is"). */
export const BROAD_WHY: Record<NonNullable<ReturnType<typeof broadFolderReason>>, string> = {
  root: "a disk's root",
  home: 'the home folder or a folder above it',
  'home settings': 'a settings folder in the home folder (like ~/.aws or ~/.config) or inside one',
  system: 'a system folder (like /proc or /etc)',
};

/**
 * Why a workspace folder is too broad for anything of ours to read (see `broadFolderReason`), in
 * words, judged by each of its paths (as written, real) against each of the home folder's, or
 * undefined. The agent's tools and the checkpoints share this rule.
 */
export function broadFolderWhy(paths: readonly string[], homes: readonly string[]): string | undefined {
  for (const path of paths)
    for (const home of homes) {
      const reason = broadFolderReason(path, home);
      if (reason) return BROAD_WHY[reason];
    }
  return undefined;
}

/**
 * Whether a file named by any of its paths (relative to its folder as given, relative to its real
 * folder, its absolute real path) is off limits to everything of ours that reads the workspace:
 * inside `.git`, or matched by the secrets list. The agent's tools and the checkpoints share it.
 */
export function offLimitsPath(paths: readonly string[], secretPatterns: readonly string[]): boolean {
  return paths.some((path) => inGitFolder(path)) || excludedByAny(paths, secretPatterns) !== undefined;
}
