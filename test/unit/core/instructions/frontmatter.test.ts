import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFrontmatter, stringList } from '../../../../src/core/instructions/frontmatter';

describe('Instruction file headers', () => {
  it("reads Copilot's, Cline's and Continue's fields", () => {
    const copilot = parseFrontmatter('---\napplyTo: "**/*.ts,**/*.tsx"\n---\nUse tabs.\n');
    assert.deepEqual(stringList(copilot.data.applyTo), ['**/*.ts', '**/*.tsx']);
    assert.equal(copilot.body, 'Use tabs.\n');
    assert.deepEqual(copilot.problems, []);

    const cline = parseFrontmatter('---\npaths:\n  - "src/**/*.ts"\n  - lib/*.js # old\n---\nRule');
    assert.deepEqual(cline.data.paths, ['src/**/*.ts', 'lib/*.js']);

    const cont = parseFrontmatter(
      "---\nname: React\nglobs: ['**/*.{tsx,jsx}', src/**]\nalwaysApply: false\ndescription: 'It''s for React'\n---\nbody",
    );
    assert.deepEqual(cont.data.globs, ['**/*.{tsx,jsx}', 'src/**']);
    assert.equal(cont.data.alwaysApply, false);
    assert.equal(cont.data.description, "It's for React");
  });

  it('reports a bad header and keeps the file', () => {
    const unclosed = parseFrontmatter('---\napplyTo: x\nNo closing line');
    assert.equal(unclosed.body, '---\napplyTo: x\nNo closing line');
    assert.match(unclosed.problems[0], /no closing/);

    const odd = parseFrontmatter('---\n: nothing\n__proto__: x\nglobs: [a, b\nok: yes\n---\nText');
    assert.equal(odd.body, 'Text');
    assert.equal(odd.data.ok, true);
    assert.equal(Object.hasOwn(odd.data, '__proto__'), false);
    assert.equal(odd.problems.length, 3);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('reads a file without a header as all body, a BOM and CRLF too', () => {
    const plain = parseFrontmatter('# Rules\n- a');
    assert.deepEqual([Object.keys(plain.data), plain.body, plain.problems], [[], '# Rules\n- a', []]);
    const crlf = parseFrontmatter('\uFEFF---\r\nalwaysApply: true\r\n---\r\nBody');
    assert.equal(crlf.data.alwaysApply, true);
    assert.equal(crlf.body, 'Body');
  });

  it('never throws, and the body is always a tail of the text (fuzzed)', () => {
    const line = fc.oneof(
      fc.string(),
      fc.constantFrom('---', 'applyTo: "**"', 'globs:', '  - x', 'paths: [a, {b,c}]', '__proto__: 1', '- y'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, header) => {
        const text = (header ? '---\n' : '') + lines.join('\n');
        const parsed = parseFrontmatter(text);
        assert.ok(text.endsWith(parsed.body));
        assert.ok(parsed.problems.length <= 10);
        for (const value of Object.values(parsed.data))
          assert.ok(['string', 'boolean', 'number'].includes(typeof value) || Array.isArray(value));
      }),
      { numRuns: 2000 },
    );
  });
});
