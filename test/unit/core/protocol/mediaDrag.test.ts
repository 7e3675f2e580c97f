import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  encodeDraggedJobs,
  MAX_DRAGGED_JOBS,
  parseDraggedJobs,
} from '../../../../src/core/protocol/mediaDrag';

describe('media drag payload: what a drop of results names', () => {
  it('reads back what the tree and the gallery write, each id once', () => {
    assert.deepEqual(parseDraggedJobs(encodeDraggedJobs(['gen/1', 'gen_1', 'gen/1'])), ['gen/1', 'gen_1']);
  });

  it('names nothing for malformed, wrong-typed or oversized drops', () => {
    for (const raw of [
      undefined,
      '',
      'not json',
      '{"ids":["a"]}',
      '"a"',
      '[1, "a"]',
      '["a", null]',
      '[""]',
      JSON.stringify(['x'.repeat(501)]),
      JSON.stringify(Array.from({ length: MAX_DRAGGED_JOBS + 1 }, (_, i) => `j${i}`)),
      `[${'"a",'.repeat(400_000)}"a"]`,
    ])
      assert.deepEqual(parseDraggedJobs(raw), [], String(raw).slice(0, 40));
  });

  it('never throws and only ever names short, non-empty string ids (fuzzed)', () => {
    const payload = fc.oneof(
      fc.string(),
      fc.json(),
      fc.array(fc.oneof(fc.string(), fc.jsonValue())).map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(payload, (raw) => {
        const ids = parseDraggedJobs(raw);
        assert.ok(Array.isArray(ids));
        assert.equal(new Set(ids).size, ids.length);
        for (const id of ids) assert.ok(typeof id === 'string' && id.length > 0 && id.length <= 500);
      }),
      { numRuns: 1_000 },
    );
  });

  it('round-trips any list of ids the writers can hold (fuzzed)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 500 }), { maxLength: 50 }), (ids) => {
        assert.deepEqual(parseDraggedJobs(encodeDraggedJobs(ids)), [...new Set(ids)]);
      }),
      { numRuns: 500 },
    );
  });
});
