/**
 * The name skeleton that keeps a workspace agent from passing for a built-in mode: lookalike
 * letters, invisible characters and compatibility forms give one skeleton; other names keep theirs.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { looksLike, nameSkeleton } from '../../../../src/core/util/confusables';

describe('Name skeletons (confusables)', () => {
  it('reads Cyrillic, Greek and Cherokee lookalikes, I/1/| for l, fullwidth and bold forms as the Latin name', () => {
    for (const [a, b] of [
      ['\u0410sk', 'Ask'],
      ['\u0391\u0455\u043a', 'ask'],
      ['P\u0406an', 'Plan'],
      ['PIan', 'plan'],
      ['P1an', 'Plan'],
      ['\uff21\uff53\uff4b', 'Ask'],
      ['\u{1d400}\u{1d42c}\u{1d424}', 'Ask'],
      ['\u13aask', 'Ask'],
      ['\u0391g\u0435\u03b7t', 'Agent'],
      ['\u00c0sk', 'Ask'],
      ['co\u0072\u006eer', 'comer'],
    ])
      assert.ok(looksLike(a, b), `${a} / ${b}`);
    for (const [a, b] of [
      ['Planner', 'Plan'],
      ['Asker', 'Ask'],
      ['\u041f\u043b\u0430\u043d', 'Plan'],
    ])
      assert.ok(!looksLike(a, b), `${a} / ${b}`);
  });

  it('invisible and format characters never change a skeleton (property)', () => {
    const invisible = fc.constantFrom(
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u00ad',
      '\u034f',
      '\ufe0f',
      '\u180e',
      '\u202e',
      '\u2066',
      '\u{e0041}',
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), invisible), { maxLength: 6 }),
        (name, inserts) => {
          // Inserted between whole characters (never inside a surrogate pair).
          const chars = [...name];
          for (const [at, char] of inserts) chars.splice(at % (chars.length + 1), 0, char);
          const hidden = chars.join('');
          assert.equal(nameSkeleton(hidden), nameSkeleton(name));
        },
      ),
    );
  });

  it('never throws, and stays bounded for any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), (text) => {
        assert.ok(nameSkeleton(text).length <= 1000 * 18);
      }),
    );
  });
});
