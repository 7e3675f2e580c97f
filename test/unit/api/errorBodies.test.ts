/**
 * Error bodies from a hostile gateway, over loopback: one that never ends, and ones that quote the
 * key back at every endpoint the client calls, at every place the gateway's words are cut.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayError } from '../../../src/api/errors';
import type { GatewayClient } from '../../../src/api/client';
import { collect, makeClient, userRequest } from './helpers';

async function server(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ baseUrl: string; origin: string; close: () => Promise<void> }> {
  const http: Server = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}/api`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function failure(call: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await call();
  } catch (error) {
    assert.ok(GatewayError.is(error), String(error));
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('api: error bodies', () => {
  it('reads an endless error body only to 64 KiB, then closes the connection', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'y');
    let written = 0;
    let closed = false;
    const endless = await server((_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.on('close', () => (closed = true));
      // Endless, as fast as the client reads; it stops only when the client hangs up (or, were the
      // body read whole, after 64 MB, so a failing client fails here rather than by timing out).
      const pump = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        if (!response.destroyed) response.end();
      };
      pump();
    });
    try {
      const { client } = makeClient({ baseUrl: endless.baseUrl } as never, { maxRetries: 0 });
      const error = await failure(() => client.chat(userRequest('x')));
      assert.equal(error.kind, 'http');
      assert.equal(error.status, 400);
      assert.ok(error.message.length < 2000, `${error.message.length} characters`);
      for (let tries = 0; tries < 100 && !closed; tries++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(closed, 'the client hung up');
      // 64 KiB read; the rest is what the sockets' buffers held when it hung up.
      assert.ok(written < 16 * 1024 * 1024, `the gateway wrote ${written} bytes before the client hung up`);
      await client.close();
    } finally {
      await endless.close();
    }
  });

  it('a key the gateway quotes in an error body reaches no error or log, from any endpoint, wherever it is cut', async function () {
    this.timeout(60_000);
    // Not shaped like a known key: only redaction of the key itself, before any cut, hides it.
    const key = 'gw-echo-0123456789abcdefghij';
    const probe = key.slice(0, 10);
    const pad = (n: number) => 'x'.repeat(n);
    // The gateway's words are cut at 400 characters (and 1000 in a media record): before, across
    // and after each cut.
    const offsets = [0, 390, 395, 399, 400, 990, 995, 1000, 1500];
    const bodies: Array<(quoted: string) => string> = [
      ...offsets.map((n) => (quoted: string) => JSON.stringify({ error: { message: `${pad(n)}${quoted}` } })),
      ...offsets.map(
        (n) => (quoted: string) =>
          JSON.stringify({
            error: { message: 'Refused.', metadata: { raw: `${pad(n)}${quoted} upstream` } },
          }),
      ),
      ...offsets.map((n) => (quoted: string) => `${pad(n)}${quoted}`),
      (quoted) =>
        JSON.stringify({ error: { message: 'x', code: quoted, metadata: { provider_name: quoted } } }),
      (quoted) => JSON.stringify({ message: `key ${quoted}`, provider: quoted }),
      (quoted) => JSON.stringify({ detail: encodeURIComponent(quoted) }),
    ];
    let body = bodies[0];
    let status = 400;
    const echo = await server((request, response) => {
      // Whatever key it was sent, quoted back.
      const sentKey = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body(sentKey));
    });
    const { client, log } = makeClient({ baseUrl: echo.baseUrl } as never, {
      maxRetries: 0,
      apiKey: () => key,
    });
    const endpoints: Record<string, (c: GatewayClient) => Promise<unknown>> = {
      chat: (c) => c.chat(userRequest('x')),
      stream: async (c) => {
        const outcome = await collect(c.streamChat(userRequest('x')));
        if (outcome.error) throw outcome.error;
      },
      'media start': (c) => c.startMedia({ model: 'a/b', prompt: 'x' }),
      'media status': (c) => c.getMedia('job-1'),
      models: (c) => c.listModels(),
      credits: (c) => c.getCredits(),
      'a file at the gateway': (c) => c.download(`${echo.origin}/api/files/1.png`),
    };
    try {
      let checked = 0;
      const statuses = [400, 401, 403, 404, 429, 502];
      for (status of statuses) {
        for (body of bodies) {
          for (const [name, call] of Object.entries(endpoints)) {
            checked++;
            // A gateway without a credits endpoint (404) is told apart, not an error.
            if (name === 'credits' && status === 404) {
              assert.equal(await call(client), undefined);
              continue;
            }
            const error = await failure(() => call(client));
            const shown = JSON.stringify({
              message: error.message,
              provider: error.provider,
              code: error.code,
            });
            assert.ok(!shown.includes(probe), `${name}, ${status}, ${body('KEY').slice(-60)}: ${shown}`);
          }
        }
      }
      assert.equal(checked, statuses.length * bodies.length * Object.keys(endpoints).length);
      assert.ok(log.length >= checked, 'every exchange was logged');
      assert.ok(!JSON.stringify(log).includes(probe), 'the log is clean');
      // The gateway did quote it: the key was sent, so this was not vacuous.
      [status, body] = [400, bodies[0]];
      const sample = await failure(() => endpoints.chat(client));
      assert.match(sample.message, /\[redacted\]/);
    } finally {
      await client.close();
      await echo.close();
    }
  });
});
