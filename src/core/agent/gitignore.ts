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
  /**
   * How it is matched: most rules are a plain name (`node_modules`), an extension (`*.log`), a
   * name's start (`.env*`) or a plain path (`/dist`, `docs/_build`), compared as strings; the rest
   * go to the glob matcher.
   */
  kind: 'name' | 'suffix' | 'prefix' | 'path' | 'glob';
  /** The lower-cased name, suffix, prefix or path of the first four kinds (matching ignores case). */
  literal: string;
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
    rules.push({ pattern, anchored, negated, folderOnly, ...kindOf(pattern, anchored) });
  }
  return { folder: folder.replace(/^\/+|\/+$/g, ''), rules };
}

const WILDCARD = /[*?[\]{}]/;

function kindOf(pattern: string, anchored: boolean): Pick<Rule, 'kind' | 'literal'> {
  const literal = pattern.trim().toLowerCase();
  if (!WILDCARD.test(literal) && literal !== '') return { kind: anchored ? 'path' : 'name', literal };
  const rest = literal.slice(1);
  if (!anchored && literal.startsWith('*') && rest !== '' && !WILDCARD.test(rest))
    return { kind: 'suffix', literal: rest };
  return { kind: 'glob', literal };
}

function ruleMatches(rule: Rule, inner: string, lower: string, name: string): boolean {
  switch (rule.kind) {
    case 'name':
      return name === rule.literal;
    case 'suffix':
      return name.endsWith(rule.literal);
    case 'prefix':
      return name.startsWith(rule.literal);
    case 'path':
      return lower === rule.literal;
    case 'glob':
      // The matcher takes a pattern with a `/` as the whole path, one without as a name at any
      // depth; an anchored single name (`/*.js`) matches at the folder's top only.
      if (rule.anchored && !rule.pattern.includes('/') && inner.includes('/')) return false;
      return excludedBy(inner, [rule.pattern]) !== undefined;
  }
}

/** The last rule that matches decides (deeper files come later): so look from the end. */
function decide(path: string, isFolder: boolean, files: readonly IgnoreFile[]): boolean | undefined {
  for (let f = files.length - 1; f >= 0; f--) {
    const file = files[f];
    const prefix = file.folder ? `${file.folder}/` : '';
    if (prefix && !path.startsWith(prefix)) continue;
    const inner = path.slice(prefix.length);
    const lower = inner.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    for (let r = file.rules.length - 1; r >= 0; r--) {
      const rule = file.rules[r];
      if (rule.folderOnly && !isFolder) continue;
      if (ruleMatches(rule, inner, lower, name)) return !rule.negated;
    }
  }
  return undefined;
}

/**
 * Decides paths against a set of ignore files ordered from the root down (a parent folder's file
 * before its children's), remembering what it decided of each folder: the files of one listing
 * share their folders.
 */
export class IgnoreMatcher {
  private readonly folders = new Map<string, boolean>();

  constructor(readonly files: readonly IgnoreFile[]) {}

  /** Whether a workspace-relative path (`/` separators) is ignored. */
  ignored(path: string, isFolder = false): boolean {
    if (this.files.length === 0) return false;
    const parts = path.split('/').filter((part) => part !== '');
    // A path inside an ignored folder is ignored whatever the rules say of it.
    let folder = '';
    for (let i = 0; i + 1 < parts.length; i++) {
      folder = folder ? `${folder}/${parts[i]}` : parts[i];
      let decided = this.folders.get(folder);
      if (decided === undefined) {
        decided = decide(folder, true, this.files) === true;
        if (this.folders.size > 50_000) this.folders.clear();
        this.folders.set(folder, decided);
      }
      if (decided) return true;
    }
    return decide(parts.join('/'), isFolder, this.files) === true;
  }
}

/** Whether a workspace-relative path is ignored by the files given (ordered from the root down). */
export function isIgnored(path: string, files: readonly IgnoreFile[], isFolder = false): boolean {
  return new IgnoreMatcher(files).ignored(path, isFolder);
}

/** Orders ignore files from the root down, as `isIgnored` wants them. */
export function sortIgnoreFiles(files: IgnoreFile[]): IgnoreFile[] {
  return files.sort((a, b) => depth(a.folder) - depth(b.folder) || a.folder.localeCompare(b.folder));
}

function depth(folder: string): number {
  return folder === '' ? 0 : folder.split('/').length;
}
