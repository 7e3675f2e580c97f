import * as assert from 'node:assert/strict';
import { createMediaJob } from '../../../../src/core/media/mediaJob';
import type { MediaJob } from '../../../../src/core/media/mediaJob';
import {
  MEDIA_JOBS_FILE,
  isRemovedCopy,
  lacksAny,
  MediaJobFile,
  mergeJobs,
  parseJobsFile,
  pickJob,
} from '../../../../src/core/media/mediaJobFile';
import { flakyFolder, memoryFolder } from '../storage/tempFolder';

function job(id: string, patch: Partial<MediaJob> = {}): MediaJob {
  return { ...createMediaJob({ id, prompt: `p ${id}`, model: 'a/b' }, 1000), ...patch };
}

const completed = (id: string, at: number) =>
  job(id, {
    status: 'completed',
    updatedAt: at,
    finishedAt: at,
    outputs: [{ kind: 'url', url: `file:///r/${id}.png`, mimeType: 'image/png' }],
  });

describe('MediaJobFile', () => {
  it("a result is never undone by another window's later but older answer", () => {
    const done = completed('j', 2000);
    const stale = job('j', { status: 'processing', updatedAt: 3000, pollCount: 4 });
    assert.equal(pickJob(done, stale), done);
    assert.equal(pickJob(stale, done), done);
  });

  it('the newer of two running copies wins; outputs are never dropped', () => {
    const a = job('j', { status: 'processing', updatedAt: 2000 });
    const b = job('j', { status: 'processing', updatedAt: 2500 });
    assert.equal(pickJob(a, b), b);
    const withOutputs = completed('k', 2000);
    const newerWithout = { ...completed('k', 3000), outputs: [] };
    assert.deepEqual(pickJob(withOutputs, newerWithout).outputs, withOutputs.outputs);
  });

  it("merges both windows' jobs and respects removals", () => {
    const merged = mergeJobs(
      { jobs: [job('a'), job('gone')], removed: {} },
      { jobs: [job('b')], removed: { gone: 5000 } },
    );
    assert.deepEqual(merged.jobs.map((j) => j.id).sort(), ['a', 'b']);
    assert.equal(merged.removed['gone'], 5000);
  });

  it('reads the old globalState shapes (a bare array, { version, jobs })', () => {
    assert.equal(parseJobsFile([job('x')])?.jobs.length, 1);
    assert.equal(parseJobsFile({ version: 1, jobs: [job('y')] })?.jobs.length, 1);
    assert.equal(parseJobsFile({ nope: true }), undefined);
    assert.equal(
      parseJobsFile({ jobs: [{ ...job('x'), id: '' }] })?.jobs.length,
      0,
      'an empty id is skipped',
    );
  });

  it('a job removed while a save waits in the queue is not written back or handed back', async () => {
    const file = new MediaJobFile(memoryFolder());
    const first = file.save([job('a')]);
    // Queued behind the first write, with a snapshot that still holds the job.
    let handedBack: string[] = [];
    const second = file.save([job('a'), job('b')], (merged) => {
      handedBack = merged.jobs.map((j) => j.id);
    });
    file.markRemoved('b');
    await Promise.all([first, second]);
    assert.deepEqual(handedBack, ['a'], 'the removed job is not handed back to the model');
    assert.ok(file.isRemoved(job('b')), 'the removal is remembered after the write');
    assert.deepEqual(
      (await file.read()).jobs.map((j) => j.id),
      ['a'],
    );
  });

  it("two windows saving at once keep each other's jobs", async () => {
    const folder = memoryFolder();
    const one = new MediaJobFile(folder);
    const two = new MediaJobFile(folder);
    const mine = Array.from({ length: 5 }, (_, i) => job(`one-${i}`));
    const theirs = Array.from({ length: 5 }, (_, i) => job(`two-${i}`));
    await Promise.all(
      mine
        .map((_, i) => one.save(mine.slice(0, i + 1)))
        .concat(theirs.map((_, i) => two.save(theirs.slice(0, i + 1)))),
    );
    // Each window notices (its watcher) and writes back what the file lacks.
    for (const [window, jobs] of [
      [one, mine],
      [two, theirs],
    ] as const) {
      if (lacksAny(await window.read(), jobs)) await window.save(jobs);
    }
    const read = await new MediaJobFile(folder).read();
    assert.equal(lacksAny(read, mine), false);
    assert.equal(lacksAny(read, theirs), false);
    assert.deepEqual(read.jobs.map((j) => j.id).sort(), [...mine, ...theirs].map((j) => j.id).sort());
  });

  it("a removal in one window is not brought back by the other's save", async () => {
    const folder = memoryFolder();
    const one = new MediaJobFile(folder);
    const two = new MediaJobFile(folder);
    await one.save([job('x'), job('y')]);
    await two.read();
    one.markRemoved('x');
    await one.save([job('y')]);
    let merged: string[] = [];
    await two.save(
      [job('x', { updatedAt: 99_999, pollCount: 9 }), job('y')],
      (m) => (merged = m.jobs.map((j) => j.id)),
    );
    assert.deepEqual(merged, ['y']);
    assert.deepEqual(
      (await new MediaJobFile(folder).read()).jobs.map((j) => j.id),
      ['y'],
    );
  });

  it('keeps an unreadable jobs file aside instead of writing over it', async () => {
    const folder = memoryFolder({ [MEDIA_JOBS_FILE]: '{"version":2,"jobs":[{"id":"a"' });
    const kept: string[] = [];
    const file = new MediaJobFile(folder, { onKept: (k) => kept.push(k.keptAs) });
    await file.save([job('new')]);
    assert.equal(kept.length, 1);
    assert.equal(folder.files.get(kept[0]), '{"version":2,"jobs":[{"id":"a"');
    assert.deepEqual(
      (await file.read()).jobs.map((j) => j.id),
      ['new'],
    );
  });

  it('a failing save resolves, is reported once and lands later', async () => {
    let full = true;
    const failures: unknown[] = [];
    const folder = memoryFolder();
    const file = new MediaJobFile(
      flakyFolder(folder, () => full),
      { onSaveFailed: (e) => failures.push(e) },
    );
    await file.save([job('a')]);
    await file.save([job('a'), job('b')]);
    assert.equal(failures.length, 1);
    full = false;
    await file.flush();
    assert.deepEqual((await file.read()).jobs.map((j) => j.id).sort(), ['a', 'b']);
    file.dispose();
  });

  it('F2: a job under any id the gateway sends survives the jobs file, and is not written again and again', async () => {
    const ids = [
      'models/veo-3/operations/abc',
      'x'.repeat(300),
      'a b?c#d',
      '..',
      'con',
      '__proto__',
      'constructor',
      '名前\n\u0000',
      '\uD800',
    ];
    const folder = memoryFolder();
    const window = new MediaJobFile(folder);
    const ours = ids.map((id, i) => completed(id, 2000 + i));
    await window.save(ours);
    const read = await new MediaJobFile(folder).read();
    assert.deepEqual(
      read.jobs.map((j) => j.id),
      ids,
      'every job is read back, under its own id',
    );
    assert.deepEqual(read.jobs, ours);
    // What a window does when the file changes: write again only if the file lacks something.
    assert.equal(lacksAny(read, ours), false, 'nothing to write back: no endless rewrite');
    window.markRemoved('models/veo-3/operations/abc');
    await window.save(ours.slice(1));
    assert.ok((await new MediaJobFile(folder).read()).removed['models/veo-3/operations/abc'] !== undefined);
  });

  it('F5: a result is not wiped by a later "unknown" copy (404) from another window', async () => {
    const done = completed('j', 2000);
    const unknown = job('j', { status: 'unknown', updatedAt: 3000, finishedAt: 3000, pollCount: 7 });
    assert.equal(pickJob(done, unknown), done);
    assert.equal(pickJob(unknown, done), done);
    const failed = job('k', { status: 'failed', error: 'no credits', updatedAt: 2000, finishedAt: 2000 });
    assert.equal(pickJob({ ...failed, status: 'unknown', updatedAt: 9000 }, failed), failed);
    // Through the file: the window that got 404 saves last.
    const folder = memoryFolder();
    await new MediaJobFile(folder).save([done]);
    let merged: MediaJob[] = [];
    await new MediaJobFile(folder).save([unknown], (m) => (merged = m.jobs));
    assert.deepEqual(merged, [done], 'the merge handed back to the 404 window is the result');
    assert.deepEqual((await new MediaJobFile(folder).read()).jobs, [done]);
  });

  it('F7: a new start under an id the gateway gave again wins every merge, even after the old job was removed', async () => {
    const old = completed('reused', 2000);
    const fresh = createMediaJob({ id: 'reused', prompt: 'new', model: 'a/b' }, 5000);
    // The old job is final and the new one is not: the later start still wins.
    assert.equal(pickJob(old, fresh), fresh);
    assert.equal(pickJob(fresh, old), fresh);
    assert.deepEqual(mergeJobs({ jobs: [old], removed: {} }, { jobs: [fresh], removed: {} }).jobs, [fresh]);

    // The user removed the old job (at 4000), then the gateway gave its id to a new job.
    const folder = memoryFolder();
    const one = new MediaJobFile(folder);
    const two = new MediaJobFile(folder);
    await one.save([old]);
    await two.read();
    one.markRemoved('reused');
    await one.save([]);
    const removedAt = one.removedAt('reused')!;
    const restarted = { ...fresh, createdAt: removedAt + 1, updatedAt: removedAt + 1 };
    assert.equal(one.isRemoved(restarted), false);
    assert.equal(one.isRemoved(old), true);
    let handedBack: MediaJob[] = [];
    await one.save([restarted], (m) => (handedBack = m.jobs));
    assert.deepEqual(handedBack, [restarted], 'the new start is kept, not dropped as removed');
    // The other window still holds the old copy: it neither brings it back nor drops the new one.
    await two.save([old]);
    const read = await new MediaJobFile(folder).read();
    assert.deepEqual(read.jobs, [restarted]);
    assert.equal(lacksAny(read, [restarted]), false);
    assert.equal(isRemovedCopy(old, read.removed), true);
  });
});
