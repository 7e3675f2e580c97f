/** `POST /v1/completions` streamed (fill-in-the-middle), against the simulator on loopback. */
import * as assert from 'node:assert/strict';
import { collect, expectGatewayError, makeClient, requestsTo, withSimulator } from './helpers';

describe('client: text completions (/v1/completions)', () => {
  const ctx = withSimulator();
  afterEach(() => ctx.sim.reset());

  it('streams choices[].text as content, with the meta, finish and usage of the reply', async () => {
    ctx.sim.completionScript = { text: 'return a + b;', pieceSize: 4 };
    const { client } = makeClient(ctx.sim);
    const outcome = await collect(
      client.streamCompletion({
        model: 'sim/coder',
        prompt: 'function add(a, b) {\n  ',
        suffix: '\n}',
        max_tokens: 32,
      }),
    );
    assert.equal(outcome.error, undefined);
    assert.equal(outcome.completion.content, 'return a + b;');
    assert.equal(outcome.completion.finishReason, 'stop');
    assert.ok((outcome.completion.usage?.cost ?? 0) > 0, 'usage.cost is read');
    assert.ok(outcome.deltas.filter((d) => d.type === 'content').length >= 3, 'it arrived in pieces');
    const [sent] = requestsTo(ctx.sim, 'POST', '/v1/completions');
    assert.deepEqual(sent.body, {
      model: 'sim/coder',
      prompt: 'function add(a, b) {\n  ',
      suffix: '\n}',
      max_tokens: 32,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('closes the connection when the caller aborts, and does not retry when told not to', async () => {
    ctx.sim.completionScript = { text: 'slow', firstByteDelayMs: 5_000 };
    const { client } = makeClient(ctx.sim);
    const abort = new AbortController();
    const pending = collect(
      client.streamCompletion({ model: 'sim/coder', prompt: 'x' }, { signal: abort.signal }),
    );
    await new Promise<void>((resolve) => ctx.sim.once('request', () => resolve()));
    abort.abort();
    assert.equal((await pending).error?.kind, 'aborted');
    const [sent] = requestsTo(ctx.sim, 'POST', '/v1/completions');
    await ctx.sim.waitForClosedConnection(sent.id, 2000);

    ctx.sim.completionScript = undefined;
    ctx.sim.setScenario('429');
    const limited = makeClient(ctx.sim);
    const error = await expectGatewayError(
      collect(limited.client.streamCompletion({ model: 'sim/coder', prompt: 'x' }, { maxRetries: 0 })).then(
        (o) => {
          if (o.error) throw o.error;
        },
      ),
      'http',
    );
    assert.equal(error.status, 429);
    assert.deepEqual(limited.timing.sleeps, [], 'no retry');
  });
});
