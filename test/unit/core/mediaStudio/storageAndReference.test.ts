import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatBytes, planCleanup } from '../../../../src/core/mediaStudio/storageBudget';
import { referenceParameterFor, withReference } from '../../../../src/core/mediaStudio/referenceImage';

describe('storage budget', () => {
  it('removes the oldest unsaved results until under the cap, never saved ones', () => {
    const plan = planCleanup(
      [
        { jobId: 'new', bytes: 40, finishedAt: 3, saved: false },
        { jobId: 'old-saved', bytes: 40, finishedAt: 1, saved: true },
        { jobId: 'old', bytes: 40, finishedAt: 2, saved: false },
      ],
      90,
    );
    assert.deepEqual(plan, { remove: ['old'], totalBytes: 120, freedBytes: 40, stillOver: false });
    const over = planCleanup([{ jobId: 's', bytes: 100, finishedAt: 1, saved: true }], 10);
    assert.deepEqual(over.remove, []);
    assert.equal(over.stillOver, true);
  });

  it('ends under the cap whenever the saved results fit (property)', () => {
    const result = fc.record({
      jobId: fc.uuid(),
      bytes: fc.nat(10_000),
      finishedAt: fc.nat(),
      saved: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.uniqueArray(result, { selector: (r) => r.jobId }), fc.nat(100_000), (results, cap) => {
        const plan = planCleanup(results, cap);
        const removed = new Set(plan.remove);
        const left = results.filter((r) => !removed.has(r.jobId));
        const leftBytes = left.reduce((s, r) => s + r.bytes, 0);
        assert.ok(results.filter((r) => removed.has(r.jobId)).every((r) => !r.saved));
        assert.equal(plan.stillOver, leftBytes > cap);
        if (results.filter((r) => r.saved).reduce((s, r) => s + r.bytes, 0) <= cap)
          assert.ok(leftBytes <= cap);
        // Nothing newer goes while an older unsaved result stays.
        const oldestKept = Math.min(...left.filter((r) => !r.saved).map((r) => r.finishedAt));
        for (const r of results) if (removed.has(r.jobId)) assert.ok(r.finishedAt <= oldestKept);
      }),
    );
    assert.equal(formatBytes(1536 * 1024), '1.5 MB');
  });
});

describe('reference images', () => {
  it('names the parameter by model family, with settings winning (longest pattern)', () => {
    assert.equal(referenceParameterFor('openai/gpt-image-1'), 'image');
    assert.equal(referenceParameterFor('black-forest-labs/flux-kontext'), 'input_image');
    assert.equal(referenceParameterFor('google/gemini-2.5-flash-image'), 'image_url');
    const overrides = { 'google/*': 'image', 'google/gemini-*': 'input_image', 'x/*': 'bogus' };
    assert.equal(referenceParameterFor('google/gemini-2.5-flash-image', overrides), 'input_image');
    assert.equal(referenceParameterFor('google/imagen', overrides), 'image');
    assert.equal(referenceParameterFor('x/y', overrides), 'image_url');
  });

  it('a variation carries one reference, under the chosen name', () => {
    assert.deepEqual(withReference({ size: '1x1', image: 'old' }, 'input_image', 'data:x'), {
      size: '1x1',
      input_image: 'data:x',
    });
  });
});
