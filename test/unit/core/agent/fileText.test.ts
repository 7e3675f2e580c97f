import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  literalMatches,
  looksBinary,
  sliceLines,
  smartIgnoreCase,
} from '../../../../src/core/agent/fileText';

describe('agent tools: file text', () => {
  const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  it('numbers the lines of a range and says which part of the file it is', () => {
    assert.equal(sliceLines(text, { startLine: 2, endLine: 3 }), '2: line 2\n3: line 3\n(lines 2–3 of 10)');
    assert.equal(sliceLines(text, {}).split('\n').length, 10);
    assert.match(sliceLines(text, { startLine: 50 }), /has 10 lines; line 50 is past its end/);
    assert.equal(sliceLines('', {}), '(the file is empty)');
  });

  it('stops at the cap and says how to read on', () => {
    const out = sliceLines(text, {}, { lines: 4, chars: 10_000 });
    assert.match(
      out,
      /^1: line 1\n2: line 2\n3: line 3\n4: line 4\n… \(lines 1–4 of 10 shown.*start_line 5\)$/,
    );
    const byChars = sliceLines(text, { startLine: 3 }, { lines: 100, chars: 20 });
    assert.match(byChars, /read on with start_line 5/);
  });

  it('finds literal matches with their line numbers, smart case', () => {
    assert.deepEqual(literalMatches('a\nfoo Bar\nbar\n', 'bar', true, 10), [
      { line: 2, text: 'foo Bar' },
      { line: 3, text: 'bar' },
    ]);
    assert.deepEqual(literalMatches('bar bar\nbar', 'bar', false, 1), [{ line: 1, text: 'bar bar' }]);
    assert.ok(smartIgnoreCase('bar'));
    assert.ok(!smartIgnoreCase('Bar'));
    assert.ok(looksBinary(new Uint8Array([65, 0, 66])));
    assert.ok(!looksBinary(new TextEncoder().encode('plain')));
  });

  it('reports each line that holds the query, with the right number (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('x', 'ab', 'zab', '', 'AB'), { maxLength: 30 }), (lines) => {
        const found = literalMatches(lines.join('\n'), 'ab', false, 1000).map((m) => m.line);
        const expected = lines.flatMap((line, i) => (line.includes('ab') ? [i + 1] : []));
        assert.deepEqual(found, expected);
      }),
    );
  });
});
