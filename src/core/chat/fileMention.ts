/**
 * The composer's `#file:` mention, pure: finding the mention being typed, and ranking workspace
 * files against what was typed after it.
 */

/** A file the host offers for a mention: its workspace-relative path and its URI. */
export interface FileSuggestion {
  path: string;
  uri: string;
}

export const MENTION_PREFIX = '#file:';
/** Most suggestions shown at once. */
export const MAX_SUGGESTIONS = 20;

/**
 * The `#file:` mention that ends at `caret` in `text` (at the start or after white space), as
 * its start offset and the query typed after the colon; undefined when the caret is not in one.
 */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const match = /(^|\s)#file:([^\s#]*)$/.exec(before);
  if (!match) return undefined;
  return { start: match.index + match[1].length, query: match[2] };
}

/**
 * Paths that contain every character of `query` in order (case-insensitive), best first: a
 * match in the file name before one in the folders, then a contiguous match, then shorter paths.
 */
export function rankFiles(paths: readonly string[], query: string, max = MAX_SUGGESTIONS): string[] {
  const q = query.toLowerCase();
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of paths) {
    const lower = path.toLowerCase();
    const name = lower.slice(lower.lastIndexOf('/') + 1);
    let score: number;
    if (!q) score = 0;
    else if (name.startsWith(q)) score = 0;
    else if (name.includes(q)) score = 1;
    else if (lower.includes(q)) score = 2;
    else if (inOrder(lower, q)) score = 3;
    else continue;
    scored.push({ path, score });
  }
  scored.sort((a, b) => a.score - b.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, max).map((s) => s.path);
}

function inOrder(text: string, query: string): boolean {
  let at = 0;
  for (const ch of query) {
    at = text.indexOf(ch, at);
    if (at < 0) return false;
    at++;
  }
  return true;
}
