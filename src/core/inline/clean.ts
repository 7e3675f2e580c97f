/**
 * Turns what a model wrote at the cursor into what is worth showing as ghost text: no fences, no
 * prose, no repeat of the text before the cursor, the indentation of the line, cut at the first
 * complete unit, without the closing brackets and quotes the text after the cursor already has.
 * A suggestion that is blank or only repeats that text is dropped. Pure, and total: any strings
 * in, a string or undefined out (fuzzed in test/unit/core/inline/clean.test.ts).
 */

/** What one completion should fill: the rest of the line, or the block a line opened. */
export type CompletionUnit =
  { kind: 'line'; linePrefix: string } | { kind: 'block'; linePrefix: string; openerIndent: number };

/** More than this from a model is not a completion: the rest is not looked at. */
const MAX_TEXT = 8_000;
const MAX_BLOCK_LINES = 40;
/** A line that ends by opening a block: `{`, `(`, `[`, `:`, `=>`, `then`, `do`, `begin`. */
const OPENER = /(?:[{([:]|=>|\bthen|\bdo|\bbegin)\s*$/;
/** A line that only closes what is open: `}`, `});`, `end`, ... */
const CLOSER_LINE = /^\s*(?:[\])}]+[\]);,]*|end\b.*|fi|done|esac)\s*$/;
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const QUOTES = new Set(['"', "'", '`']);
/** Control tokens of FIM models and the markers our chat template uses. */
const SPECIAL_TOKENS = /<\|[a-z_]{1,40}\|>|<(?:fim_[a-z]+|file_sep|EOT|PRE|SUF|MID|CURSOR|FILL_HERE|FILL)>/gi;
const PROSE_OPENING =
  /^(?:here(?:'s| is| are)\b|sure\b|certainly\b|of course\b|the (?:missing|completion|code)\b)/i;

/** The unit the cursor asks for: a block on an empty line right after a block opener, else the line. */
export function unitAt(prefix: string): CompletionUnit {
  const lineStart = prefix.lastIndexOf('\n') + 1;
  const linePrefix = prefix.slice(lineStart);
  if (linePrefix.trim() !== '' || lineStart === 0) return { kind: 'line', linePrefix };
  const previousStart = prefix.lastIndexOf('\n', lineStart - 2) + 1;
  const previous = prefix.slice(previousStart, lineStart - 1).replace(/\r$/, '');
  if (previous.trim() !== '' && OPENER.test(previous))
    return { kind: 'block', linePrefix, openerIndent: indentWidth(previous) };
  return { kind: 'line', linePrefix };
}

export interface CleanInput {
  prefix: string;
  suffix: string;
  /** What the model wrote. */
  text: string;
  /** A chat model may wrap its answer in fences and prose; a FIM model writes only the middle. */
  from: 'fim' | 'chat';
}

export function cleanCompletion(input: CleanInput): string | undefined {
  const { prefix, suffix, from } = input;
  const unit = unitAt(prefix);
  let text = input.text.slice(0, MAX_TEXT).replace(/\r\n?/g, '\n').replace(SPECIAL_TOKENS, '');
  if (from === 'chat') text = unwrapChat(text);
  text = dropPrefixRepeat(text, prefix, unit.linePrefix);
  text = fixIndentation(text, unit.linePrefix, from);
  text = unit.kind === 'block' ? cutBlock(text, unit) : cutLine(text, unit.linePrefix);
  text = trimSuffixOverlap(text, suffix);
  text = text.replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
  if (text.trim() === '') return undefined;
  // Only what follows the cursor already: nothing to add.
  if (suffix.trimStart().startsWith(text.trim())) return undefined;
  return text;
}

/** Text that would change a suggestion still being written: more of its line, or of its block. */
const PROBES = ['\u0001', '\n\u0001', `\n${' '.repeat(64)}\u0001`];

/**
 * Whether the text so far already holds the whole unit: nothing more the model writes could
 * change the cleaned suggestion (more on the line, a deeper line of the block, or a line after
 * it all give the same). Then the rest of the stream need not be read.
 */
export function unitComplete(input: CleanInput): boolean {
  const now = cleanCompletion(input);
  return (
    now !== undefined &&
    PROBES.every((probe) => cleanCompletion({ ...input, text: input.text + probe }) === now)
  );
}

/** The code of the first fenced block, else the text without a leading line of prose. */
function unwrapChat(text: string): string {
  const fence = /```[^\n`]*\n([\s\S]*?)(?:\n?```|$)/.exec(text);
  if (fence) return fence[1];
  const single = /^\s*`([^`\n]+)`\s*$/.exec(text);
  if (single) return single[1];
  const lines = text.split('\n');
  if (lines.length > 1 && PROSE_OPENING.test(lines[0].trim())) return lines.slice(1).join('\n');
  return text;
}

/**
 * Removes the text before the cursor when the model wrote it again: the current line's start,
 * with up to 8 lines before it. The longest repeat wins; a repeat of under 2 characters is left,
 * as it is as likely to be new code.
 */
function dropPrefixRepeat(text: string, prefix: string, linePrefix: string): string {
  let start = prefix.length - linePrefix.length;
  const candidates: string[] = [linePrefix];
  for (let k = 0; k < 8 && start > 0; k++) {
    start = prefix.lastIndexOf('\n', start - 2) + 1;
    candidates.push(prefix.slice(start));
  }
  for (let i = candidates.length - 1; i >= 0; i--) {
    const candidate = candidates[i];
    const core = candidate.trimStart();
    if (core.trim().length < 2) continue;
    if (text.startsWith(candidate)) return text.slice(candidate.length);
    const trimmed = text.trimStart();
    if (trimmed.startsWith(core)) return trimmed.slice(core.length);
  }
  return text;
}

/** Leading spaces and tabs. */
function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** A tab counts as 4 columns. */
function indentWidth(line: string): number {
  let width = 0;
  for (const char of indentOf(line)) width += char === '\t' ? 4 : 1;
  return width;
}

/**
 * Fits the first line to the cursor's column and the rest to the line's indentation. On a line of
 * only whitespace, a model that repeats the cursor's indentation loses it; one that writes less
 * (a chat model answering from column 0) has every line moved to the cursor's indentation.
 */
function fixIndentation(text: string, linePrefix: string, from: 'fim' | 'chat'): string {
  if (linePrefix.trim() !== '') {
    // Mid-line: one space is enough between the two.
    return /[ \t]$/.test(linePrefix) ? text.replace(/^[ \t]+/, '') : text;
  }
  const [first, ...rest] = text.split('\n');
  const indent = indentOf(first);
  if (indent.startsWith(linePrefix)) return [first.slice(linePrefix.length), ...rest].join('\n');
  const body = first.slice(indent.length);
  if (from === 'fim' || indent !== '') return [body, ...rest].join('\n');
  // Written from column 0: every later line is moved by the cursor's indentation too.
  return [body, ...rest.map((line) => (line.trim() === '' ? line : linePrefix + line))].join('\n');
}

/** The rest of the current line; or, from the end of a line, the next line. */
function cutLine(text: string, linePrefix: string): string {
  if (linePrefix.trim() === '') text = text.replace(/^\n+/, '');
  const newline = text.indexOf('\n');
  if (newline < 0) return text;
  const first = text.slice(0, newline);
  if (first.trim() !== '') return first;
  const next = text
    .slice(newline + 1)
    .split('\n')
    .find((line) => line.trim() !== '');
  return next === undefined ? '' : `\n${next}`;
}

/** The block's lines, up to where the indentation comes back to the opener's (a closer included). */
function cutBlock(text: string, unit: { linePrefix: string; openerIndent: number }): string {
  const lines = text.replace(/^\n+/, '').split('\n');
  const kept: string[] = [];
  let blanks = 0;
  for (let i = 0; i < lines.length && kept.length < MAX_BLOCK_LINES; i++) {
    const line = lines[i];
    const absolute = i === 0 ? unit.linePrefix + line : line;
    if (line.trim() === '') {
      if (++blanks >= 2) break;
      kept.push(line);
      continue;
    }
    blanks = 0;
    if (i > 0 && indentWidth(absolute) <= unit.openerIndent) {
      if (CLOSER_LINE.test(line)) kept.push(line);
      break;
    }
    kept.push(line);
  }
  return kept.join('\n');
}

/**
 * Drops the end of the suggestion that the text after the cursor already has: whole lines equal
 * to the next lines there, then the closing brackets and quotes (and `;`/`,`) that start the rest
 * of the line, when the suggestion closes something it did not open itself.
 */
function trimSuffixOverlap(text: string, suffix: string): string {
  const lines = text.split('\n');
  const upcoming = suffix
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 5);
  for (let m = Math.min(upcoming.length, lines.length - 1); m > 0; m--) {
    const tail = lines.slice(lines.length - m).map((line) => line.trim());
    if (tail.every((line, i) => line === upcoming[i])) {
      lines.length -= m;
      break;
    }
  }
  text = lines.join('\n');
  const newline = suffix.indexOf('\n');
  const restOfLine = newline < 0 ? suffix : suffix.slice(0, newline);
  const run = /^[)\]}"'`;,]*/.exec(restOfLine)?.[0] ?? '';
  for (let k = run.length; k > 0; k--) {
    const piece = run.slice(0, k);
    if (text.endsWith(piece) && closesFromOutside(text, piece)) return text.slice(0, text.length - k);
  }
  return text;
}

/**
 * Every bracket in `piece` closes one the text did not open itself, and every quote leaves one
 * unpaired: then the text after the cursor is what closes them. `;` and `,` need nothing.
 */
function closesFromOutside(text: string, piece: string): boolean {
  for (const char of new Set(piece)) {
    const opener = CLOSERS[char];
    if (opener !== undefined) {
      if (count(text, char) - count(text, opener) < count(piece, char)) return false;
    } else if (QUOTES.has(char) && count(text, char) % 2 === 0) return false;
  }
  return true;
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) n++;
  return n;
}
