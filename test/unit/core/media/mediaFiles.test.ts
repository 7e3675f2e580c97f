import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  isResultFileOf,
  legacyResultFileName,
  resultFileName,
  thumbnailFileName,
} from '../../../../src/core/media/mediaFiles';
import { hashName } from '../../../../src/core/storage/storeFiles';
import { isPortableFileName } from './portableNames';

/** Any string the gateway could send as a job id, odd ones more often than chance would. */
const anyId = fc.oneof(
  fc.string({ minLength: 1, unit: 'binary' }),
  fc.string({ minLength: 1, maxLength: 2000 }),
  fc.constantFrom(
    'models/veo-3/operations/abc',
    '..',
    '.',
    'con',
    'NUL',
    'aux.png',
    '__proto__',
    'a\\b',
    'a:b',
    ' ',
    '\uD800',
    '\uFFFD',
    '\uDC00\uD800',
  ),
);

describe('media file names', () => {
  it('F2: any job id gets one name of its own, valid on Windows and POSIX, for results and thumbnails', () => {
    fc.assert(
      fc.property(
        anyId,
        fc.nat(1000),
        fc.constantFrom(undefined, 'image/png', 'video/mp4', 'x/y'),
        (id, i, mime) => {
          for (const name of [resultFileName(id, i, mime), thumbnailFileName(id)]) {
            assert.ok(isPortableFileName(name), `${JSON.stringify(id)} → ${name}`);
            assert.ok(name.startsWith(`${hashName(id)}`));
          }
          assert.ok(isResultFileOf(id, resultFileName(id, i, mime)));
        },
      ),
      { numRuns: 2000 },
    );
    // One-to-one: different ids, different names; lone surrogates included (UTF-8 alone would
    // turn them into U+FFFD and give "\uD800" the name of "\uFFFD").
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        if (a !== b) assert.notEqual(hashName(a), hashName(b));
        assert.equal(hashName(a), hashName(a));
      }),
      { numRuns: 2000 },
    );
    const tricky = [
      '\uD800',
      '\uFFFD',
      '\uDC00',
      '\uD800\uDC00',
      '\u{10000}',
      'a\uD800',
      'a\uFFFD',
      '?',
      '\uDFFF',
    ];
    assert.equal(new Set(tricky.map(hashName)).size, new Set(tricky).size);
    // The name of every id without a lone surrogate is what it was (the SHA-256 of its UTF-8):
    // results and chats stored before are found under the same names.
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (id) =>
        assert.equal(hashName(id), createHash('sha256').update(id, 'utf8').digest('hex')),
      ),
    );
  });

  it("suspected: forgetting a job never takes another job's files, legacy names included (confirmed, fixed)", () => {
    // Earlier versions named results by the id with characters replaced, cut at 80: "job/1" and
    // "job_1" both wrote "job_1-1.png", and "ABC" matched "abc-1.png" (case-blind pattern).
    assert.equal(isResultFileOf('job/1', 'job_1-1.png'), false, "job/1's removal spares job_1's file");
    assert.equal(isResultFileOf('job_1', 'job_1-1.png'), true);
    assert.equal(isResultFileOf('ABC', 'abc-1.png'), false, 'ids differing in case only');
    assert.equal(isResultFileOf('x'.repeat(90), `${'x'.repeat(80)}-1.png`), false, 'an id cut at 80');
    assert.equal(isResultFileOf('a', 'a-1-1.png'), false, 'the files of job "a-1"');
    assert.equal(legacyResultFileName('job/1', 0, 'image/png'), undefined);
    assert.equal(legacyResultFileName('job_1', 0, 'image/png'), 'job_1-1.png');
    fc.assert(
      fc.property(
        anyId,
        anyId,
        fc.nat(20),
        fc.constantFrom('image/png', 'video/mp4', undefined),
        (a, b, i, mime) => {
          fc.pre(a !== b);
          const theirs = [resultFileName(b, i, mime), legacyResultFileName(b, i, mime)];
          for (const name of theirs)
            if (name) assert.equal(isResultFileOf(a, name), false, `${a} took ${name}`);
          const mine = legacyResultFileName(a, i, mime);
          if (mine) assert.ok(isResultFileOf(a, mine));
        },
      ),
      { numRuns: 3000 },
    );
    // Ids from the same family, where a loose pattern would overlap.
    const family = fc.stringMatching(/^[aA_\-.1/]{1,6}$/);
    fc.assert(
      fc.property(family, family, fc.nat(12), (a, b, i) => {
        fc.pre(a !== b);
        for (const name of [resultFileName(b, i, 'image/png'), legacyResultFileName(b, i, 'image/png')])
          if (name) assert.equal(isResultFileOf(a, name), false, `${a} took ${name}`);
      }),
      { numRuns: 3000 },
    );
  });

  // Found in review: an id of 64 hex digits, as the gateway may choose it (the hash of another
  // job's id), had a legacy name equal to that job's hashed name, so it showed and deleted the
  // other job's files.
  it("a job id that looks like a hashed name never reaches another job's files", () => {
    const other = 'media-42';
    const lookalike = hashName(other);
    assert.match(lookalike, /^[0-9a-f]{64}$/);
    assert.equal(legacyResultFileName(lookalike, 0, 'image/png'), undefined);
    assert.equal(isResultFileOf(lookalike, resultFileName(other, 0, 'image/png')), false);
    assert.equal(isResultFileOf(other, resultFileName(other, 0, 'image/png')), true);
  });
});
