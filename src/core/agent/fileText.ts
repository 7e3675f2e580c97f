/**
 * How our read and search tools show a file's text to the model: a range of numbered lines under
 * a size cap with a note on how to read on, and matching lines with their numbers. Pure.
 */

/** Most lines and characters one `read_file` call returns. */
export const READ_MAX_LINES = 2000;
export const READ_MAX_CHARS = 64 * 1024;
/** Longest line shown in a search result. */
export const MATCH_LINE_CHARS = 300;

export interface LineRange {
  startLine?: number;
  endLine?: number;
}

/** Bytes that look like a binary file: a NUL in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/**
 * The lines asked for, each prefixed by its number, capped; a note at the end says what was left
 * out and how to read on (the model sees it as part of the result).
 */
export function sliceLines(
  text: string,
  range: LineRange,
  caps = { lines: READ_MAX_LINES, chars: READ_MAX_CHARS },
): string {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = text === '' ? 0 : lines.length;
  if (total === 0) return '(the file is empty)';
  const start = Math.min(range.startLine ?? 1, total + 1);
  if (start > total)
    return `(the file has ${total} line${total === 1 ? '' : 's'}; line ${range.startLine} is past its end)`;
  const wanted = Math.min(total, range.endLine ?? total);
  const out: string[] = [];
  let chars = 0;
  let last = start - 1;
  for (let n = start; n <= wanted && n - start < caps.lines; n++) {
    const line = `${n}: ${lines[n - 1]}`;
    if (chars + line.length + 1 > caps.chars && out.length > 0) break;
    out.push(line.length > caps.chars ? `${line.slice(0, caps.chars)} … (line cut)` : line);
    chars += line.length + 1;
    last = n;
  }
  if (last < wanted)
    out.push(
      `… (lines ${start}–${last} of ${total} shown, the cap is ${caps.lines} lines or ${Math.round(caps.chars / 1024)} KB per call; read on with start_line ${last + 1})`,
    );
  else if (start > 1 || wanted < total) out.push(`(lines ${start}–${wanted} of ${total})`);
  return out.join('\n');
}

/** Line numbers (from 1) and the lines where `query` occurs, up to `max`. */
export function literalMatches(
  text: string,
  query: string,
  ignoreCase: boolean,
  max: number,
): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  const needle = ignoreCase ? query.toLowerCase() : query;
  const haystack = ignoreCase ? text.toLowerCase() : text;
  // Lower-casing can change a string's length (rare letters); match line by line then.
  const sameLength = haystack.length === text.length;
  let lineStart = 0;
  let lineNumber = 1;
  let from = 0;
  while (out.length < max) {
    const at = sameLength ? haystack.indexOf(needle, from) : -1;
    if (at < 0) break;
    while (true) {
      const next = text.indexOf('\n', lineStart);
      if (next < 0 || next >= at) break;
      lineStart = next + 1;
      lineNumber++;
    }
    const end = text.indexOf('\n', at);
    const line = text.slice(lineStart, end < 0 ? text.length : end).replace(/\r$/, '');
    out.push({ line: lineNumber, text: shortLine(line) });
    from = end < 0 ? text.length : end + 1;
  }
  if (!sameLength)
    text.split('\n').forEach((line, i) => {
      if (out.length < max && line.toLowerCase().includes(needle))
        out.push({ line: i + 1, text: shortLine(line.replace(/\r$/, '')) });
    });
  return out;
}

export function shortLine(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > MATCH_LINE_CHARS ? `${trimmed.slice(0, MATCH_LINE_CHARS)} …` : trimmed;
}

/** Whether a search ignores case: smart case, as editors do (an upper-case letter makes it exact). */
export function smartIgnoreCase(query: string): boolean {
  return query === query.toLowerCase();
}
