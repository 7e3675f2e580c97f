import type { MediaStatus } from '../../../../src/api/types';
import * as assert from 'assert';
import { createMediaJob, isFinal } from '../../../../src/core/media/mediaJob';
import { MediaJobModel } from '../../../../src/core/media/mediaJobModel';
import type { MediaJobsChange } from '../../../../src/core/media/mediaJobModel';
import { record } from './fakeGateway';

function newModel(): { model: MediaJobModel; events: MediaJobsChange[]; setNow: (t: number) => void } {
  let now = 1_000;
  const model = new MediaJobModel([], () => now);
  const events: MediaJobsChange[] = [];
  model.onDidChange((event) => events.push(event));
  return { model, events, setNow: (t) => (now = t) };
}

function job(id: string, createdAt: number, status?: MediaStatus) {
  return createMediaJob({ id, prompt: `a picture of ${id}`, model: 'openai/gpt-image-1', status }, createdAt);
}

describe('MediaJobModel', () => {
  it('lists jobs newest first and running ones apart', () => {
    const { model } = newModel();
    model.add(job('old', 100));
    model.add(job('new', 300));
    model.add(job('done', 200, 'completed'));
    model.add(job('sameTimeAsNew', 300));
    assert.deepStrictEqual(
      model.all().map((j) => j.id),
      ['sameTimeAsNew', 'new', 'done', 'old'],
    );
    assert.deepStrictEqual(
      model.running().map((j) => j.id),
      ['sameTimeAsNew', 'new', 'old'],
    );
    assert.strictEqual(model.get('done')?.finishedAt, 200);
    assert.strictEqual(model.get('missing'), undefined);
  });

  it('keeps the cost a status record reports, and a later record without one does not take it back', () => {
    const { model } = newModel();
    model.add(job('a', 1_000));
    model.applyRecord('a', record('a', 'completed', { cost: 0.04 }));
    assert.strictEqual(model.get('a')?.cost, 0.04);
    model.applyRecord('a', record('a', 'completed'));
    assert.strictEqual(model.get('a')?.cost, 0.04);
  });

  it('keeps progress and the queue place while the job runs, and drops them when it ends', () => {
    const { model } = newModel();
    model.add(job('a', 1_000));
    model.applyRecord('a', record('a', 'queued', { queuePosition: 2 }));
    assert.strictEqual(model.get('a')?.queuePosition, 2);
    model.applyRecord('a', record('a', 'processing', { progress: 0.4 }));
    assert.strictEqual(model.get('a')?.queuePosition, undefined, 'out of the queue');
    assert.strictEqual(model.get('a')?.progress, 0.4);
    // An answer without progress does not take it back.
    model.applyRecord('a', record('a', 'processing'));
    assert.strictEqual(model.get('a')?.progress, 0.4);
    model.applyRecord('a', record('a', 'cancelled', { cost: 0.1 }));
    const ended = model.get('a')!;
    assert.strictEqual(ended.progress, undefined);
    assert.ok(!('progress' in ended), 'no key left for storage');
    assert.ok(isFinal(ended));
    assert.strictEqual(ended.cost, 0.1, 'a cancelled job keeps what it cost');
  });

  it('refuses a second job with the same id', () => {
    const { model } = newModel();
    model.add(job('a', 1));
    assert.throws(() => model.add(job('a', 2)), /already exists/);
  });

  it('applies a status record and reports the job finished exactly once', () => {
    const { model, events, setNow } = newModel();
    model.add(job('a', 1_000));
    setNow(2_000);
    model.applyRecord('a', record('a', 'processing'));
    assert.strictEqual(model.get('a')?.status, 'processing');
    assert.strictEqual(model.get('a')?.finishedAt, undefined);

    setNow(5_000);
    const outputs = [{ kind: 'url' as const, url: 'https://cdn.example/a.png' }];
    model.applyRecord('a', record('a', 'completed', { outputs }));
    model.applyRecord('a', record('a', 'completed', { outputs }));

    const finished = events.flatMap((e) => e.finished);
    assert.deepStrictEqual(
      finished.map((j) => j.id),
      ['a'],
    );
    assert.strictEqual(finished[0].status, 'completed');
    const a = model.get('a')!;
    assert.deepStrictEqual(a.outputs, outputs);
    assert.strictEqual(a.finishedAt, 5_000);
    assert.strictEqual(a.updatedAt, 5_000);
    assert.strictEqual(a.lastCheckedAt, 5_000);
    assert.strictEqual(a.pollCount, 3);
    assert.deepStrictEqual(
      events.map((e) => e.changed),
      [['a'], ['a'], ['a'], ['a']],
    );
  });

  it('records the error of a failed job', () => {
    const { model, events } = newModel();
    model.add(job('a', 1));
    model.applyRecord('a', record('a', 'failed', { error: 'Content policy' }));
    assert.strictEqual(model.get('a')?.error, 'Content policy');
    assert.ok(isFinal(model.get('a')!));
    assert.strictEqual(events.at(-1)?.finished.length, 1);
  });

  it('marks a job unknown to the gateway as final but not failed', () => {
    const { model, events } = newModel();
    model.add(job('a', 1));
    const unknown = model.markUnknown('a')!;
    assert.strictEqual(unknown.status, 'unknown');
    assert.strictEqual(unknown.error, undefined);
    assert.ok(isFinal(unknown));
    assert.deepStrictEqual(
      events.at(-1)?.finished.map((j) => j.id),
      ['a'],
    );
  });

  it('records a passing problem and clears it on the next good answer', () => {
    const { model } = newModel();
    model.add(job('a', 1));
    model.recordProblem('a', 'Gateway busy (429), retrying in 20 s');
    assert.strictEqual(model.get('a')?.lastProblem, 'Gateway busy (429), retrying in 20 s');
    assert.strictEqual(model.get('a')?.status, 'queued');
    assert.strictEqual(model.get('a')?.pollCount, 1);
    model.applyRecord('a', record('a', 'processing'));
    assert.ok(!('lastProblem' in model.get('a')!), 'the cleared key is gone, not undefined');
  });

  it('replaces jobs instead of mutating them, so earlier snapshots stay as they were', () => {
    const { model } = newModel();
    model.add(job('a', 1));
    const before = model.get('a')!;
    model.update('a', { prompt: 'changed' });
    assert.strictEqual(before.prompt, 'a picture of a');
    assert.strictEqual(model.get('a')?.prompt, 'changed');
  });

  it('leaves missing jobs alone without an event', () => {
    const { model, events } = newModel();
    assert.strictEqual(model.update('x', { prompt: 'p' }), undefined);
    assert.strictEqual(model.applyRecord('x', record('x', 'completed')), undefined);
    assert.strictEqual(model.markUnknown('x'), undefined);
    assert.strictEqual(model.recordProblem('x', 'p'), undefined);
    assert.strictEqual(model.remove('x'), false);
    assert.deepStrictEqual(events, []);
  });

  it('forgets finishedAt when a job is made unfinished again', () => {
    const { model, events } = newModel();
    model.add(job('a', 1));
    model.update('a', { status: 'failed' });
    model.update('a', { status: 'queued' });
    assert.strictEqual(model.get('a')?.finishedAt, undefined);
    model.update('a', { status: 'completed' });
    assert.strictEqual(events.flatMap((e) => e.finished).length, 2);
  });

  it('removes one job, or all finished ones in a single change', () => {
    const { model, events } = newModel();
    model.add(job('a', 1, 'completed'));
    model.add(job('b', 2, 'failed'));
    model.add(job('c', 3));
    model.add(job('d', 4));
    events.length = 0;

    assert.strictEqual(model.remove('d'), true);
    assert.deepStrictEqual(events[0], { changed: ['d'], finished: [], removed: ['d'] });
    assert.deepStrictEqual(model.clearFinished().sort(), ['a', 'b']);
    assert.strictEqual(events.length, 2);
    assert.deepStrictEqual(events[1].removed.sort(), ['a', 'b']);
    assert.deepStrictEqual(
      model.all().map((j) => j.id),
      ['c'],
    );
    assert.deepStrictEqual(model.clearFinished(), []);
    assert.strictEqual(events.length, 2, 'nothing cleared, no event');
  });

  it('stops calling a listener once disposed, and calls all listeners even if one throws', () => {
    const { model } = newModel();
    const seen: string[] = [];
    const subscription = model.onDidChange(() => seen.push('first'));
    model.onDidChange(() => {
      throw new Error('broken view');
    });
    model.onDidChange(() => seen.push('third'));

    assert.throws(() => model.add(job('a', 1)), /broken view/);
    assert.ok(model.get('a'), 'the change happened regardless');
    assert.deepStrictEqual(seen, ['first', 'third']);

    subscription.dispose();
    assert.throws(() => model.add(job('b', 2)));
    assert.deepStrictEqual(seen, ['first', 'third', 'third']);
  });

  it('F7: a new start under an id the model holds replaces the old job instead of throwing', () => {
    const { model, events } = newModel();
    const old = {
      ...job('reused', 100, 'completed'),
      outputs: [{ kind: 'text' as const, text: 'old result' }],
    };
    model.add(old);
    const fresh = job('reused', 2000);
    let replaced: ReturnType<MediaJobModel['start']>;
    assert.doesNotThrow(() => (replaced = model.start(fresh)));
    assert.strictEqual(replaced!, old, 'the old job is handed back, for its files to be deleted');
    assert.strictEqual(model.get('reused'), fresh, 'the job just paid for is kept');
    assert.deepStrictEqual(model.all(), [fresh]);
    // A removal, then an addition: previews of the old job close, and its polling stops.
    assert.deepStrictEqual(events.slice(-2), [
      { changed: ['reused'], finished: [], removed: ['reused'] },
      { changed: ['reused'], finished: [], removed: [] },
    ]);
    assert.strictEqual(model.start(job('other', 3000)), undefined, 'a new id is simply added');
  });
});
