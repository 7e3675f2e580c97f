import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { base64Bytes, base64ToBytes, bytesToBase64, utf8Bytes, utf8Text } from '../../../src/api/base64';

describe('base64 without Buffer', () => {
  it('encodes any bytes as Node does, and decodes them back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70000 }), (bytes) => {
        const text = bytesToBase64(bytes);
        assert.equal(text, Buffer.from(bytes).toString('base64'));
        assert.deepEqual(base64ToBytes(text), bytes);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses text that is not base64 instead of skipping characters', () => {
    assert.equal(base64ToBytes('ab$d'), undefined);
    assert.equal(base64ToBytes('a'), undefined);
    assert.throws(() => base64Bytes('%%%', 'The image'), /The image is not valid base64/);
  });

  it('reads what Node read from a gateway: line breaks, no padding, the URL-safe alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(), (bytes, seed) => {
        const standard = Buffer.from(bytes).toString('base64');
        const wrapped = standard.replace(/.{76}/g, (line) => `${line}${seed % 2 ? '\r\n' : '\n'}`);
        const urlSafe = Buffer.from(bytes).toString('base64url');
        for (const text of [wrapped, ` ${standard}\t\n`, standard.replace(/=+$/, ''), urlSafe]) {
          assert.deepEqual(base64ToBytes(text), new Uint8Array(Buffer.from(text, 'base64')), text);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('still refuses what is not base64 in any alphabet', () => {
    for (const text of ['aGVsbG8=aGVs', 'aGVs\u00a0bG8=', 'a.b=', 'aGVsbG8==='])
      assert.equal(base64ToBytes(text), undefined, text);
  });

  it('reads and writes UTF-8 as Node does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (text) => {
        assert.deepEqual(Buffer.from(utf8Bytes(text)), Buffer.from(text, 'utf8'));
        assert.equal(utf8Text(Buffer.from(text, 'utf8')), Buffer.from(text, 'utf8').toString('utf8'));
      }),
    );
  });
});
