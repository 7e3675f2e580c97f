/**
 * `.gitignore` files, read the way git reads them, for `list_files` and `search_text` (VS Code's
 * `findFiles` knows `files.exclude` but not `.gitignore`). Each file's rules apply below its own
 * folder; later rules win over earlier ones, deeper files over shallower ones; `!` re-includes; a
 * trailing `/` matches folders only; a `/` at the start or in the middle anchors the pattern to
 * the file's folder; a path inside an ignored folder stays ignored. Patterns are matched by the
 * linear glob matcher of `core/inline/exclude` (no regular expressions: a repository writes them).
 */
import { excludedBy } from '../inline/exclude';

interface Rule {
  /** Without a leading `/`. */
  pattern: string;
  /** Relative to the file's folder (a `/` at its start or in its middle). */
  anchored: boolean;
  negated: boolean;
  folderOnly: boolean;
}

/** One `.gitignore`: its folder (workspace-relative, '' for the root) and its rules. */
export interface IgnoreFile {
  folder: string;
  rules: Rule[];
}

export const MAX_RULES_PER_FILE = 2000;

/** Parses one `.gitignore`'s text; odd lines are skipped, never thrown on. */
export function parseGitignore(text: string, folder = ''): IgnoreFile {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (rules.length >= MAX_RULES_PER_FILE) break;
    // Trailing spaces are dropped unless escaped with a backslash.
    let line = raw.replace(/(?<!\\)[ \t]+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    let negated = false;
    if (line.startsWith('!')) {
      negated = true;
      line = line.slice(1);
    }
    // `\#`, `\!` and `\ ` stand for the character itself.
    line = line.replace(/\\(.)/g, '$1');
    let folderOnly = false;
    if (line.endsWith('/')) {
      folderOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '' || line.length > 500) continue;
    const anchored = line.includes('/');
    const pattern = line.replace(/^\/+/, '');
    if (pattern === '') continue;
    rules.push({ pattern, anchored, negated, folderOnly });
  }
  return { folder: folder.replace(/^\/+|\/+$/g, ''), rules };
}

function decide(path: string, isFolder: boolean, files: readonly IgnoreFile[]): boolean | undefined {
  let decision: boolean | undefined;
  for (const file of files) {
    const prefix = file.folder ? `${file.folder}/` : '';
    if (prefix && !path.startsWith(prefix)) continue;
    const inner = path.slice(prefix.length);
    for (const rule of file.rules) {
      if (rule.folderOnly && !isFolder) continue;
      // The matcher takes a pattern with a `/` as the whole path, one without as a name at any
      // depth; an anchored single name (`/dist`) matches at the folder's top only.
      if (rule.anchored && !rule.pattern.includes('/') && inner.includes('/')) continue;
      if (excludedBy(inner, [rule.pattern]) !== undefined) decision = !rule.negated;
    }
  }
  return decision;
}

/**
 * Whether a workspace-relative path (`/` separators) is ignored by the files given, which must be
 * ordered from the root down (a parent folder's file before its children's).
 */
export function isIgnored(path: string, files: readonly IgnoreFile[], isFolder = false): boolean {
  if (files.length === 0) return false;
  const parts = path.split('/').filter((part) => part !== '');
  // A path inside an ignored folder is ignored whatever the rules say of it.
  for (let i = 1; i < parts.length; i++) if (decide(parts.slice(0, i).join('/'), true, files)) return true;
  return decide(parts.join('/'), isFolder, files) === true;
}

/** Orders ignore files from the root down, as `isIgnored` wants them. */
export function sortIgnoreFiles(files: IgnoreFile[]): IgnoreFile[] {
  return files.sort((a, b) => depth(a.folder) - depth(b.folder) || a.folder.localeCompare(b.folder));
}

function depth(folder: string): number {
  return folder === '' ? 0 : folder.split('/').length;
}
