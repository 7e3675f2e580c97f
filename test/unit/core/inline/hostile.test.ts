import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_COMPLETION, PrefixCache } from '../../../../src/core/inline/cache';
import { buildContext, linesOf } from '../../../../src/core/inline/context';
import { fimRequest } from '../../../../src/core/inline/requests';
import { parseAccepted } from '../../../../src/core/inline/tally';

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

  it('keeps no suggestion over the cap, so a hostile reply cannot make each keystroke slow', () => {
    const cache = new PrefixCache();
    const huge = 'a'.repeat(8_000);
    cache.store('doc', 'x'.repeat(300), '', huge);
    assert.equal(cache.lookup('doc', 'x'.repeat(300) + 'aaaa', ''), undefined);
    const most = 'a'.repeat(MAX_COMPLETION);
    cache.store('doc', 'x'.repeat(300), '', most);
    assert.equal(cache.lookup('doc', 'x'.repeat(300) + 'aaaa', ''), most.slice(4));
  });

  it('finds the same cached rest as the plain search, over arbitrary texts', () => {
    // The former quadratic search, as the reference.
    const reference = (before: string, completion: string, prefix: string): string | undefined => {
      for (let typed = 0; typed < completion.length && typed <= prefix.length; typed++) {
        if (!completion.startsWith(prefix.slice(prefix.length - typed))) continue;
        const base = prefix.slice(0, prefix.length - typed);
        if (base.slice(-256) === before || (base.length < 256 && before === base))
          return completion.slice(typed);
      }
      return undefined;
    };
    const text = (max: number) =>
      fc.array(fc.constantFrom('a', 'b', 'ab', '\n'), { maxLength: max }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.oneof(
          text(20),
          text(300).map((t) => 'b'.repeat(256) + t),
        ),
        text(30),
        text(40),
        fc.boolean(),
        (stored, completion, typedMore, cut) => {
          const cache = new PrefixCache();
          cache.store('d', stored, 's', completion);
          // A prefix that is the stored one plus some typing, or an arbitrary one.
          const prefix = cut ? stored.slice(0, stored.length - (typedMore.length % 5)) : stored + typedMore;
          const expected = completion ? reference(stored.slice(-256), completion, prefix) : undefined;
          assert.equal(cache.lookup('d', prefix, 's'), expected);
        },
      ),
    );
  });

  it("counts an acceptance only from our own item's argument, whatever another caller passes", () => {
    assert.deepEqual(parseAccepted({ cached: true }), { cached: true });
    assert.deepEqual(parseAccepted({ cached: false, model: 'a/b' }), { cached: false, model: 'a/b' });
    for (const bad of [
      undefined,
      null,
      'x',
      [],
      {},
      { cached: 'yes' },
      { cached: true, model: 'm'.repeat(201) },
    ])
      assert.equal(parseAccepted(bad), undefined);
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const accepted = parseAccepted(value);
        if (accepted === undefined) return;
        assert.equal(typeof accepted.cached, 'boolean');
        assert.ok(
          accepted.model === undefined ||
            (typeof accepted.model === 'string' && accepted.model.length <= 200),
        );
      }),
    );
  });
});
