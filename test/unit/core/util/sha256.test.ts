import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fc from 'fast-check';
import { hashName } from '../../../../src/core/storage/storeFiles';
import { sha256Hex } from '../../../../src/core/util/sha256';

describe('sha256Hex', () => {
  it('gives the published digests', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('matches Node for any bytes, across block boundaries', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        assert.equal(sha256Hex(bytes), createHash('sha256').update(bytes).digest('hex'));
      }),
    );
  });

  it('matches Node for any string taken as UTF-8, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (text) => {
        assert.equal(sha256Hex(text), createHash('sha256').update(text).digest('hex'));
      }),
    );
  });

  it('hashes a megabyte as Node does', () => {
    const big = new Uint8Array(1 << 20).map((_, i) => (i * 31) & 0xff);
    assert.equal(sha256Hex(big), createHash('sha256').update(big).digest('hex'));
  });

  it('names stored files (hashName) exactly as node:crypto did, for any id', () => {
    // The formula the Node build stored chats and media results under before this module.
    const before = (id: string): string => {
      const hash = createHash('sha256');
      if (/[\uD800-\uDFFF]/u.test(id)) hash.update(Buffer.from([0xff])).update(Buffer.from(id, 'utf16le'));
      else hash.update(id, 'utf8');
      return hash.digest('hex');
    };
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (id) =>
        assert.equal(hashName(id), before(id)),
      ),
      { numRuns: 500 },
    );
    for (const id of ['', 'chat-1', '\uD800', 'a\uDC00b', '😀', 'gen-123:abc@x+y.z'])
      assert.equal(hashName(id), before(id), JSON.stringify(id));
  });
});
