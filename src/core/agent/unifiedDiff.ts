/**
 * A unified diff of two texts, for the confirmation of an edit: what the card shows before the
 * user approves. Lines common to both ends are set aside first (an edit usually touches one
 * place), then the middle is diffed with Myers' algorithm under a budget of differences; past
 * it, the middle is shown as removed and added as a whole, which is still true, only longer.
 * The output is capped.
 */

export interface DiffOptions {
  /** Lines of context around each change. */
  context?: number;
  /** Most differences Myers' algorithm looks for before it gives up on a finer diff. */
  maxEdits?: number;
  /** Longest output, in characters; the rest is cut with a note. */
  maxChars?: number;
}

export const DIFF_MAX_CHARS = 20_000;
/** A changed middle longer than this (lines, both sides) is shown replaced as a whole. */
export const DIFF_MAX_MIDDLE_LINES = 5000;
/**
 * Most steps (diagonals tried and lines compared) Myers' algorithm may take: it runs on the
 * extension host while an edit is prepared, so it must stay well under 50 ms whatever the texts.
 */
export const DIFF_MAX_STEPS = 1_000_000;

/** Steps taken so far, for the tests' bounds. */
export const diffWork = { steps: 0 };

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Myers' O((N+M)·D) diff of two line arrays, or undefined past `maxEdits` differences or
 * DIFF_MAX_STEPS steps.
 */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | undefined {
  if (a.length + b.length > DIFF_MAX_MIDDLE_LINES) return undefined;
  let budget = DIFF_MAX_STEPS;
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    budget -= v.length;
    diffWork.steps += v.length;
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
          ? v[offset + k + 1]
          : v[offset + k - 1] + 1;
      let y = x - k;
      const from = x;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      budget -= x - from + 1;
      diffWork.steps += x - from + 1;
      if (budget < 0) return undefined;
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  return undefined;
}

function backtrack(
  trace: Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
  last: number,
): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = last; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x] });
    }
    if (down) ops.push({ kind: '+', line: b[--y] });
    else ops.push({ kind: '-', line: a[--x] });
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    ops.push({ kind: ' ', line: a[x] });
  }
  return ops.reverse();
}

function lineOps(a: readonly string[], b: readonly string[], maxEdits: number): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB, maxEdits) ?? [
    ...midA.map((line): Op => ({ kind: '-', line })),
    ...midB.map((line): Op => ({ kind: '+', line })),
  ];
  return [
    ...a.slice(0, start).map((line): Op => ({ kind: ' ', line })),
    ...middle,
    ...a.slice(endA).map((line): Op => ({ kind: ' ', line })),
  ];
}

/**
 * The unified diff of `before` and `after` under the file name `path` (`/dev/null` before a new
 * file); '' when they are the same text.
 */
export function unifiedDiff(
  before: string | null,
  after: string,
  path: string,
  options: DiffOptions = {},
): string {
  const context = options.context ?? 3;
  const maxChars = options.maxChars ?? DIFF_MAX_CHARS;
  const a = splitLines(before ?? '');
  const b = splitLines(after);
  const ops = lineOps(a, b, options.maxEdits ?? 1000);
  if (!ops.some((op) => op.kind !== ' ')) return '';
  const out: string[] = [before === null ? '--- /dev/null' : `--- a/${path}`, `+++ b/${path}`];
  let length = out[0].length + out[1].length + 2;
  // Hunks: runs of changes with up to 2×context unchanged lines between them.
  let i = 0;
  let aLine = 0;
  let bLine = 0;
  const positions = ops.map((op) => {
    const at = { a: aLine, b: bLine };
    if (op.kind !== '+') aLine++;
    if (op.kind !== '-') bLine++;
    return at;
  });
  while (i < ops.length) {
    while (i < ops.length && ops[i].kind === ' ') i++;
    if (i >= ops.length) break;
    const first = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < ops.length) {
      if (ops[end].kind !== ' ') lastChange = end;
      else if (end - lastChange > 2 * context) break;
      end++;
    }
    const stop = Math.min(ops.length, lastChange + context + 1);
    const slice = ops.slice(first, stop);
    const countA = slice.filter((op) => op.kind !== '+').length;
    const countB = slice.filter((op) => op.kind !== '-').length;
    const startA = countA === 0 ? positions[first].a : positions[first].a + 1;
    const startB = countB === 0 ? positions[first].b : positions[first].b + 1;
    const lines = [
      `@@ -${startA},${countA} +${startB},${countB} @@`,
      ...slice.map((op) => op.kind + op.line),
    ];
    for (const line of lines) {
      if (length + line.length + 1 > maxChars) {
        out.push(`… (the diff is cut here at ${maxChars} characters)`);
        return out.join('\n');
      }
      out.push(line);
      length += line.length + 1;
    }
    i = stop;
  }
  return out.join('\n');
}
