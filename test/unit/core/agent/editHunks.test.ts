import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyHunks, changedSpan, occurrences } from '../../../../src/core/agent/editHunks';

describe('agent tools: edit hunks', () => {
  it('applies hunks in order, each against the text the one before left', () => {
    const result = applyHunks('a = 1\nb = 2\n', [
      { search: 'a = 1', replace: 'a = 10' },
      { search: 'a = 10\nb', replace: 'a = 10\nc' },
    ]);
    assert.deepEqual(result, { ok: true, text: 'a = 10\nc = 2\n' });
  });

  it('says when a search is not found, with a whitespace hint when only the ends differ', () => {
    const missing = applyHunks('x\n', [{ search: 'y', replace: 'z' }]);
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.error : '', /not found.*read_file.*Nothing was changed/s);
    const spaced = applyHunks('  if (a) {\n', [{ search: 'if (a) {  ', replace: '' }]);
    assert.match(!spaced.ok ? spaced.error : '', /different leading or trailing whitespace/);
  });

  it('says how many times and where a search matches more than once, and changes nothing', () => {
    const result = applyHunks('x\ny\nx\n', [
      { search: 'y', replace: 'Y' },
      { search: 'x', replace: 'X' },
    ]);
    assert.equal(result.ok, false);
    assert.match(
      !result.ok ? result.error : '',
      /Edit 2 of 2: .*found 2 times \(at lines 1, 3\).*more of the surrounding lines/,
    );
  });

  it('keeps a CRLF file CRLF when the model sends LF', () => {
    const result = applyHunks('a\r\nb\r\nc\r\n', [{ search: 'a\nb', replace: 'A\nB' }]);
    assert.deepEqual(result, { ok: true, text: 'A\r\nB\r\nc\r\n' });
  });

  it('refuses an empty search', () => {
    const result = applyHunks('abc', [{ search: '', replace: 'x' }]);
    assert.match(!result.ok ? result.error : '', /empty "search"/);
  });

  it('counts overlapping occurrences', () => {
    assert.deepEqual(occurrences('aaa', 'aa'), [0, 1]);
  });

  it('a unique search always becomes its replacement, in place (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (prefix, suffix, replace) => {
        const search = '\u0001MARK\u0002';
        const text = prefix + search + suffix;
        const result = applyHunks(text, [{ search, replace }]);
        assert.deepEqual(result, { ok: true, text: prefix + replace + suffix });
      }),
    );
  });

  it('never throws on arbitrary hunks, and fails without changing anything (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.record({ search: fc.string(), replace: fc.string() }), { maxLength: 4 }),
        (text, hunks) => {
          const result = applyHunks(text, hunks);
          if (!result.ok) assert.ok(result.error.length > 0);
        },
      ),
    );
  });

  it('finds the one span that differs, never inside a CRLF, and replacing it gives the new text (property)', () => {
    assert.deepEqual(changedSpan('a\r\nb', 'a\nb'), { start: 1, end: 3, text: '\n' });
    assert.deepEqual(changedSpan('abc', 'abc'), { start: 3, end: 3, text: '' });
    const text = fc.stringMatching(/^[ab\r\n]{0,12}$/);
    fc.assert(
      fc.property(text, text, (before, after) => {
        const { start, end, text: middle } = changedSpan(before, after);
        assert.ok(start <= end && end <= before.length);
        assert.equal(before.slice(0, start) + middle + before.slice(end), after);
        assert.ok(!(before[start - 1] === '\r' && before[start] === '\n'), 'starts inside a CRLF');
      }),
    );
  });
});
