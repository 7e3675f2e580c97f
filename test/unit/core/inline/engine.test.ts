import * as assert from 'node:assert/strict';
import { GatewayError } from '../../../../src/api/errors';
import type { ChatDelta } from '../../../../src/api/types';
import { linesOf, positionAt } from '../../../../src/core/inline/context';
import { InlineEngine, MAX_RAW_TEXT, REQUEST_DEADLINE_MS } from '../../../../src/core/inline/engine';
import type { InlineClient, InlineDocument, InlineTarget } from '../../../../src/core/inline/engine';
import type { Pause } from '../../../../src/core/inline/pacing';
import { FakeClock, settle } from '../media/fakeClock';

/** A client whose replies the test scripts, and which records what it was asked and what was aborted. */
class ScriptedClient implements InlineClient {
  readonly asked: { path: string; body: unknown; signal: AbortSignal }[] = [];
  reply: () => ChatDelta[] | Promise<ChatDelta[]> = () => [{ type: 'content', text: 'world' }];

  streamChat(body: never, options?: { signal?: AbortSignal }): AsyncIterable<ChatDelta> {
    return this.stream('chat', body, options?.signal);
  }

  streamCompletion(body: never, options?: { signal?: AbortSignal }): AsyncIterable<ChatDelta> {
    return this.stream('completions', body, options?.signal);
  }

  private async *stream(
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ChatDelta> {
    this.asked.push({ path, body, signal: signal! });
    const deltas = await Promise.race([
      Promise.resolve(this.reply()),
      new Promise<never>((_, reject) =>
        signal!.addEventListener('abort', () =>
          reject(new GatewayError({ kind: 'aborted', message: 'cancelled' })),
        ),
      ),
    ]);
    yield* deltas;
  }
}

function doc(text: string, key = 'file:///a.ts'): InlineDocument {
  return {
    key,
    lines: linesOf(text),
    position: positionAt(text, text.length),
    path: 'a.ts',
    languageId: 'typescript',
  };
}

function harness(target: InlineTarget = { model: 'sim/coder', mode: 'fim' }) {
  const clock = new FakeClock();
  const client = new ScriptedClient();
  const engine = new InlineEngine({ client: () => client, target: () => target, clock, random: () => 0 });
  return { clock, client, engine };
}

describe('inline completions: the engine', () => {
  it('waits for the debounce, asks once, cleans and returns the suggestion', async () => {
    const { clock, client, engine } = harness();
    const spend: (number | undefined)[] = [];
    engine.onDidSpend((s) => spend.push(s.cost));
    client.reply = () => [
      { type: 'content', text: 'wor' },
      { type: 'content', text: 'ld");' },
      { type: 'usage', usage: { cost: 0.0001 } },
    ];
    const pending = engine.complete(doc('say("hello '), new AbortController().signal);
    await clock.advance(engine.debounce.delayMs - 1);
    assert.equal(client.asked.length, 0, 'nothing before the debounce');
    await clock.advance(1);
    const result = await pending;
    assert.deepEqual(result, { text: 'world");', cached: false, model: 'sim/coder', mode: 'fim' });
    assert.equal(client.asked[0].path, 'completions');
    assert.deepEqual(spend, [0.0001]);
  });

  it('sends nothing when typing through a shown suggestion', async () => {
    const { clock, client, engine } = harness();
    const first = engine.complete(doc('const a = '), new AbortController().signal);
    await clock.advance(1000);
    assert.equal((await first)?.text, 'world');
    const typed = await engine.complete(doc('const a = wo'), new AbortController().signal);
    assert.deepEqual(typed, { text: 'rld', cached: true });
    assert.equal(client.asked.length, 1);
  });

  it('a newer keystroke aborts the wait, and the request in flight', async () => {
    const { clock, client, engine } = harness({ model: 'sim/chat', mode: 'chat' });
    const first = new AbortController();
    const waiting = engine.complete(doc('let x'), first.signal);
    first.abort();
    assert.equal(await waiting, undefined);
    await clock.advance(1000);
    assert.equal(client.asked.length, 0, 'cancelled in its debounce: nothing sent');

    let release!: () => void;
    client.reply = () =>
      new Promise((resolve) => (release = () => resolve([{ type: 'content', text: ' = 1;' }])));
    const second = new AbortController();
    const inFlight = engine.complete(doc('let x'), second.signal);
    await clock.advance(1000);
    assert.equal(client.asked.length, 1);
    second.abort();
    assert.equal(client.asked[0].signal.aborted, true, 'the request was aborted');
    assert.equal(await inFlight, undefined);
    release();
    assert.deepEqual(engine.stats, { requests: 1, cancelled: 1, failed: 0, served: 0 });
  });

  it('pauses after 401 with one message, and backs off after 429', async () => {
    const { clock, client, engine } = harness();
    const pauses: (Pause | undefined)[] = [];
    engine.gate.onDidChangePause((p) => pauses.push(p));
    client.reply = () => {
      throw new GatewayError({ kind: 'http', status: 429, message: 'Too many' });
    };
    const limited = engine.complete(doc('a'), new AbortController().signal);
    await clock.advance(engine.debounce.delayMs);
    assert.equal(await limited, undefined);
    assert.equal(engine.gate.blocked(clock.now()), 'backoff');
    assert.equal(await engine.complete(doc('ab'), new AbortController().signal), undefined);
    assert.equal(client.asked.length, 1, 'nothing sent during the backoff');
    await clock.advance(engine.gate.backoffLeft(clock.now()));

    client.reply = () => {
      throw new GatewayError({ kind: 'http', status: 401, message: 'Bad key' });
    };
    for (const text of ['abc', 'abcd', 'abcde']) {
      const done = engine.complete(doc(text), new AbortController().signal);
      await clock.advance(1000);
      await done;
    }
    await settle();
    assert.equal(client.asked.length, 2, 'one request ran into the 401, none after');
    assert.deepEqual(pauses, [{ reason: 'key', message: 'Bad key' }]);
  });

  it('stops reading once the line is whole, or the reply passes the cap, and closes the stream', async () => {
    for (const [pieces, expected, most] of [
      [['foo();\n', ...Array.from({ length: 1000 }, () => 'x'.repeat(100))], 'foo();', 2],
      [Array.from({ length: 1000 }, () => 'y'.repeat(100)), undefined, MAX_RAW_TEXT / 100 + 1],
    ] as const) {
      const clock = new FakeClock();
      let read = 0;
      let closed = false;
      let seen: AbortSignal | undefined;
      const client: InlineClient = {
        streamChat: () => assert.fail('FIM expected'),
        streamCompletion: (_body, options) => {
          seen = options?.signal;
          return (async function* () {
            try {
              for (const text of pieces) {
                read++;
                await Promise.resolve();
                yield { type: 'content', text };
              }
            } finally {
              closed = true;
            }
          })();
        },
      };
      const engine = new InlineEngine({
        client: () => client,
        target: () => ({ model: 'sim/coder', mode: 'fim' }),
        clock,
      });
      const pending = engine.complete(doc('const a = '), new AbortController().signal);
      await clock.advance(engine.debounce.delayMs);
      const result = await pending;
      assert.equal(result?.text, expected);
      assert.ok(read <= most, `${read} pieces read`);
      assert.ok(closed, 'the stream was ended');
      assert.equal(seen?.aborted, true, 'the connection was closed');
    }
  });

  it('aborts a request that runs past its deadline', async () => {
    const { clock, client, engine } = harness();
    client.reply = () => new Promise<never>(() => undefined);
    const pending = engine.complete(doc('const a = '), new AbortController().signal);
    await clock.advance(engine.debounce.delayMs);
    assert.equal(client.asked.length, 1);
    await clock.advance(REQUEST_DEADLINE_MS);
    assert.equal(await pending, undefined);
    assert.equal(client.asked[0].signal.aborted, true);
  });

  it('sends nothing for a call that was waiting out the debounce when turned off or snoozed', async () => {
    const { clock, client, engine } = harness();
    const pending = engine.complete(doc('const a = '), new AbortController().signal);
    await clock.advance(1);
    engine.cancel();
    await clock.advance(engine.debounce.delayMs);
    assert.equal(await pending, undefined);
    assert.equal(client.asked.length, 0);
  });

  it('stays busy while a newer request runs, though an older aborted one ends first', async () => {
    const { clock, client, engine } = harness();
    const busy: boolean[] = [];
    engine.onDidChangeBusy((b) => busy.push(b));
    let release: (deltas: ChatDelta[]) => void = () => undefined;
    client.reply = () => new Promise<ChatDelta[]>((resolve) => (release = resolve));
    const older = new AbortController();
    const first = engine.complete(doc('const a = '), older.signal);
    await clock.advance(engine.debounce.delayMs);
    const second = engine.complete(doc('const a = 1'), new AbortController().signal);
    await clock.advance(engine.debounce.delayMs);
    assert.equal(await first, undefined, 'the newer call aborted the older request');
    assert.deepEqual(busy, [true], 'still busy: the newer request runs');
    release([{ type: 'content', text: ' + 2;' }]);
    assert.equal((await second)?.text, ' + 2;');
    assert.deepEqual(busy, [true, false]);
  });
});
