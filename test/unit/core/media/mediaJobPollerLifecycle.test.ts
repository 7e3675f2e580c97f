import type { MediaStatus } from '../../../../src/api/types';
import * as assert from 'assert';
import { createMediaJob } from '../../../../src/core/media/mediaJob';
import { deserializeJobs, serializeJobs } from '../../../../src/core/media/mediaJobCodec';
import { minimumRequestsFor } from '../../../../src/core/media/pollSchedule';
import { FakeClock } from './fakeClock';
import { completesAfter, record } from './fakeGateway';
import { MINUTE, pollerHarness, SECOND } from './pollerHarness';

/** Deterministic numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('MediaJobPoller: concurrency', () => {
  it('never has more than maxConcurrent requests in flight, with 50 jobs', async () => {
    const random = seededRandom(3);
    const durations = new Map<string, number>();
    const startedAt = new Map<string, number>();
    const h = pollerHarness({ maxConcurrent: 4, latencyMs: 700, random });
    h.gateway.script = completesAfter(durations, startedAt);
    for (let i = 0; i < 50; i++) {
      const id = `job${i}`;
      durations.set(id, 2 * SECOND + Math.floor(random() * 3 * MINUTE));
      startedAt.set(id, h.clock.now());
      h.start(id);
      await h.clock.advance(Math.floor(random() * 500));
    }
    await h.clock.advance(10 * MINUTE);

    assert.strictEqual(h.gateway.peakInFlight, 4, 'the cap is reached, and held');
    assert.ok(h.poller.peakInFlight <= 4);
    assert.strictEqual(h.gateway.peakPerJob, 1, 'never two requests for one job');
    assert.ok(h.model.all().every((job) => job.status === 'completed'));
    assert.strictEqual(h.poller.requestCount, h.gateway.calls.length);
    assert.strictEqual(h.poller.inFlight, 0);
  });

  it('serves the longest-overdue job first', async () => {
    const h = pollerHarness({ maxConcurrent: 1, latencyMs: 5 * SECOND });
    h.start('a');
    await h.clock.advance(100);
    h.start('b');
    await h.clock.advance(100);
    h.start('c');
    await h.clock.advance(11 * SECOND);
    // a at 1 s; b and c wait behind it and go in the order they became due.
    assert.deepStrictEqual(
      h.gateway.calls.slice(0, 3).map((c) => c.id),
      ['a', 'b', 'c'],
    );
  });

  it('on a tie, checks the older job first', async () => {
    const clock = new FakeClock();
    const longAgo = clock.now() - 60 * MINUTE;
    const jobs = ['older', 'newer'].map((id, i) => ({
      ...createMediaJob({ id, prompt: 'p', model: 'm/x' }, longAgo + i),
      lastCheckedAt: longAgo + 10,
      pollCount: 3,
    }));
    const h = pollerHarness({ clock, jobs, maxConcurrent: 1, latencyMs: SECOND });
    h.poller.resume();
    await clock.advance(SECOND);
    assert.deepStrictEqual(
      h.gateway.calls.map((c) => c.id),
      ['older', 'newer'],
    );
  });

  it('makes few more requests than the schedule minimum for a single job', async () => {
    for (const duration of [3 * SECOND, 20 * SECOND, 2 * MINUTE, 10 * MINUTE]) {
      const random = seededRandom(duration);
      const durations = new Map([['a', duration]]);
      const h = pollerHarness({ latencyMs: 300, random });
      h.gateway.script = completesAfter(durations, new Map([['a', h.clock.now()]]));
      h.start('a');
      await h.clock.advance(duration + 2 * MINUTE);
      const made = h.gateway.calls.length;
      const minimum = minimumRequestsFor(duration);
      assert.ok(made <= minimum * 1.5, `${made} requests for a ${duration} ms job, minimum ${minimum}`);
    }
  });
});

describe('MediaJobPoller: focus', () => {
  it('pauses jobs that are not close to done while unfocused, and checks them promptly on focus', async () => {
    const h = pollerHarness({ script: (id) => record(id, 'queued') });
    h.start('a');
    await h.clock.advance(2 * MINUTE);
    h.poller.setFocused(false);
    const before = h.gateway.calls.length;
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.calls.length, before, 'no requests in the background');
    assert.strictEqual(h.clock.pendingTimers, 0, 'and no timer ticking for nothing');

    h.poller.setFocused(true);
    assert.strictEqual(h.gateway.calls.length, before + 1, 'the overdue job is checked at once');
  });

  it('keeps polling jobs younger than a minute while unfocused, then pauses them', async () => {
    const h = pollerHarness({ script: (id) => record(id, 'queued') });
    h.poller.setFocused(false);
    h.start('a');
    await h.clock.advance(MINUTE);
    const youngChecks = h.gateway.calls.length;
    assert.strictEqual(youngChecks, 6, 'checked at 1, 3, 8, 18, 33 and 55.5 s');
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.calls.length, youngChecks);
  });

  it('keeps polling processing jobs while unfocused', async () => {
    const h = pollerHarness({ script: (id) => record(id, id === 'rendering' ? 'processing' : 'queued') });
    h.start('rendering');
    h.start('waiting');
    await h.clock.advance(2 * MINUTE);
    h.poller.setFocused(false);
    const rendering = h.gateway.callsFor('rendering').length;
    const waiting = h.gateway.callsFor('waiting').length;
    await h.clock.advance(5 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('rendering').length, rendering + 10, 'every 30 s');
    assert.strictEqual(h.gateway.callsFor('waiting').length, waiting);
  });

  it('checks a paused job when the host reports it processing', async () => {
    const h = pollerHarness({ script: (id) => record(id, 'queued') });
    h.start('a');
    await h.clock.advance(2 * MINUTE);
    h.poller.setFocused(false);
    await h.clock.advance(MINUTE);
    const before = h.gateway.calls.length;
    h.model.update('a', { status: 'processing' });
    await h.clock.advance(0);
    assert.strictEqual(h.gateway.calls.length, before + 1);
  });
});

describe('MediaJobPoller: manual refresh, reload, removal', () => {
  it('pollNow(id) checks that job at once', async () => {
    const h = pollerHarness();
    h.start('a');
    h.start('b');
    await h.clock.advance(40 * SECOND);
    const before = h.gateway.callsFor('a').length;
    h.poller.pollNow('a');
    assert.strictEqual(h.gateway.callsFor('a').length, before + 1);
    assert.strictEqual(h.gateway.calls.at(-1)?.id, 'a');
  });

  it('pollNow() checks every unfinished job, within the cap, even while unfocused', async () => {
    const h = pollerHarness({
      maxConcurrent: 2,
      latencyMs: 400,
      script: (id) => record(id, id === 'done' ? 'completed' : 'queued'),
    });
    for (const id of ['a', 'b', 'c', 'd', 'e', 'done']) h.start(id);
    await h.clock.advance(5 * MINUTE);
    h.poller.setFocused(false);
    const before = h.gateway.calls.length;
    const doneBefore = h.gateway.callsFor('done').length;

    h.poller.pollNow();
    assert.strictEqual(h.gateway.inFlight, 2);
    await h.clock.advance(2 * SECOND);
    assert.strictEqual(h.gateway.calls.length, before + 5);
    assert.strictEqual(h.gateway.callsFor('done').length, doneBefore, 'finished jobs are left alone');
    assert.ok(h.poller.peakInFlight <= 2);
  });

  it('pollNow does not start a second request for a job already being checked', async () => {
    const h = pollerHarness({ latencyMs: 3 * SECOND });
    h.start('a');
    await h.clock.advance(1_500);
    assert.strictEqual(h.gateway.inFlight, 1);
    h.poller.pollNow('a');
    h.poller.pollNow();
    assert.strictEqual(h.gateway.calls.length, 1);
    assert.strictEqual(h.gateway.peakPerJob, 1);
  });

  it('resumes only unfinished jobs after a reload, the long-unchecked ones at once', async () => {
    const first = pollerHarness({ script: (id) => record(id, id === 'done' ? 'completed' : 'processing') });
    first.start('done');
    first.start('running');
    await first.clock.advance(10 * SECOND);
    first.model.add(createMediaJob({ id: 'gone', prompt: 'p', model: 'm/x' }, first.clock.now()));
    first.model.markUnknown('gone');
    const stored = JSON.parse(JSON.stringify(serializeJobs(first.model.all()))) as unknown;
    first.poller.dispose();

    // The window reloads an hour later.
    const clock = new FakeClock(first.clock.now() + 60 * MINUTE);
    const { jobs, skipped } = deserializeJobs(stored);
    assert.strictEqual(skipped, 0);
    const second = pollerHarness({ clock, jobs, script: (id) => record(id, 'completed') });
    second.poller.resume();
    assert.deepStrictEqual(
      second.gateway.calls.map((c) => c.id),
      ['running'],
      'checked at once',
    );
    await clock.advance(10 * MINUTE);
    assert.deepStrictEqual(
      second.gateway.calls.map((c) => c.id),
      ['running'],
    );
    assert.strictEqual(second.model.get('running')?.status, 'completed');
    assert.strictEqual(second.model.get('gone')?.status, 'unknown');
  });

  it('continues a recently checked job where its schedule stood after a reload', async () => {
    const clock = new FakeClock();
    const job = {
      ...createMediaJob({ id: 'a', prompt: 'p', model: 'm/x' }, clock.now() - 5 * MINUTE),
      pollCount: 12,
    };
    job.lastCheckedAt = clock.now() - 10 * SECOND;
    const h = pollerHarness({ clock, jobs: [job] });
    h.poller.resume();
    await clock.advance(19 * SECOND);
    assert.strictEqual(h.gateway.calls.length, 0);
    await clock.advance(SECOND);
    assert.strictEqual(h.gateway.calls.length, 1, 'at the 30 s interval, counted from the last check');
  });

  it('stops polling a removed job, aborting its request', async () => {
    const h = pollerHarness({ latencyMs: 2 * SECOND });
    h.start('a');
    h.start('b');
    await h.clock.advance(1_500);
    assert.strictEqual(h.gateway.inFlight, 2);
    h.model.remove('a');
    await h.clock.advance(0);
    assert.strictEqual(h.gateway.aborted, 1);
    assert.strictEqual(h.poller.inFlight, 1);
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 1);
    assert.ok(h.gateway.callsFor('b').length > 5);
    assert.strictEqual(h.errors.length, 0, 'our own abort is not an error');
  });

  it('dispose() cancels the timer and aborts requests in flight', async () => {
    const h = pollerHarness({ latencyMs: 2 * SECOND });
    for (const id of ['a', 'b', 'c']) h.start(id);
    h.start('later');
    await h.clock.advance(1_500);
    const before = h.gateway.calls.length;
    h.poller.dispose();
    await h.clock.advance(0);
    assert.strictEqual(h.gateway.aborted, h.gateway.inFlight + before);
    assert.strictEqual(h.gateway.inFlight, 0);
    assert.strictEqual(h.clock.pendingTimers, 0);
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.calls.length, before);
    assert.ok(
      h.model.all().every((job) => job.status === 'queued'),
      'answers after dispose are dropped',
    );
    h.poller.pollNow();
    h.poller.track('a');
    assert.strictEqual(h.gateway.calls.length, before);
  });

  it('keeps polling when a change listener throws, and reports the error', async () => {
    const h = pollerHarness();
    h.model.onDidChange(() => {
      throw new Error('broken view');
    });
    assert.throws(() => h.start('a'), /broken view/, 'the host sees its own listener fail');
    h.poller.track('a');
    await h.clock.advance(MINUTE);
    assert.strictEqual(h.gateway.calls.length, 6);
    assert.ok(h.errors.length >= 1 && h.errors.every((e) => (e.error as Error).message === 'broken view'));
  });

  it('fires finished once per job through a full run, for the host to notify', async () => {
    const finalStatus = (id: string): MediaStatus => (id === 'x' ? 'failed' : 'completed');
    const h = pollerHarness({ script: (id, call) => record(id, call < 2 ? 'processing' : finalStatus(id)) });
    const finished: string[] = [];
    h.model.onDidChange((change) =>
      finished.push(...change.finished.map((job) => `${job.id}:${job.status}`)),
    );
    h.start('x');
    h.start('y');
    await h.clock.advance(5 * MINUTE);
    h.poller.pollNow();
    h.poller.resume();
    await h.clock.advance(5 * MINUTE);
    assert.deepStrictEqual(finished.sort(), ['x:failed', 'y:completed']);
  });
});
