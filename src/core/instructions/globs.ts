/**
 * Globs as rules files write them (`src/**\/*.ts`, `**\/*.{ts,tsx}`, `*.md`), matched against
 * workspace-relative paths with `/`. A pattern without a `/` matches a file's name in any folder
 * (as Copilot's and Continue's do). Pure; an unreadable pattern matches nothing.
 *
 * A repository writes these patterns, and they are matched on every path a turn touches, so they
 * go through the secrets list's matcher (core/inline/exclude), whose work is linear in the pattern
 * times the path: a backtracking regular expression made of `*`s froze the extension host.
 */
import { compileGlob, globMatches } from '../inline/exclude';
import type { CompiledGlob } from '../inline/exclude';

const MAX_PATTERN = 1000;

/** Whether every `{` and `[` of the pattern is closed (an unclosed one makes it unreadable). */
function balanced(glob: string): boolean {
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '{') braces++;
    else if (c === '}' && braces > 0) braces--;
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) return false;
      i = end;
    }
  }
  return braces === 0;
}

/** The pattern ready to match, or undefined when it cannot be read. */
export function compileRuleGlob(pattern: string): CompiledGlob | undefined {
  let glob = pattern.trim().replace(/\\/g, '/');
  if (!glob || glob.length > MAX_PATTERN || !balanced(glob)) return undefined;
  if (glob.endsWith('/')) glob += '**';
  return compileGlob(glob);
}

/** Whether any of the patterns matches the path (workspace-relative, `/`-separated). */
export function matchesAny(patterns: readonly string[], path: string): boolean {
  const clean = path.replace(/\\/g, '/').replace(/^\.?\//, '');
  return patterns.some((pattern) => {
    const glob = compileRuleGlob(pattern);
    return glob !== undefined && globMatches(glob, clean);
  });
}
