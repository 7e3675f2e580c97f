/**
 * What an inline completion may see of a document: a prefix and a suffix window around the
 * cursor, each budgeted in tokens (estimated, no tokenizer) and cut at whole lines, plus the file's
 * path and language. Pure: the host hands in the document's lines through `TextLines`.
 */
import { estimateTextTokens } from '../lm/tokens';
import { cutAt } from '../util/text';

/** A document as lines (without their line breaks), read only as far as the budget reaches. */
export interface TextLines {
  readonly lineCount: number;
  lineAt(line: number): string;
}

export interface CursorPosition {
  line: number;
  character: number;
}

export interface ContextBudget {
  prefixTokens: number;
  suffixTokens: number;
}

export const DEFAULT_BUDGET: ContextBudget = { prefixTokens: 1500, suffixTokens: 500 };

/** The cursor's surroundings, as sent. */
export interface CursorContext {
  /** Workspace-relative path with `/` separators ('' for an untitled file). */
  path: string;
  languageId: string;
  /** From a line start to the cursor. */
  prefix: string;
  /** From the cursor to a line end. */
  suffix: string;
  /** The prefix window starts at the document's start (nothing before it was cut). */
  prefixComplete: boolean;
}

/**
 * The windows around `position`. The cursor's own line is always whole in them (cut only past
 * the budget's characters), then whole lines are added outwards while the budget lasts.
 */
export function buildContext(
  doc: TextLines,
  position: CursorPosition,
  meta: { path: string; languageId: string },
  budget: ContextBudget = DEFAULT_BUDGET,
): CursorContext {
  const lineCount = Math.max(0, doc.lineCount);
  const line = Math.min(Math.max(0, position.line), Math.max(0, lineCount - 1));
  const current = lineCount > 0 ? doc.lineAt(line) : '';
  const character = Math.min(Math.max(0, position.character), current.length);
  const maxPrefixChars = Math.max(0, budget.prefixTokens) * 4;
  const maxSuffixChars = Math.max(0, budget.suffixTokens) * 4;
  let head = current.slice(0, character);
  let tail = current.slice(character);
  // A cut may fall inside a surrogate pair: the half left over is dropped, not sent.
  if (head.length > maxPrefixChars)
    head = head.slice(head.length - maxPrefixChars).replace(/^[\uDC00-\uDFFF]/, '');
  tail = cutAt(tail, maxSuffixChars);

  const before: string[] = [];
  let spent = estimateTextTokens(head);
  let first = line;
  for (let i = line - 1; i >= 0; i--) {
    const text = doc.lineAt(i);
    const cost = estimateTextTokens(text) + 1;
    if (spent + cost > budget.prefixTokens) break;
    spent += cost;
    before.push(text);
    first = i;
  }
  const after: string[] = [];
  spent = estimateTextTokens(tail);
  for (let i = line + 1; i < lineCount; i++) {
    const text = doc.lineAt(i);
    const cost = estimateTextTokens(text) + 1;
    if (spent + cost > budget.suffixTokens) break;
    spent += cost;
    after.push(text);
  }
  before.reverse();
  return {
    path: meta.path,
    languageId: meta.languageId,
    prefix: before.length > 0 ? `${before.join('\n')}\n${head}` : head,
    suffix: after.length > 0 ? `${tail}\n${after.join('\n')}` : tail,
    prefixComplete: first === 0 && head.length === character,
  };
}

/** A `TextLines` over a string, for tests and the benchmark. */
export function linesOf(text: string): TextLines {
  const lines = text.split(/\r?\n/);
  return { lineCount: lines.length, lineAt: (i) => lines[i] ?? '' };
}

/** The line and character of a string offset (`\n` line breaks). */
export function positionAt(text: string, offset: number): CursorPosition {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length - 1;
  return { line, character: before.length - (before.lastIndexOf('\n') + 1) };
}
