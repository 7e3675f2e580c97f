/**
 * Whether a regular expression may backtrack for a very long time on one line, judged by its
 * text: where a search cannot run it in a worker that is terminated at its budget (VS Code for the
 * Web without nested workers), such a pattern is refused rather than run. Conservative: it may
 * refuse a pattern that would have been fast; it is meant to miss none of the known shapes.
 *
 * - a back-reference (`\1`, `\k<name>`);
 * - a repeated group (`*`, `+`, `{n,}`, `{n,m}` with m > 1) holding a repeat or an alternation:
 *   `(a+)+`, `(a|a)*`, `(\w+\s?)*`;
 * - more than three unbounded repeats in all (`a*a*a*a*b` is polynomial, of a high degree).
 */

/** The quantifier at `at` ('' when none): `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`. */
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
  let unboundedCount = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) return true;
      i++;
      i += mark(groups, source, i + 1, () => unboundedCount++);
      continue;
    }
    if (char === '[') {
      // A class is one character: skip to its end (an escaped `]` does not end it).
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      i += mark(groups, source, i + 1, () => unboundedCount++);
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
      i += mark(groups, source, i + 1, () => unboundedCount++);
      if (unboundedCount > 3) return true;
      continue;
    }
    i += mark(groups, source, i + 1, () => unboundedCount++);
    if (unboundedCount > 3) return true;
  }
  return unboundedCount > 3;
}

/**
 * Reads a quantifier after an atom, at `at`: a repeat makes the open group ambiguous. Returns the
 * characters it took (to skip), 0 when there is none.
 */
function mark(
  groups: Array<{ ambiguous: boolean }>,
  source: string,
  at: number,
  onUnbounded: () => void,
): number {
  const quantifier = quantifierAt(source, at);
  if (!quantifier) return 0;
  if (unbounded(quantifier)) onUnbounded();
  if (repeats(quantifier) && groups.length) groups[groups.length - 1].ambiguous = true;
  // A lazy or possessive mark after it belongs to it.
  return quantifier.length + (source[at + quantifier.length] === '?' ? 1 : 0);
}
