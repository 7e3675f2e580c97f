/**
 * Search/replace hunks, as the model sends them to `edit_file`: each `search` must occur exactly
 * once in the text as it stands when its turn comes (the hunks apply in order), so an edit never
 * lands in a place the model did not mean. When one does not fit, the message says which, why,
 * and what to do, and nothing is changed.
 */

export interface EditHunk {
  search: string;
  replace: string;
}

export type HunkResult = { ok: true; text: string } | { ok: false; error: string };

/** Where `needle` occurs (overlapping ones counted), up to `limit` of them. */
export function occurrences(haystack: string, needle: string, limit = 100): number[] {
  const at: number[] = [];
  if (!needle) return at;
  for (let i = haystack.indexOf(needle); i >= 0 && at.length < limit; i = haystack.indexOf(needle, i + 1))
    at.push(i);
  return at;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The search in the file's own line endings, when the file uses CRLF and the model sent LF. */
function inFileEndings(text: string, search: string): string {
  return text.includes('\r\n') && !search.includes('\r\n') ? search.replace(/\n/g, '\r\n') : search;
}

/** Applies the hunks in order; all or nothing. */
export function applyHunks(text: string, hunks: readonly EditHunk[]): HunkResult {
  let current = text;
  for (let h = 0; h < hunks.length; h++) {
    const label = hunks.length > 1 ? `Edit ${h + 1} of ${hunks.length}` : 'The edit';
    const { search: given, replace: givenReplace } = hunks[h];
    if (given === '')
      return {
        ok: false,
        error: `${label} has an empty "search": give the exact text to replace (use create_file for a new file).`,
      };
    const search = inFileEndings(current, given);
    const replace = search === given ? givenReplace : givenReplace.replace(/\r?\n/g, '\r\n');
    const found = occurrences(current, search, 50);
    if (found.length === 0) {
      const trimmed = search.trim();
      const loose = trimmed && trimmed !== search ? occurrences(current, trimmed, 2).length : 0;
      const hint =
        loose > 0
          ? ' The text occurs with different leading or trailing whitespace: copy it exactly, including indentation and line breaks.'
          : ' Read the file again (read_file) and copy the text exactly, including whitespace and indentation.';
      const earlier = h > 0 ? ' The edits before it have been applied to the text it is searched in.' : '';
      return {
        ok: false,
        error: `${label}: its "search" text was not found in the file.${hint}${earlier} Nothing was changed.`,
      };
    }
    if (found.length > 1) {
      const lines = found.slice(0, 5).map((index) => lineOf(current, index));
      const more = found.length >= 50 ? '50 or more times' : `${found.length} times`;
      return {
        ok: false,
        error: `${label}: its "search" text was found ${more} (at lines ${lines.join(', ')}${found.length > 5 ? ', …' : ''}), so it is not clear which to change. Include more of the surrounding lines so that it matches exactly once. Nothing was changed.`,
      };
    }
    current = current.slice(0, found[0]) + replace + current.slice(found[0] + search.length);
  }
  return { ok: true, text: current };
}

/**
 * The one span that differs between two texts (common start and end set aside): what the editor
 * is asked to replace, so the rest of the document, its markers and its undo stay as they were.
 */
export function changedSpan(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (
    tail < max - start &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++;
  // Never split a CRLF: the editor counts it as one line break.
  if (start > 0 && before[start - 1] === '\r') start--;
  if (tail > 0 && before[before.length - tail] === '\n' && before[before.length - tail - 1] === '\r') tail--;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}
