/**
 * `.gitignore` files, read the way git reads them, for `list_files` and `search_text` (VS Code's
 * `findFiles` knows `files.exclude` but not `.gitignore`). Each file's rules apply below its own
 * folder; later rules win over earlier ones, deeper files over shallower ones; `!` re-includes; a
 * trailing `/` matches folders only; a `/` at the start or in the middle anchors the pattern to
 * the file's folder; a path inside an ignored folder stays ignored. Patterns are matched by the
 * linear glob matcher of `core/inline/exclude` (no regular expressions: a repository writes them).
 */
import { compileGlob, globMatches, matchWork } from '../inline/exclude';
import type { CompiledGlob } from '../inline/exclude';

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
  /** The glob rule compiled once (undefined for the string kinds, or a glob that cannot match). */
  glob?: CompiledGlob;
  /** Relative to the file's folder (a `/` at its start or in its middle). */
  anchored: boolean;
  negated: boolean;
  folderOnly: boolean;
}

/** One `.gitignore`: its folder (workspace-relative, '' for the root) and its rules. */
export interface IgnoreFile {
  folder: string;
  rules: Rule[];
  /** Glob rules past MAX_GLOB_RULES_PER_FILE were dropped. */
  truncated?: boolean;
}

export const MAX_RULES_PER_FILE = 2000;
/** Glob rules cost far more than the string kinds: a file's first 200 are honoured. */
export const MAX_GLOB_RULES_PER_FILE = 200;
/**
 * The static budget of one matcher: the glob rules' pattern characters over all its files (a
 * match costs up to pattern × path steps). Files past it are not honoured, and the matcher says so.
 */
export const MAX_GLOB_CHARS = 20_000;
/**
 * The dynamic budget: matching steps one matcher may spend (a listing checks up to 20,000 paths).
 * Past it the ignore files are no longer honoured for the rest of the listing, and it says so.
 */
export const MAX_MATCH_STEPS = 50_000_000;

/** Parses one `.gitignore`'s text; odd lines are skipped, never thrown on. */
export function parseGitignore(text: string, folder = ''): IgnoreFile {
  const rules: Rule[] = [];
  let globs = 0;
  let truncated = false;
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
    const kind = kindOf(pattern, anchored);
    if (kind.kind === 'glob') {
      if (globs >= MAX_GLOB_RULES_PER_FILE) {
        truncated = true;
        continue;
      }
      globs++;
      const glob = compileGlob(pattern);
      if (!glob) continue;
      rules.push({ pattern, anchored, negated, folderOnly, ...kind, glob });
    } else rules.push({ pattern, anchored, negated, folderOnly, ...kind });
  }
  return { folder: folder.replace(/^\/+|\/+$/g, ''), rules, ...(truncated ? { truncated } : {}) };
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
      return rule.glob !== undefined && globMatches(rule.glob, inner);
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
 * share their folders. Its work is bounded: files whose glob rules would pass MAX_GLOB_CHARS are
 * left out, and once MAX_MATCH_STEPS are spent nothing more is ignored; `notice` says so.
 */
export class IgnoreMatcher {
  readonly files: readonly IgnoreFile[];
  private readonly folders = new Map<string, boolean>();
  /** Files not honoured for the static budget. */
  readonly skipped: readonly IgnoreFile[];
  private steps = 0;
  private spent = false;

  /** `skipped`: files an earlier matcher left out already, to be named by `notice`. */
  constructor(files: readonly IgnoreFile[], skipped: readonly IgnoreFile[] = []) {
    const kept: IgnoreFile[] = [];
    const left: IgnoreFile[] = [...skipped];
    let chars = 0;
    for (const file of files) {
      const cost = file.rules.reduce((sum, rule) => sum + (rule.glob ? rule.pattern.length : 0), 0);
      if (chars + cost > MAX_GLOB_CHARS) left.push(file);
      else {
        chars += cost;
        kept.push(file);
      }
    }
    this.files = kept;
    this.skipped = left;
  }

  /** Whether the budget ran out: from then on, nothing was ignored. */
  get exhausted(): boolean {
    return this.spent;
  }

  /** What the listing should tell its reader about rules not honoured, if anything. */
  notice(): string | undefined {
    const notes: string[] = [];
    const truncated = this.files.filter((file) => file.truncated);
    if (this.skipped.length)
      notes.push(
        `${this.skipped.length} .gitignore file${this.skipped.length === 1 ? '' : 's'} with too many wildcard rules not honoured (${this.skipped
          .slice(0, 3)
          .map((file) => `${file.folder || '.'}/.gitignore`)
          .join(', ')}${this.skipped.length > 3 ? ', …' : ''})`,
      );
    if (truncated.length)
      notes.push(`only the first ${MAX_GLOB_RULES_PER_FILE} wildcard rules of a .gitignore honoured`);
    if (this.spent)
      notes.push('.gitignore rules took too long to match, so later files were not checked against them');
    return notes.length ? notes.join('; ') : undefined;
  }

  /** Whether a workspace-relative path (`/` separators) is ignored. */
  ignored(path: string, isFolder = false): boolean {
    if (this.files.length === 0 || this.spent) return false;
    const start = matchWork.steps;
    try {
      return this.decidePath(path, isFolder);
    } finally {
      this.steps += matchWork.steps - start;
      if (this.steps > MAX_MATCH_STEPS) this.spent = true;
    }
  }

  private decidePath(path: string, isFolder: boolean): boolean {
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
