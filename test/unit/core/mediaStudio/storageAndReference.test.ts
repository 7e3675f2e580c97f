import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createMediaJob } from '../../../../src/core/media/mediaJob';
import { parseJobsFile, serializeJobsFile } from '../../../../src/core/media/mediaJobFile';
import {
  BudgetNotice,
  budgetWarning,
  formatBytes,
  planCleanup,
} from '../../../../src/core/mediaStudio/storageBudget';
import type { StoredResult } from '../../../../src/core/mediaStudio/storageBudget';
import {
  dataUrl,
  hasInlineReferences,
  isStoredReference,
  loadReferences,
  MissingReferenceError,
  referenceFilesOf,
  referenceParameterFor,
  storeReferences,
  withReference,
} from '../../../../src/core/mediaStudio/referenceImage';

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
    assert.deepEqual(plan.remove, ['old']);
    assert.deepEqual(
      [plan.totalBytes, plan.freedBytes, plan.stillOver, plan.keptNewest],
      [120, 40, false, 'new'],
    );
    const over = planCleanup([{ jobId: 's', bytes: 100, finishedAt: 1, saved: true }], 10);
    assert.deepEqual(over.remove, []);
    assert.equal(over.stillOver, true);
  });

  it('F1: cleanup never deletes the newest unsaved result; when the limit cannot be met it says so once and keeps it', () => {
    const MB = 1024 * 1024;
    const results: StoredResult[] = [
      { jobId: 'saved', bytes: 150 * MB, finishedAt: 1, saved: true },
      { jobId: 'older', bytes: 10 * MB, finishedAt: 2, saved: false },
      { jobId: 'newest', bytes: 10 * MB, finishedAt: 3, saved: false },
    ];
    // Saved results alone take 150 MB of the 100 MB allowed.
    const plan = planCleanup(results, 100 * MB);
    assert.ok(!plan.remove.includes('newest'), `the newest result is kept (plan: ${plan.remove.join(', ')})`);
    assert.deepEqual(plan.remove, ['older']);
    assert.equal(plan.stillOver, true);
    assert.equal(plan.keptNewest, 'newest');
    // The user is told, once: not again at the next cleanup (one runs after every finished job).
    const notice = new BudgetNotice();
    assert.equal(notice.shouldWarn(plan, 100 * MB), true);
    const warning = budgetWarning(plan, 100);
    assert.match(warning ?? '', /results saved to the workspace alone take 150\.0 MB, more than the 100 MB/);
    assert.match(warning ?? '', /so is the newest result/);
    assert.match(warning ?? '', /Raise the limit/);
    const nextRun = planCleanup(
      results.filter((r) => r.jobId !== 'older'),
      100 * MB,
    );
    assert.deepEqual(nextRun.remove, []);
    assert.equal(notice.shouldWarn(nextRun, 100 * MB), false, 'said once, not per run');
    // Said again only after the limit was met (or changed) in between.
    assert.equal(notice.shouldWarn(nextRun, 200 * MB), true, 'a new limit that cannot be met either');
    assert.equal(notice.shouldWarn(planCleanup(results, 500 * MB), 500 * MB), false);
    assert.equal(notice.shouldWarn(nextRun, 100 * MB), true);
    // A newest result too large on its own is kept as well, and said so.
    const huge = planCleanup([{ jobId: 'big', bytes: 300 * MB, finishedAt: 9, saved: false }], 100 * MB);
    assert.deepEqual(huge.remove, []);
    assert.match(budgetWarning(huge, 100) ?? '', /newest media result does not fit/);
    assert.equal(budgetWarning(planCleanup(results, 500 * MB), 500), undefined);
  });

  it('ends under the cap whenever the saved results and the newest unsaved one fit (property)', () => {
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
        const unsaved = results.filter((r) => !r.saved);
        const newest = unsaved
          .sort((a, b) => a.finishedAt - b.finishedAt || a.jobId.localeCompare(b.jobId))
          .at(-1);
        if (newest) assert.ok(!removed.has(newest.jobId), 'the newest unsaved result stays');
        const mustStay = results.filter((r) => r.saved || r === newest).reduce((s, r) => s + r.bytes, 0);
        if (mustStay <= cap) assert.ok(leftBytes <= cap);
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

describe('reference images as files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'gateway-refs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, bytes: Uint8Array) =>
    Promise.resolve(writeFileSync(path.join(dir, name), bytes));
  const read = (name: string) => {
    try {
      return Promise.resolve(new Uint8Array(readFileSync(path.join(dir, name))));
    } catch {
      return Promise.resolve(undefined);
    }
  };
  /** A reference image as big as the ones that made jobs.json 27 MB, in bytes that do not compress. */
  function image(size: number, seed: number): Buffer {
    const bytes = Buffer.alloc(size);
    let x = seed;
    for (let i = 0; i < size; i++) bytes[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    return bytes;
  }

  it('F8: a reference image is kept as a file and jobs.json holds only its name; an old inline one still reads and moves out', async () => {
    const png = image(2_000_000, 7);
    const url = dataUrl('image/png', png.toString('base64'));
    const parameters = { size: '1024x1024', image_url: url, images: [url, 'https://cdn.example/b.png'] };

    // What a job keeps: the same image once, as a file; the parameters name it.
    const kept = await storeReferences(parameters, write);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.deepEqual(readFileSync(path.join(dir, files[0])), png);
    assert.equal(files[0], referenceFilesOf(kept)[0]);
    assert.ok(isStoredReference(kept['image_url']));
    const text = serializeJobsFile({
      jobs: [createMediaJob({ id: 'j', prompt: 'p', model: 'a/b', parameters: kept }, 1)],
      removed: {},
    });
    assert.ok(!text.includes('base64'), 'no data URL in jobs.json');
    assert.ok(text.length < 1_000, `jobs.json is small (${text.length} characters)`);
    // A re-run sends the image again, exactly as it was.
    const stored = parseJobsFile(JSON.parse(text))!.jobs[0].parameters!;
    assert.deepEqual(await loadReferences(stored, read), parameters);

    // jobs.json of an earlier version, with the image inline: read as before, then moved out.
    const old = serializeJobsFile({
      jobs: [createMediaJob({ id: 'old', prompt: 'p', model: 'a/b', parameters }, 1)],
      removed: {},
    });
    const oldJob = parseJobsFile(JSON.parse(old))!.jobs[0];
    assert.deepEqual(oldJob.parameters, parameters, 'an old jobs file still reads');
    assert.equal(hasInlineReferences(oldJob.parameters), true, 'and is found to need moving');
    const moved = await storeReferences(oldJob.parameters, write);
    assert.equal(hasInlineReferences(moved), false);
    assert.deepEqual(await loadReferences(moved, read), parameters, 'nothing is lost on the way');

    // A file gone (deleted by hand): the re-run says so instead of sending something else.
    rmSync(path.join(dir, files[0]));
    await assert.rejects(loadReferences(stored, read), MissingReferenceError);
    assert.equal(await storeReferences({ size: 'x' }, write).then((p) => p.size), 'x');
  });

  it('F8: storing and loading references gives back any parameters exactly, and reads any stored value without throwing (property)', async () => {
    const dataUrls = fc
      .tuple(
        fc.constantFrom('image/png', 'image/webp', '', 'image/png;name=a.png'),
        fc.uint8Array({ maxLength: 64 }),
      )
      .map(([type, bytes]) => dataUrl(type, Buffer.from(bytes).toString('base64')));
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        dataUrls,
        fc.string().map((s) => `data:${s}`),
        fc.array(tie('any'), { maxLength: 3 }),
        fc.dictionary(fc.string(), tie('any'), { maxKeys: 3 }),
      ),
    })).any;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), value, { maxKeys: 5 }), async (parameters) => {
        const original = JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>;
        const kept = await storeReferences(original, write);
        assert.equal(hasInlineReferences(kept), false);
        const viaFile = JSON.parse(JSON.stringify(kept)) as Record<string, unknown>;
        assert.deepEqual(await loadReferences(viaFile, read), original);
      }),
      { numRuns: 300 },
    );
    // Whatever a hand-edited jobs file holds: a missing reference is the only error.
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue()), async (parameters) => {
        await loadReferences(parameters, read).catch((error: unknown) => {
          assert.ok(error instanceof MissingReferenceError);
        });
        referenceFilesOf(parameters);
        hasInlineReferences(parameters);
      }),
    );
    assert.ok(statSync(dir).isDirectory());
  });
});
