import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256Hex } from '../../../../src/core/util/sha256';

const node = (input: string | Uint8Array) => createHash('sha256').update(input).digest('hex');

describe('sha256Hex', () => {
  it('gives the standard digests', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('matches node:crypto at every padding boundary', () => {
    for (let n = 0; n < 200; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      assert.equal(sha256Hex(bytes), node(bytes), `${n} bytes`);
    }
  });

  it('matches node:crypto on any bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => assert.equal(sha256Hex(bytes), node(bytes))),
      { numRuns: 500 },
    );
  });

  it('matches node:crypto on any string, lone surrogates included, as UTF-8 (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 500 }), (text) =>
        assert.equal(sha256Hex(text), node(text)),
      ),
      { numRuns: 500 },
    );
    assert.equal(sha256Hex('\ud800x'), node('\ud800x'));
  });

  it('matches node:crypto on a large input', () => {
    const bytes = Uint8Array.from({ length: 1_000_003 }, (_, i) => (i * 7919) & 0xff);
    assert.equal(sha256Hex(bytes), node(bytes));
  });
});
