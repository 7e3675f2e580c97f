import * as assert from 'node:assert/strict';
import { GatewayError } from '../../../src/api/errors';
import { collect, expectGatewayError, makeClient, requestsTo, userRequest, withSimulator } from './helpers';

describe('api: stream faults', () => {
  const ctx = withSimulator();

  it('ends with a "stream" error at an error chunk, keeping the text so far', async () => {
    const { client } = makeClient(ctx.sim);
    const { completion, error } = await collect(client.streamChat(userRequest('hello #sim:error-chunk')));
    assert.equal(error?.kind, 'stream');
    assert.equal(error?.provider, 'SimProvider');
    assert.equal(error?.code, 502);
    assert.match(error?.message ?? '', /SimProvider.*disconnected mid-stream/);
    assert.ok(completion.content.startsWith('Echo from vendor/model-1: hel'), completion.content);
    assert.equal(completion.finishReason, undefined);
  });

  it('reports a connection dropped mid-stream as "network", keeps the text, and does not retry', async () => {
    const { client } = makeClient(ctx.sim);
    const before = requestsTo(ctx.sim, 'POST', '/chat/completions').length;
    const { completion, error } = await collect(client.streamChat(userRequest('drop me #sim:drop')));
    assert.equal(error?.kind, 'network');
    assert.ok(completion.content.length > 0);
    assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length - before, 1);
  });

  it('times out a stalled stream after the idle limit and closes the connection', async () => {
    const { client } = makeClient(ctx.sim, { streamIdleTimeoutMs: 250 });
    const started = Date.now();
    const { completion, error } = await collect(client.streamChat(userRequest('#sim:stall')));
    const elapsed = Date.now() - started;
    assert.equal(error?.kind, 'timeout');
    assert.match(error?.message ?? '', /stayed silent for 0\.3 s/);
    assert.ok(elapsed >= 240 && elapsed < 2000, `elapsed ${elapsed} ms`);
    assert.ok(completion.content.length > 0, 'text before the stall is kept');
    const request = requestsTo(ctx.sim, 'POST', '/chat/completions').at(-1);
    await ctx.sim.waitForClosedConnection(request?.id, 1000);
  });

  it('does not count the consumer’s own pauses as stream silence', async () => {
    const { client } = makeClient(ctx.sim, { streamIdleTimeoutMs: 150 });
    let pieces = 0;
    for await (const delta of client.streamChat(userRequest('patient reader'))) {
      if (delta.type === 'content' && pieces++ === 0)
        await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.ok(pieces > 1);
  });

  it('rejects a data line that is not JSON with "invalid_response"', async () => {
    const { client } = makeClient(ctx.sim);
    const { completion, error } = await collect(client.streamChat(userRequest('#sim:malformed')));
    assert.equal(error?.kind, 'invalid_response');
    assert.match(error?.message ?? '', /not valid JSON/);
    assert.ok(completion.content.length > 0);
    await expectGatewayError(client.chat(userRequest('#sim:malformed')), 'invalid_response');
  });

  it('aborting mid-stream closes the socket at once and ends with "aborted"', async () => {
    const { client } = makeClient(ctx.sim);
    const controller = new AbortController();
    let abortedAt = 0;
    let received = '';
    const error = await (async () => {
      try {
        for await (const delta of client.streamChat(userRequest('#sim:slow'), {
          signal: controller.signal,
        })) {
          if (delta.type === 'content') {
            received += delta.text;
            if (!abortedAt) {
              abortedAt = Date.now();
              controller.abort();
            }
          }
        }
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    assert.ok(GatewayError.is(error) && error.kind === 'aborted', String(error));
    assert.ok(received.startsWith('Slow reply'));
    const request = requestsTo(ctx.sim, 'POST', '/chat/completions').at(-1);
    const closed = await ctx.sim.waitForClosedConnection(request?.id, 1000);
    assert.ok(closed.time - abortedAt < 200, `closed ${closed.time - abortedAt} ms after abort`);
  });

  it('aborting while waiting for headers ends with "aborted" and closes the connection', async () => {
    const { client } = makeClient(ctx.sim);
    const controller = new AbortController();
    const pending = client.chat(userRequest('#sim:stall'), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expectGatewayError(pending, 'aborted');
    const request = requestsTo(ctx.sim, 'POST', '/chat/completions').at(-1);
    await ctx.sim.waitForClosedConnection(request?.id, 1000);
  });

  it('a signal aborted before the call sends nothing', async () => {
    const { client } = makeClient(ctx.sim);
    const before = ctx.sim.requests.length;
    await expectGatewayError(client.chat(userRequest('x'), { signal: AbortSignal.abort() }), 'aborted');
    await expectGatewayError(
      collect(client.streamChat(userRequest('x'), { signal: AbortSignal.abort() })).then((o) => {
        if (o.error) throw o.error;
      }),
      'aborted',
    );
    assert.equal(ctx.sim.requests.length, before);
  });

  it('leaving the loop early closes the connection', async () => {
    const { client } = makeClient(ctx.sim);
    for await (const delta of client.streamChat(userRequest('#sim:slow'))) {
      if (delta.type === 'content') break;
    }
    const request = requestsTo(ctx.sim, 'POST', '/chat/completions').at(-1);
    await ctx.sim.waitForClosedConnection(request?.id, 1000);
  });

  it('times out when the headers do not come within timeoutMs, retrying before any response', async () => {
    const { client, log } = makeClient(ctx.sim, { timeoutMs: 150, maxRetries: 1 });
    const before = requestsTo(ctx.sim, 'POST', '/chat/completions').length;
    const error = await expectGatewayError(client.chat(userRequest('#sim:stall')), 'timeout');
    assert.match(error.message, /did not answer within 0\.2 s/);
    assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length - before, 2);
    assert.deepEqual(
      log.map((entry) => entry.attempt),
      [0, 1],
    );
  });
});
