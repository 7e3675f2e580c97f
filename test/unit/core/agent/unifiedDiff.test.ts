import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DIFF_MAX_MIDDLE_LINES,
  DIFF_MAX_STEPS,
  diffWork,
  unifiedDiff,
} from '../../../../src/core/agent/unifiedDiff';

/** Applies a unified diff to `before` (a checker for the property: the diff is true). */
function patch(before: string, diff: string): string {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  for (const line of diff.split('\n').slice(2)) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    if (header) {
      const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      while (at < start) out.push(a[at++]);
    } else if (line.startsWith(' ')) {
      assert.equal(a[at], line.slice(1));
      out.push(a[at++]);
    } else if (line.startsWith('-')) {
      assert.equal(a[at], line.slice(1));
      at++;
    } else if (line.startsWith('+')) out.push(line.slice(1));
  }
  while (at < a.length) out.push(a[at++]);
  return out.join('\n');
}

describe('agent tools: unified diff', () => {
  it('shows one changed line with three lines of context', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const after = 'a\nb\nc\nd\nE\nf\ng\nh\n';
    assert.equal(
      unifiedDiff(before, after, 'x.txt'),
      ['--- a/x.txt', '+++ b/x.txt', '@@ -2,7 +2,7 @@', ' b', ' c', ' d', '-e', '+E', ' f', ' g', ' h'].join(
        '\n',
      ),
    );
  });

  it('diffs a new file against /dev/null, and equal texts to nothing', () => {
    assert.equal(
      unifiedDiff(null, 'one\ntwo\n', 'n.txt'),
      ['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,2 @@', '+one', '+two'].join('\n'),
    );
    assert.equal(unifiedDiff('same\n', 'same\n', 'x'), '');
  });

  it('caps its output with a note', () => {
    const after = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const diff = unifiedDiff('', after, 'big.txt', { maxChars: 1000 });
    assert.ok(diff.length < 1100);
    assert.match(diff, /the diff is cut here at 1000 characters/);
  });

  it('stays true past its budget of differences (whole middle replaced)', () => {
    const before = Array.from({ length: 300 }, (_, i) => `a${i}`).join('\n');
    const after = Array.from({ length: 300 }, (_, i) => (i % 2 ? `a${i}` : `b${i}`)).join('\n');
    const diff = unifiedDiff(before, after, 'x', { maxEdits: 10, maxChars: 1e7 });
    assert.equal(patch(before, diff), after);
  });

  it('bounds its work: a long changed middle is replaced whole, a costly one stops at its step budget', () => {
    // 100,000 lines alternating with the old ones: Myers' algorithm would take about a billion steps.
    const long = (n: number, odd: string) =>
      Array.from({ length: n }, (_, i) => (i % 2 ? `${odd}${i}` : `a${i}`)).join('\n');
    for (const [n, bound] of [
      [100_000, 0],
      [DIFF_MAX_MIDDLE_LINES / 2, DIFF_MAX_STEPS + DIFF_MAX_MIDDLE_LINES * 2],
    ]) {
      const before = long(n, 'a');
      const after = long(n, 'b');
      const start = diffWork.steps;
      const diff = unifiedDiff(before, after, 'x', { maxEdits: 1e9, maxChars: 1e8 });
      const steps = diffWork.steps - start;
      assert.ok(steps <= bound, `${n} lines: ${steps} steps`);
      assert.equal(patch(before, diff), after);
    }
  });

  it('is a true diff: applying it to the old text gives the new (property)', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', '', 'e f'), { maxLength: 30 });
    fc.assert(
      fc.property(
        lines,
        lines,
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 40 }),
        (a, b, context, maxEdits) => {
          const before = a.join('\n');
          const after = b.join('\n');
          const diff = unifiedDiff(before, after, 'f', { context, maxEdits, maxChars: 1e7 });
          if (diff === '') assert.equal(before.replace(/\n$/, ''), after.replace(/\n$/, ''));
          else assert.equal(patch(before, diff), after.replace(/\n$/, ''));
        },
      ),
    );
  });
});
