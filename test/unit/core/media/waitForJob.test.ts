import * as assert from 'node:assert/strict';
import { waitForJob } from '../../../../src/core/media/waitForJob';
import type { WaitOutcome } from '../../../../src/core/media/waitForJob';
import { record } from './fakeGateway';
import { pollerHarness } from './pollerHarness';

const MINUTE = 60_000;

describe('core: waiting for one media job (the agents’ tool)', () => {
  it('LM tool timeout (suspected, confirmed): a job the gateway leaves queued ends the wait after the time allowed, and goes on', async () => {
    const harness = pollerHarness({ script: (id) => record(id, 'queued') });
    harness.start('stuck');
    const statuses: string[] = [];
    const result: { outcome?: WaitOutcome } = {};
    void waitForJob(harness.model, 'stuck', {
      timeoutMs: 15 * MINUTE,
      clock: harness.clock,
      onStatus: (status) => statuses.push(status),
    }).then((outcome) => (result.outcome = outcome));
    await harness.clock.advance(14 * MINUTE);
    const current = (): WaitOutcome | undefined => result.outcome;
    assert.equal(current(), undefined, 'still waiting after 14 minutes');
    await harness.clock.advance(MINUTE);
    const outcome = current();
    assert.equal(outcome?.kind, 'timeout');
    assert.equal(outcome.kind === 'timeout' && outcome.job.status, 'queued');
    assert.deepEqual(statuses, ['queued']);
    // The job is still followed: it is the wait that ended, not the job.
    assert.ok(harness.poller.isPolling('stuck'));
    harness.poller.dispose();
  });

  it('ends with the job when it completes in time, reporting each status on the way', async () => {
    const harness = pollerHarness({
      script: (id, call) => record(id, call < 2 ? 'queued' : call < 4 ? 'processing' : 'completed'),
    });
    harness.start('quick');
    const statuses: string[] = [];
    const waiting = waitForJob(harness.model, 'quick', {
      timeoutMs: 15 * MINUTE,
      clock: harness.clock,
      onStatus: (status) => statuses.push(status),
    });
    await harness.clock.advance(5 * MINUTE);
    const outcome = await waiting;
    assert.equal(outcome.kind, 'final');
    assert.equal(outcome.kind === 'final' && outcome.job.status, 'completed');
    assert.deepEqual(statuses, ['queued', 'processing', 'completed']);
    assert.equal(harness.clock.pendingTimers, 0, 'no timer left behind');
    harness.poller.dispose();
  });

  it('ends when the job is removed or the caller cancels', async () => {
    const harness = pollerHarness({ script: (id) => record(id, 'processing') });
    harness.start('a');
    harness.start('b');
    const removed = waitForJob(harness.model, 'a', { timeoutMs: MINUTE, clock: harness.clock });
    harness.model.remove('a');
    assert.deepEqual(await removed, { kind: 'removed' });
    const abort = new AbortController();
    const cancelled = waitForJob(harness.model, 'b', {
      timeoutMs: MINUTE,
      clock: harness.clock,
      signal: abort.signal,
    });
    abort.abort();
    assert.deepEqual(await cancelled, { kind: 'cancelled' });
    assert.equal(harness.clock.pendingTimers > 0, true, 'the poller still runs');
    harness.poller.dispose();
  });
});
