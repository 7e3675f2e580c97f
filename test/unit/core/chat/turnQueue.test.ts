import * as assert from 'node:assert/strict';
import { MAX_QUEUED, TurnQueue } from '../../../../src/core/chat/turnQueue';
import type { RunningTurn } from '../../../../src/core/chat/turnQueue';

/** A queue whose turns run until the test ends them. */
function setup() {
  const started: string[] = [];
  const running: RunningTurn[] = [];
  let changes = 0;
  const queue: TurnQueue = new TurnQueue({
    start: (text) => {
      started.push(text);
      queue.reserve();
      running.push(queue.begin(`t-${text}`));
      return Promise.resolve();
    },
    changed: () => changes++,
    failed: (error) => assert.fail(String(error)),
  });
  return { queue, started, running, changes: () => changes };
}

describe('turn queue', () => {
  it('lets a prompt go at once when idle, and queues prompts while a turn runs', () => {
    const { queue, started, running } = setup();
    assert.equal(queue.mustWait(), false);
    const first = queue.begin('t-1');
    assert.equal(queue.runningTurnId, 't-1');
    assert.equal(queue.mustWait(), true);
    assert.ok(queue.enqueue('two'));
    assert.ok(queue.enqueue('three'));
    assert.deepEqual(
      queue.queued().map((q) => q.text),
      ['two', 'three'],
    );
    first.end();
    queue.drain();
    assert.deepEqual(started, ['two']);
    running[0].end();
    queue.drain();
    assert.deepEqual(started, ['two', 'three']);
    assert.equal(queue.queued().length, 0);
  });

  it('Stop aborts the running turn and resolves once it has ended', async () => {
    const { queue } = setup();
    const turn = queue.begin('t-1');
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    assert.equal(turn.signal.aborted, true);
    await Promise.resolve();
    assert.equal(stopped, false, 'waits for the turn to end');
    turn.end();
    await stopping;
    assert.equal(queue.isBusy, false);
  });

  it('a claim keeps queued prompts waiting until the claiming operation is done', async () => {
    const { queue, started } = setup();
    const turn = queue.begin('t-1');
    queue.enqueue('queued');
    const claimed = queue.claim(async () => {
      turn.end();
      queue.drain();
      assert.deepEqual(started, [], 'nothing slips in during the claim');
      await Promise.resolve();
      return 'mine';
    });
    turn.end();
    assert.equal(await claimed, 'mine');
    queue.drain();
    assert.deepEqual(started, ['queued']);
  });

  it('edits, removes and caps the queue', () => {
    const { queue, changes } = setup();
    queue.begin('t-1');
    for (let i = 0; i < MAX_QUEUED; i++) assert.ok(queue.enqueue(`p${i}`));
    assert.equal(queue.enqueue('one too many'), false);
    const [first, second] = queue.queued();
    queue.edit(first.id, '  edited  ');
    assert.equal(queue.queued()[0].text, 'edited');
    queue.edit(second.id, '   ');
    assert.equal(queue.queued().length, MAX_QUEUED - 1);
    queue.remove('no-such-id');
    assert.ok(changes() >= MAX_QUEUED + 2);
  });

  it('close aborts the turn and never starts another', () => {
    const { queue, started } = setup();
    const turn = queue.begin('t-1');
    queue.enqueue('later');
    queue.close();
    assert.equal(turn.signal.aborted, true);
    turn.end();
    queue.drain();
    assert.deepEqual(started, []);
  });
});
