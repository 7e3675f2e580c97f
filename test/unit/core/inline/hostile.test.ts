import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildContext, linesOf } from '../../../../src/core/inline/context';
import { fimRequest } from '../../../../src/core/inline/requests';

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('inline completions: hostile input to the request', () => {
  it('a language id named like an Object property gets the default comment, not a function', () => {
    for (const languageId of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const request = fimRequest('m/coder', {
        path: 'a.x',
        languageId,
        prefix: 'x',
        suffix: '',
        prefixComplete: true,
      });
      if (request.mode !== 'fim') return assert.fail('a FIM request');
      assert.equal(request.body.prompt, '// Path: a.x\nx', languageId);
    }
  });

  it('cutting a long cursor line never leaves half a surrogate pair in the windows', () => {
    const emoji = '\u{1F600}';
    const line = emoji.repeat(10) + emoji.repeat(10);
    const context = buildContext(
      linesOf(line),
      { line: 0, character: 20 },
      { path: 'a.ts', languageId: 'typescript' },
      { prefixTokens: 2, suffixTokens: 2 },
    );
    assert.doesNotMatch(context.prefix, loneSurrogate);
    assert.doesNotMatch(context.suffix, loneSurrogate);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', emoji, '\u00e9', ' '), { maxLength: 60 }),
        fc.nat(60),
        fc.nat(20),
        fc.nat(20),
        (parts, at, prefixTokens, suffixTokens) => {
          const text = parts.join('');
          // The cursor sits between characters, never inside a pair, as in the editor.
          const character = parts.slice(0, at).join('').length;
          const ctx = buildContext(
            linesOf(text),
            { line: 0, character },
            { path: 'a', languageId: 'plaintext' },
            { prefixTokens, suffixTokens },
          );
          assert.doesNotMatch(ctx.prefix, loneSurrogate);
          assert.doesNotMatch(ctx.suffix, loneSurrogate);
        },
      ),
    );
  });
});
