/**
 * Characters that make a confirmation show something other than what runs: what a terminal or a
 * shell's line editor acts on (C0 and C1 controls, DEL: `^U` erases the line, `^H` a character,
 * ESC starts a sequence), what is drawn as nothing or in another order (bidi controls, zero-width
 * and other format characters, tag characters, fillers, most variation selectors), and what looks
 * like a space or a line break but is not one to a shell (no-break and other Unicode spaces, the
 * line and paragraph separators). Pure.
 *
 * Allowed: the line feed (lines of a multi-line command), the tab (whitespace a reader sees; the
 * command never passes through a line editor, where it would complete), the plain space, and the
 * emoji presentation selectors U+FE0E and U+FE0F (part of emoji such as ⚠️).
 */

/** A character that is refused, where it is, and how it is named to the model. */
export interface HiddenCharacter {
  /** The code point. */
  codePoint: number;
  /** `U+0015`. */
  code: string;
  /** What it is, with its article (`a control character`, `a bidi control`, …). */
  kind: string;
  /** 1-based line and column (in code points) of its first occurrence. */
  line: number;
  column: number;
}

const ALLOWED = new Set([0x0a, 0x09, 0x20, 0xfe0e, 0xfe0f]);

/**
 * Invisible characters Unicode does not class as controls, formats or separators: the combining
 * grapheme joiner, Hangul and halfwidth fillers, Khmer inherent vowels, Mongolian selectors, the
 * braille blank (drawn as a space), and the variation selectors (besides the two emoji ones).
 */
const INVISIBLE: ReadonlyArray<readonly [number, number]> = [
  [0x034f, 0x034f],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x2800, 0x2800],
  [0x3164, 0x3164],
  [0xffa0, 0xffa0],
  [0xfe00, 0xfe0d],
  [0xe0100, 0xe01ef],
];
const CONTROL = /[\p{Cc}]/u;
const FORMAT = /[\p{Cf}]/u;
const SEPARATOR = /[\p{Zs}\p{Zl}\p{Zp}]/u;
const SURROGATE = /\p{Cs}/u;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** How a refused character is named; undefined for a character that is shown as it is. */
function kindOf(char: string, codePoint: number): string | undefined {
  if (ALLOWED.has(codePoint)) return undefined;
  if (CONTROL.test(char)) {
    if (codePoint === 0x0d) return 'a carriage return';
    if (codePoint === 0x1b) return 'an escape (a terminal sequence)';
    if (codePoint === 0x7f) return 'a delete control';
    return codePoint < 0x20 ? 'a control character' : 'a C1 control character';
  }
  if (BIDI.test(char)) return 'a bidi control';
  if (codePoint >= 0xe0000 && codePoint <= 0xe007f) return 'a tag character';
  if (codePoint === 0x2028 || codePoint === 0x2029) return 'a line or paragraph separator';
  if (FORMAT.test(char)) return 'an invisible format character';
  if (SEPARATOR.test(char)) return 'a space that is not a plain space';
  if (SURROGATE.test(char)) return 'an unpaired surrogate';
  if (INVISIBLE.some(([from, to]) => codePoint >= from && codePoint <= to)) return 'an invisible character';
  return undefined;
}

export function codeOf(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first refused character of `text`, or undefined when all of it is shown as it is. */
export function findHiddenCharacter(text: string): HiddenCharacter | undefined {
  let line = 1;
  let column = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (codePoint === 0x0a) {
      line++;
      column = 0;
      continue;
    }
    column++;
    const kind = kindOf(char, codePoint);
    if (kind) return { codePoint, code: codeOf(codePoint), kind, line, column };
  }
  return undefined;
}

/**
 * Text with every refused character, the line feed and the tab too, written as `⟨U+XXXX⟩`: for
 * a single-line display of outside text (an MCP server's launch) where nothing may hide.
 */
export function visibleText(text: string): string {
  let out = '';
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    out +=
      codePoint === 0x0a || codePoint === 0x09 || kindOf(char, codePoint) ? `⟨${codeOf(codePoint)}⟩` : char;
  }
  return out;
}
