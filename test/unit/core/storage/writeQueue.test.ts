import * as assert from 'node:assert/strict';
import { backoff, WriteQueue } from '../../../../src/core/storage/writeQueue';
import { FakeClock, settle } from '../media/fakeClock';

describe('WriteQueue', () => {
  it('runs writes in order, one at a time, and a newer write of a key replaces a waiting one', async () => {
    const clock = new FakeClock();
    const queue = new WriteQueue(() => undefined, undefined, clock);
    const log: string[] = [];
    let running = 0;
    const write = (what: string) => async () => {
      running++;
      assert.equal(running, 1, 'one write at a time');
      await settle();
      log.push(what);
      running--;
    };
    const done = [
      queue.run('a', write('a1')),
      queue.run('b', write('b1')),
      queue.run('a', write('a2')), // replaces a1? no: a1 already started
      queue.run('a', write('a3')), // replaces a2, which is still waiting
    ];
    await Promise.all(done);
    assert.deepEqual(log, ['a1', 'b1', 'a3']);
  });

  it('resolves callers after the first failed attempt, reports once per burst and retries with backoff', async () => {
    const clock = new FakeClock();
    const failures: unknown[] = [];
    let recovered = 0;
    const queue = new WriteQueue(
      (e) => failures.push(e),
      () => recovered++,
      clock,
    );
    let fail = true;
    let attempts = 0;
    let landed = '';
    const write = (text: string) => () => {
      attempts++;
      if (fail) return Promise.reject(new Error('disk full'));
      landed = text;
      return Promise.resolve();
    };
    await queue.run('k', write('one')); // resolves although the write failed
    assert.equal(failures.length, 1);
    assert.equal(queue.isFailing, true);
    // A newer snapshot takes the failed one's place and does not wait for the backoff.
    await queue.run('k', write('two'));
    await clock.advance(backoff(0));
    await clock.advance(backoff(1));
    assert.equal(failures.length, 1, 'reported once per burst');
    assert.ok(attempts >= 3);
    fail = false;
    await clock.advance(backoff(5));
    await settle();
    assert.equal(landed, 'two', 'the newest snapshot lands once the disk works again');
    assert.equal(recovered, 1);
    assert.equal(queue.isFailing, false);
    await queue.whenIdle();
  });

  it('keeps other keys moving while one is being retried', async () => {
    const clock = new FakeClock();
    const queue = new WriteQueue(() => undefined, undefined, clock);
    const written: string[] = [];
    await queue.run('bad', () => Promise.reject(new Error('EACCES')));
    await queue.run('good', () => {
      written.push('good');
      return Promise.resolve();
    });
    assert.deepEqual(written, ['good']);
    assert.equal(queue.size, 1, 'the failed write waits for its retry');
    queue.dispose();
  });

  it('backs off from half a second, doubling, up to 30 s', () => {
    assert.deepEqual([0, 1, 2, 3, 10, 50].map(backoff), [500, 1000, 2000, 4000, 30_000, 30_000]);
  });
});
