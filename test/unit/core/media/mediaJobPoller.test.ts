import * as assert from 'assert';
import { GatewayError } from '../../../../src/api/errors';
import { normalizeMediaRecord } from '../../../../src/api/media';
import { GAVE_UP } from '../../../../src/core/media/mediaJobPoller';
import { classifyPollFailure } from '../../../../src/core/media/pollFailure';
import { MAX_POLL_AGE_MS } from '../../../../src/core/media/pollSchedule';
import { httpError, networkError, record } from './fakeGateway';
import { MINUTE, pollerHarness, SECOND } from './pollerHarness';

describe('MediaJobPoller: schedule and answers', () => {
  it('checks a new job about a second after creation, then backs off', async () => {
    const h = pollerHarness();
    const created = h.clock.now();
    h.start('a');
    await h.clock.advance(2 * MINUTE);
    const times = h.gateway.callsFor('a').map((c) => c.at - created);
    assert.deepStrictEqual(times.slice(0, 7), [1000, 3000, 8000, 18000, 33000, 55500, 85500]);
    assert.deepStrictEqual(h.gateway.gapsFor('a').slice(6), [30000]);
    assert.strictEqual(h.model.get('a')?.pollCount, times.length);
    assert.strictEqual(h.model.get('a')?.status, 'processing');
  });

  it('stops polling once the job completes, and keeps its outputs', async () => {
    const outputs = [{ kind: 'url' as const, url: 'https://cdn.example/a.png' }];
    const h = pollerHarness({
      latencyMs: 150,
      script: (id, call) => (call < 2 ? record(id, 'processing') : record(id, 'completed', { outputs })),
    });
    h.start('a');
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 3);
    const job = h.model.get('a')!;
    assert.strictEqual(job.status, 'completed');
    assert.deepStrictEqual(job.outputs, outputs);
    assert.ok(job.finishedAt !== undefined);
    assert.strictEqual(h.poller.isPolling('a'), false);
    assert.strictEqual(h.clock.pendingTimers, 0, 'nothing left to wake up for');
  });

  it('stops polling a failed job and keeps its error', async () => {
    const h = pollerHarness({ script: (id) => record(id, 'failed', { error: 'Content policy violation' }) });
    h.start('a');
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 1);
    assert.strictEqual(h.model.get('a')?.error, 'Content policy violation');
  });

  it('stops asking a day after the job started, and says so', async () => {
    const h = pollerHarness();
    h.start('a');
    await h.clock.advance(25 * 60 * MINUTE);
    const job = h.model.get('a')!;
    assert.strictEqual(job.status, 'unknown');
    assert.strictEqual(job.lastProblem, GAVE_UP);
    assert.strictEqual(h.poller.isPolling('a'), false);
    const calls = h.gateway.callsFor('a');
    assert.ok(calls.at(-1)!.at - job.createdAt < MAX_POLL_AGE_MS, 'no check after a day');
    assert.strictEqual(h.clock.pendingTimers, 0, 'nothing left to wake up for');
  });

  it('keeps polling statuses it does not know', async () => {
    const h = pollerHarness({
      script: (id, call) =>
        normalizeMediaRecord({ id, status: call < 3 ? 'upscaling' : 'completed', output: 'done' }, id),
    });
    h.start('a');
    await h.clock.advance(MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 4);
    assert.strictEqual(h.model.get('a')?.status, 'completed');
  });

  it('keeps polling, with growing pauses, while records carry no status, and keeps the last one', async () => {
    const h = pollerHarness({
      script: (id, call) =>
        call === 0 ? record(id, 'processing') : call < 6 ? record(id, undefined) : record(id, 'completed'),
    });
    h.start('a');
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 7);
    assert.strictEqual(h.model.get('a')?.status, 'completed');
    const gaps = h.gateway.gapsFor('a');
    assert.ok(
      gaps.every((gap, i) => i === 0 || gap >= gaps[i - 1]),
      `pauses grow: ${gaps.join(', ')}`,
    );
  });

  it('keeps a job in progress when a record has no status', async () => {
    const h = pollerHarness({ script: (id) => record(id, undefined) });
    h.start('a');
    await h.clock.advance(2 * MINUTE);
    assert.strictEqual(h.model.get('a')?.status, 'queued');
    assert.ok(h.poller.isPolling('a'));
    assert.ok(h.gateway.callsFor('a').length > 3);
  });

  it('ends on a synonym of a final status; cancelled and expired are ends of their own', async () => {
    const words: Record<string, string> = { c: 'CANCELED', e: 'expired', s: 'SUCCEEDED' };
    const h = pollerHarness({
      script: (id) =>
        normalizeMediaRecord({ id, status: words[id], output: 'https://cdn.example/r.png' }, id),
    });
    for (const id of Object.keys(words)) h.start(id);
    await h.clock.advance(MINUTE);
    assert.strictEqual(h.gateway.callsFor('c').length, 1);
    assert.strictEqual(h.model.get('c')?.status, 'cancelled');
    assert.strictEqual(h.model.get('e')?.status, 'expired');
    assert.strictEqual(h.gateway.callsFor('e').length, 1);
    assert.strictEqual(h.model.get('s')?.status, 'completed');
  });

  it('marks a job the gateway answers 404 for as unknown, not failed, and stops', async () => {
    const h = pollerHarness({
      script: (id, call) => (call === 0 ? record(id, 'processing') : httpError(404)),
    });
    h.start('a');
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.callsFor('a').length, 2);
    const job = h.model.get('a')!;
    assert.strictEqual(job.status, 'unknown');
    assert.strictEqual(job.error, undefined);
    assert.ok(job.finishedAt !== undefined);
  });

  it('stops when the host finishes or removes a job itself', async () => {
    const h = pollerHarness();
    h.start('a');
    h.start('b');
    await h.clock.advance(5 * SECOND);
    h.model.update('a', { status: 'failed', error: 'Cancelled' });
    h.model.remove('b');
    const before = h.gateway.calls.length;
    await h.clock.advance(10 * MINUTE);
    assert.strictEqual(h.gateway.calls.length, before);
  });

  describe('errors', () => {
    it('honours Retry-After on 429, for every job since the limit is per key', async () => {
      const h = pollerHarness({
        latencyMs: 100,
        script: (id, call) => (id === 'a' && call === 0 ? httpError(429, 20) : record(id, 'processing')),
      });
      h.start('a');
      await h.clock.advance(SECOND);
      const limitedAt = h.clock.now() + 100;
      h.start('b');
      await h.clock.advance(MINUTE);

      const [first, second] = h.gateway.callsFor('a');
      assert.ok(second.at - limitedAt >= 20 * SECOND, 'job a waited as asked');
      assert.ok(second.at - first.at <= 23 * SECOND, 'and not much longer');
      assert.ok(h.gateway.callsFor('b')[0].at >= limitedAt + 20 * SECOND, 'job b waited too');
      assert.strictEqual(h.model.get('a')?.status, 'processing');
      assert.strictEqual(h.errors.length, 1);
    });

    it('shows a 429 as a passing problem until the next good answer', async () => {
      const h = pollerHarness({
        script: (id, call) => (call === 0 ? httpError(429, 20) : record(id, 'processing')),
      });
      h.start('a');
      await h.clock.advance(SECOND);
      assert.strictEqual(h.model.get('a')?.lastProblem, 'Gateway busy (429), retrying in 21 s');
      assert.strictEqual(h.model.get('a')?.status, 'queued');
      await h.clock.advance(30 * SECOND);
      assert.strictEqual(h.model.get('a')?.lastProblem, undefined);
    });

    it('backs off on 429 without Retry-After', async () => {
      const h = pollerHarness({
        script: (id, call) => (call < 4 ? httpError(429) : record(id, 'processing')),
      });
      h.start('a');
      await h.clock.advance(MINUTE);
      // Doubling from 2 s, but never quicker than the schedule (failed checks count as checks).
      assert.deepStrictEqual(h.gateway.gapsFor('a').slice(0, 4), [2000, 5000, 10000, 16000]);
      assert.strictEqual(h.model.get('a')?.status, 'processing');
    });

    it('backs off on 5xx and network errors without failing the job', async () => {
      const timeout = new GatewayError({ kind: 'timeout', message: 'No answer in time.' });
      const failures = [httpError(502), networkError(), httpError(503), timeout];
      const h = pollerHarness({ script: (id, call) => failures[call] ?? record(id, 'completed') });
      h.start('a');
      await h.clock.advance(5 * SECOND);
      assert.strictEqual(h.model.get('a')?.status, 'queued');
      assert.strictEqual(h.model.get('a')?.lastProblem, 'Cannot reach the gateway, retrying in 5 s');

      await h.clock.advance(MINUTE);
      assert.deepStrictEqual(h.gateway.gapsFor('a'), [2000, 5000, 10000, 16000]);
      assert.strictEqual(h.model.get('a')?.status, 'completed');
      assert.strictEqual(h.model.get('a')?.lastProblem, undefined);
      assert.strictEqual(h.errors.length, 4, 'each failure reaches the log');
    });

    it('caps the backoff at the maximum interval', async () => {
      const h = pollerHarness({ maxIntervalMs: 10_000, script: () => httpError(500) });
      h.start('a');
      await h.clock.advance(3 * MINUTE);
      const gaps = h.gateway.gapsFor('a');
      assert.ok(gaps.length > 10);
      assert.ok(gaps.every((gap) => gap <= 10_000));
      assert.strictEqual(gaps.at(-1), 10_000);
      assert.strictEqual(h.model.get('a')?.status, 'queued');
    });

    for (const status of [401, 403]) {
      it(`stops polling a job on ${status} until a manual refresh`, async () => {
        const h = pollerHarness({
          script: (id, call) => (id === 'a' && call === 0 ? httpError(status) : record(id, 'processing')),
        });
        h.start('a');
        h.start('b');
        await h.clock.advance(10 * MINUTE);
        assert.strictEqual(h.gateway.callsFor('a').length, 1, 'no hammering with a bad key');
        assert.ok(h.gateway.callsFor('b').length > 10, 'other jobs go on');
        assert.match(h.model.get('a')!.lastProblem!, /API key.*polling paused/);
        assert.strictEqual(h.model.get('a')?.status, 'queued');
        assert.strictEqual(h.poller.isPolling('a'), false);

        h.poller.pollNow('a');
        await h.clock.advance(0);
        assert.strictEqual(h.gateway.callsFor('a').length, 2);
        assert.strictEqual(h.poller.isPolling('a'), true);
        assert.strictEqual(h.model.get('a')?.lastProblem, undefined);
      });
    }

    it('resume() retries jobs held for a rejected key', async () => {
      const h = pollerHarness({
        script: (id, call) => (call === 0 ? httpError(401) : record(id, 'processing')),
      });
      h.start('a');
      await h.clock.advance(MINUTE);
      h.poller.resume();
      await h.clock.advance(0);
      assert.strictEqual(h.gateway.callsFor('a').length, 2);
    });

    it('checks only at the maximum interval after other 4xx answers', async () => {
      const h = pollerHarness({ script: () => httpError(400) });
      h.start('a');
      await h.clock.advance(3 * MINUTE);
      assert.ok(h.gateway.gapsFor('a').every((gap) => gap === 30_000));
      assert.match(h.model.get('a')!.lastProblem!, /refused the status check \(400\), retrying in 30 s/);
    });
  });
});

describe('classifyPollFailure', () => {
  it('sorts errors into the poller reactions', () => {
    assert.deepStrictEqual(classifyPollFailure(httpError(404)), { kind: 'notFound' });
    assert.strictEqual(classifyPollFailure(httpError(401)).kind, 'needsUser');
    const noKey = classifyPollFailure(new GatewayError({ kind: 'config', message: 'No API key is set.' }));
    assert.deepStrictEqual(noKey, {
      kind: 'needsUser',
      problem: 'No API key is set; polling paused until you refresh',
    });
    assert.deepStrictEqual(classifyPollFailure(httpError(429, 7)), {
      kind: 'rateLimited',
      label: 'Gateway busy (429)',
      retryAfterSeconds: 7,
    });
    assert.strictEqual(classifyPollFailure(httpError(500)).kind, 'transient');
    const garbled = new GatewayError({ kind: 'invalid_response', message: 'Not JSON.' });
    assert.strictEqual(classifyPollFailure(garbled).kind, 'transient');
    assert.strictEqual(classifyPollFailure(new TypeError('oops')).kind, 'transient');
    assert.strictEqual(classifyPollFailure('a string').kind, 'transient');
    assert.strictEqual(classifyPollFailure(httpError(422)).kind, 'refused');
  });
});
