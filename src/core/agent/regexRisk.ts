/**
 * Whether a regular expression may backtrack for a very long time on one line, judged by its
 * text: where a search cannot run it in a worker that is terminated at its budget (VS Code for the
 * Web without nested workers), such a pattern is refused rather than run. Conservative: it may
 * refuse a pattern that would have been fast; it is meant to miss none of the known shapes.
 *
 * - a back-reference (`\1`, `\k<name>`);
 * - a repeated group (`*`, `+`, `{n,}`, `{n,m}` with m > 1) holding a repeat or an alternation:
 *   `(a+)+`, `(a|a)*`, `(\w+\s?)*`;
 * - repeats whose choices multiply past what one line can bear. On a line of `RISK_LINE_CHARS`
 *   characters, tried from each of its starts, `k` unbounded repeats (`*`, `+`, `{n,}`) can split
 *   the rest of the line about L^k / k! ways, and each bounded one (`?`, `{n,m}`) multiplies that
 *   by its range; each way costs a step per repeat. Over MAX_STEPS the pattern is refused: so two
 *   unbounded repeats run (`\d+\.\d+`, `\bTODO\b:?\s*(.*)$`), three do not (`\s*\s*\s*x`
 *   takes 32 s on one line of 500 spaces), nor do many optional or wide bounded ones (`\s?` twenty
 *   times, `\s{0,499}` five times, which never ends).
 */

/**
 * The line length the judgment holds for: the search cuts lines to it where it runs on the
 * host's own thread. The worst patterns let through take about 100 ms on such a line.
 */
export const RISK_LINE_CHARS = 200;
/** The most steps the estimate above may come to. */
const MAX_STEPS = 30_000_000;

/** What the repeats seen so far can cost on one line (see the file's comment). */
class RepeatCost {
  private unbounded = 0;
  private bounded = 1;
  private repeats = 0;

  add(quantifier: string): void {
    if (unbounded(quantifier)) this.unbounded++;
    else {
      const range = /^\{(\d+),(\d+)\}$/.exec(quantifier);
      const choices =
        quantifier === '?'
          ? 2
          : range
            ? Math.min(RISK_LINE_CHARS, Math.max(1, Number(range[2]) - Number(range[1]) + 1))
            : 1;
      if (choices === 1) return;
      this.bounded *= choices;
    }
    this.repeats++;
  }

  get tooMuch(): boolean {
    let ways = this.bounded;
    for (let k = 1; k <= this.unbounded; k++) ways = (ways * RISK_LINE_CHARS) / k;
    return RISK_LINE_CHARS * ways * Math.max(1, this.repeats) > MAX_STEPS;
  }
}

function quantifierAt(source: string, at: number): string {
  const char = source[at];
  if (char === '*' || char === '+' || char === '?') return char;
  if (char === '{') {
    const match = /^\{\d+(?:,\d*)?\}/.exec(source.slice(at, at + 24));
    if (match) return match[0];
  }
  return '';
}

function unbounded(quantifier: string): boolean {
  return quantifier === '*' || quantifier === '+' || /^\{\d+,\}$/.test(quantifier);
}

/** Repeats more than once: what makes a group's inner choices multiply. */
function repeats(quantifier: string): boolean {
  if (unbounded(quantifier)) return true;
  const range = /^\{(\d+),(\d+)\}$/.exec(quantifier);
  const exact = /^\{(\d+)\}$/.exec(quantifier);
  return range ? Number(range[2]) > 1 : exact ? Number(exact[1]) > 1 : false;
}

export function regexMayBacktrack(source: string): boolean {
  // For each open group: whether it holds a repeat or an alternation so far.
  const groups: Array<{ ambiguous: boolean }> = [];
  const cost = new RepeatCost();
  const count = (quantifier: string) => cost.add(quantifier);
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) return true;
      i++;
      i += mark(groups, source, i + 1, count);
      continue;
    }
    if (char === '[') {
      // A class is one character: skip to its end (an escaped `]` does not end it).
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      i += mark(groups, source, i + 1, count);
      continue;
    }
    if (char === '(') {
      groups.push({ ambiguous: false });
      continue;
    }
    if (char === '|') {
      if (groups.length) groups[groups.length - 1].ambiguous = true;
      continue;
    }
    if (char === ')') {
      const group = groups.pop();
      const quantifier = quantifierAt(source, i + 1);
      if (group?.ambiguous && repeats(quantifier)) return true;
      // What the group held makes its parent ambiguous too.
      if (group?.ambiguous && groups.length) groups[groups.length - 1].ambiguous = true;
      i += mark(groups, source, i + 1, count);
      if (cost.tooMuch) return true;
      continue;
    }
    i += mark(groups, source, i + 1, count);
    if (cost.tooMuch) return true;
  }
  return cost.tooMuch;
}

/**
 * Reads a quantifier after an atom, at `at`: a repeat makes the open group ambiguous. Returns the
 * characters it took (to skip), 0 when there is none.
 */
function mark(
  groups: Array<{ ambiguous: boolean }>,
  source: string,
  at: number,
  onRepeat: (quantifier: string) => void,
): number {
  const quantifier = quantifierAt(source, at);
  if (!quantifier) return 0;
  onRepeat(quantifier);
  if (repeats(quantifier) && groups.length) groups[groups.length - 1].ambiguous = true;
  // A lazy or possessive mark after it belongs to it.
  return quantifier.length + (source[at + quantifier.length] === '?' ? 1 : 0);
}
