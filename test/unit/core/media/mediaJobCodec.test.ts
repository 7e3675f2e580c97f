import * as assert from 'assert';
import { createMediaJob, inlineDataChars } from '../../../../src/core/media/mediaJob';
import type { MediaJob } from '../../../../src/core/media/mediaJob';
import { deserializeJobs, serializeJobs } from '../../../../src/core/media/mediaJobCodec';

function fullJob(id: string): MediaJob {
  return {
    ...createMediaJob(
      { id, prompt: 'a red fox', model: 'openai/gpt-image-1', parameters: { size: 'auto' } },
      1000,
    ),
    status: 'completed',
    updatedAt: 9_000,
    finishedAt: 9_000,
    outputs: [
      { kind: 'url', url: 'https://cdn.example/fox.png', mimeType: 'image/png' },
      { kind: 'data', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { kind: 'text', text: 'revised prompt' },
    ],
    error: 'none',
    lastCheckedAt: 9_000,
    lastProblem: 'Gateway busy (429), retrying in 20 s',
    pollCount: 4,
    cost: 0.04,
  };
}

/** Through JSON, as extension storage does. */
function roundTrip(jobs: MediaJob[]): unknown {
  return JSON.parse(JSON.stringify(serializeJobs(jobs)));
}

function validEntry(id: string): Record<string, unknown> {
  return { ...createMediaJob({ id, prompt: 'p', model: 'm/x' }, 5) };
}

describe('media job storage', () => {
  it('round-trips every field through JSON', () => {
    const jobs = [fullJob('a'), createMediaJob({ id: 'b', prompt: 'p', model: 'm/x' }, 2_000)];
    const result = deserializeJobs(roundTrip(jobs));
    assert.deepStrictEqual(result, { jobs, skipped: 0, problems: [] });
  });

  it('reads a job whose cost is unreadable, without the cost', () => {
    const stored = roundTrip([fullJob('a')]) as { jobs: Array<Record<string, unknown>> };
    stored.jobs[0].cost = 'a lot';
    const { jobs, skipped } = deserializeJobs(stored);
    assert.equal(skipped, 0);
    assert.equal(jobs[0].cost, undefined);
  });

  it('stores only the known fields', () => {
    const job = { ...fullJob('a'), secretScratch: 'x' } as MediaJob;
    const stored = JSON.stringify(serializeJobs([job]));
    assert.ok(!stored.includes('secretScratch'));
  });

  it('measures the inline base64 a job carries, for the host to decide where to keep it', () => {
    assert.strictEqual(inlineDataChars(fullJob('a')), 'iVBORw0KGgo='.length);
    assert.strictEqual(inlineDataChars(createMediaJob({ id: 'b', prompt: '', model: 'm' }, 0)), 0);
  });

  it('reads nothing stored yet as no jobs, without complaint', () => {
    assert.deepStrictEqual(deserializeJobs(undefined), { jobs: [], skipped: 0, problems: [] });
    assert.deepStrictEqual(deserializeJobs(null), { jobs: [], skipped: 0, problems: [] });
    assert.deepStrictEqual(deserializeJobs({ version: 1, jobs: [] }), { jobs: [], skipped: 0, problems: [] });
  });

  it('accepts a bare array of jobs', () => {
    assert.deepStrictEqual(
      deserializeJobs([validEntry('a')]).jobs.map((j) => j.id),
      ['a'],
    );
  });

  it('reports a whole value in an unknown shape once, without throwing', () => {
    const throwingGetter = Object.defineProperty({}, 'jobs', {
      get() {
        throw new Error('boom');
      },
    });
    const shapes: unknown[] = [
      'jobs',
      42,
      true,
      {},
      { jobs: 'x' },
      { jobs: {} },
      Symbol('s'),
      () => 1,
      throwingGetter,
    ];
    for (const shape of shapes) {
      const result = deserializeJobs(shape);
      assert.deepStrictEqual(result.jobs, []);
      assert.strictEqual(result.skipped, 1, String(shape));
      assert.strictEqual(result.problems.length, 1);
    }
  });

  it('skips corrupt entries, keeps the good ones and counts what it skipped', () => {
    const broken: unknown[] = [
      null,
      1,
      'job',
      [],
      {},
      { ...validEntry('x'), id: '' },
      { ...validEntry('x'), id: 7 },
      { ...validEntry('x'), prompt: undefined },
      { ...validEntry('x'), model: ['m'] },
      { ...validEntry('x'), status: 3 },
      { ...validEntry('x'), status: '' },
      { ...validEntry('x'), createdAt: '2025-01-01' },
      { ...validEntry('x'), updatedAt: Number.NaN },
      { ...validEntry('x'), createdAt: -1 },
      { ...validEntry('x'), pollCount: 1.5 },
      { ...validEntry('x'), pollCount: -1 },
      { ...validEntry('x'), pollCount: undefined },
      { ...validEntry('x'), outputs: 'none' },
      { ...validEntry('x'), outputs: [null] },
      { ...validEntry('x'), outputs: [{ kind: 'url' }] },
      { ...validEntry('x'), outputs: [{ kind: 'url', url: 'u', mimeType: 5 }] },
      { ...validEntry('x'), outputs: [{ kind: 'data', data: 'AAAA' }] },
      { ...validEntry('x'), outputs: [{ kind: 'text', text: {} }] },
      { ...validEntry('x'), outputs: [{ kind: 'video', url: 'u' }] },
      { ...validEntry('x'), parameters: 'size=1' },
      { ...validEntry('x'), parameters: [1] },
      { ...validEntry('x'), finishedAt: 'yesterday' },
      { ...validEntry('x'), lastCheckedAt: Infinity },
      { ...validEntry('x'), error: 404 },
      { ...validEntry('x'), lastProblem: false },
      new Proxy(
        {},
        {
          get() {
            throw new Error('hostile');
          },
        },
      ),
    ];
    const stored = { version: 1, jobs: [validEntry('first'), ...broken, validEntry('last')] };
    const result = deserializeJobs(stored);
    assert.deepStrictEqual(
      result.jobs.map((j) => j.id),
      ['first', 'last'],
    );
    assert.strictEqual(result.skipped, broken.length);
    // A few lines for the log, not one per entry.
    assert.strictEqual(result.problems.length, 11);
    assert.match(result.problems[0], /#2 skipped: not an object/);
    assert.match(result.problems.at(-1)!, new RegExp(`and ${broken.length - 10} more`));
  });

  it('reads null optional fields as absent', () => {
    const nulls = { parameters: null, finishedAt: null, error: null, lastCheckedAt: null, lastProblem: null };
    const entry = { ...validEntry('a'), ...nulls };
    const result = deserializeJobs([entry]);
    assert.strictEqual(result.skipped, 0);
    assert.deepStrictEqual(result.jobs[0], createMediaJob({ id: 'a', prompt: 'p', model: 'm/x' }, 5));
  });

  it('keeps the first of two entries with the same id', () => {
    const result = deserializeJobs([validEntry('a'), { ...validEntry('a'), prompt: 'second' }]);
    assert.deepStrictEqual(
      result.jobs.map((j) => j.prompt),
      ['p'],
    );
    assert.strictEqual(result.skipped, 1);
    assert.match(result.problems[0], /duplicate id a/);
  });

  it('keeps statuses this version does not know', () => {
    const result = deserializeJobs([{ ...validEntry('a'), status: 'upscaling' }]);
    assert.strictEqual(result.jobs[0]?.status, 'upscaling');
  });

  it('reads files of earlier versions, and keeps the new states, progress and polling URL', () => {
    // As 0.1 wrote it: no polling URL, no progress, a status of the four it knew.
    const old = deserializeJobs({ version: 1, jobs: [{ ...validEntry('old'), status: 'failed' }] });
    assert.strictEqual(old.skipped, 0);
    assert.strictEqual(old.jobs[0].pollingUrl, undefined);
    const jobs: MediaJob[] = [
      { ...validEntry('c'), status: 'cancelled' } as MediaJob,
      { ...validEntry('e'), status: 'expired', cost: 0.5 } as MediaJob,
      {
        ...(validEntry('r') as unknown as MediaJob),
        status: 'processing',
        progress: 0.45,
        queuePosition: 0,
        pollingUrl: 'https://gw.example.com/api/v1/videos/r',
      },
    ];
    const read = deserializeJobs(roundTrip(jobs));
    assert.deepStrictEqual(read.jobs, jobs);
  });

  it('drops a stored polling URL, progress or queue place that is not one, keeping the job', () => {
    const result = deserializeJobs([
      { ...validEntry('a'), pollingUrl: 'javascript:alert(1)', progress: 7, queuePosition: -1 },
      { ...validEntry('b'), pollingUrl: 42, progress: '0.5', queuePosition: 1.5 },
    ]);
    assert.strictEqual(result.skipped, 0);
    for (const job of result.jobs) {
      assert.strictEqual(job.pollingUrl, undefined);
      assert.strictEqual(job.progress, undefined);
      assert.strictEqual(job.queuePosition, undefined);
    }
  });
});
