/**
 * Globs as rules files write them (`src/**\/*.ts`, `**\/*.{ts,tsx}`, `*.md`), matched against
 * workspace-relative paths with `/`. A pattern without a `/` matches a file's name in any folder
 * (as Copilot's and Continue's do). Pure; an unreadable pattern matches nothing.
 */

const MAX_PATTERN = 1000;

/** The pattern as a regular expression over the whole path, or undefined when it cannot be read. */
export function globToRegExp(pattern: string): RegExp | undefined {
  let glob = pattern.trim().replace(/\\/g, '/');
  if (!glob || glob.length > MAX_PATTERN) return undefined;
  if (glob.startsWith('./')) glob = glob.slice(2);
  if (glob.startsWith('/')) glob = glob.slice(1);
  if (glob.endsWith('/')) glob += '**';
  if (!glob.includes('/')) glob = `**/${glob}`;
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        const atStart = i === 0 || glob[i - 1] === '/';
        if (atStart && slashAfter) {
          out += '(?:[^/]*/)*';
          i += 2;
        } else if (atStart && i + 2 === glob.length) {
          out += '.*';
          i += 1;
        } else {
          out += '[^/]*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) return undefined;
      let set = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
      if (set.startsWith('!')) set = `^${set.slice(1)}`;
      out += `[${set.replace(/]/g, '\\]')}]`;
      i = end;
    } else out += c.replace(/[.+^$()|\\\]]/g, '\\$&');
  }
  if (braces > 0) return undefined;
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return undefined;
  }
}

/** Whether any of the patterns matches the path (workspace-relative, `/`-separated). */
export function matchesAny(patterns: readonly string[], path: string): boolean {
  const clean = path.replace(/\\/g, '/').replace(/^\.?\//, '');
  return patterns.some((pattern) => globToRegExp(pattern)?.test(clean) === true);
}
