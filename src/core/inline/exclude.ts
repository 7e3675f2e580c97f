/**
 * Which files inline completions never send: glob patterns over the workspace-relative path
 * (`gateway.inlineCompletions.exclude`). A pattern without `/` matches the file name in any folder
 * (`.env*`, `*.pem`); one with `/` matches the whole path (`**` any folders, `*` and `?` within one).
 * Matching ignores case: `.ENV` on a case-insensitive disk is the same secret.
 */

export const DEFAULT_EXCLUDE: readonly string[] = ['.env*', '*.pem', '*.key', 'id_rsa*', '**/secrets/**'];

const cache = new Map<string, RegExp>();

function globToRegExp(glob: string): RegExp {
  const cached = cache.get(glob);
  if (cached) return cached;
  const pattern = glob.trim().replace(/^\.\//, '').replace(/^\/+/, '');
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        // `**/` is any number of folders (none included); a trailing `**` anything at all.
        const slash = pattern[i + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const anchored = pattern.includes('/') ? `^${source}$` : `(?:^|/)${source}$`;
  const regex = new RegExp(anchored, 'i');
  if (cache.size > 500) cache.clear();
  cache.set(glob, regex);
  return regex;
}

/** The first pattern that matches `relativePath` (`/` separators), or undefined. */
export function excludedBy(relativePath: string, patterns: readonly string[]): string | undefined {
  const path = relativePath.replace(/\\/g, '/').replace(/^\/+/, '');
  return patterns.find((pattern) => pattern.trim() !== '' && globToRegExp(pattern).test(path));
}
