/**
 * The simulator answers browsers as a CORS-enabled gateway does (the web tier's extension runs in
 * a web worker, whose every request carries an Origin and most come after a preflight), or, in
 * `refuse` mode, as a gateway that knows nothing of CORS. Plain `node:http` requests, so the
 * headers a browser would send are sent exactly.
 */
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { PREFLIGHT_MAX_AGE_S } from '../../simulator';
import { withSimulator } from './helpers';

const ORIGIN = 'https://0a1b2c3d.vscode-cdn.net';

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(parts).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const preflightHeaders = {
  origin: ORIGIN,
  'access-control-request-method': 'POST',
  'access-control-request-headers': 'authorization,content-type,x-title',
};

function chat(url: string, origin?: string) {
  return send(
    `${url}/v1/chat/completions`,
    'POST',
    {
      authorization: 'Bearer sk-cors-test',
      'content-type': 'application/json',
      ...(origin ? { origin } : {}),
    },
    JSON.stringify({ model: 'a/b', messages: [{ role: 'user', content: 'hi' }] }),
  );
}

describe('simulator: CORS for a browser client', () => {
  const ctx = withSimulator();

  it('answers a preflight with 204, the Origin, the methods, the asked headers echoed and a Max-Age, and records it', async () => {
    const before = ctx.sim.requests.length;
    const answer = await send(`${ctx.sim.baseUrl}/v1/chat/completions`, 'OPTIONS', preflightHeaders);
    assert.equal(answer.status, 204);
    assert.equal(answer.headers['access-control-allow-origin'], ORIGIN);
    assert.match(answer.headers['access-control-allow-methods'] ?? '', /\bPOST\b/);
    assert.equal(answer.headers['access-control-allow-headers'], 'authorization,content-type,x-title');
    assert.equal(answer.headers['access-control-max-age'], String(PREFLIGHT_MAX_AGE_S));
    assert.equal(answer.headers['access-control-expose-headers'], undefined);
    assert.equal(ctx.sim.requests.length, before, 'a preflight is not an API request');
    const last = ctx.sim.preflights.at(-1);
    assert.deepEqual(
      { path: last?.path, origin: last?.origin, method: last?.method, mode: last?.mode },
      { path: '/api/v1/chat/completions', origin: ORIGIN, method: 'POST', mode: 'allow' },
    );
  });

  it("allows the request's Origin on every response and exposes no custom header", async () => {
    const answer = await chat(ctx.sim.baseUrl, ORIGIN);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], ORIGIN);
    assert.equal(answer.headers['access-control-expose-headers'], undefined);
    assert.ok(ctx.sim.originsSeen.includes(ORIGIN));
    const refused = await send(`${ctx.sim.baseUrl}/v1/models`, 'GET', { origin: ORIGIN });
    assert.equal(refused.status, 401, 'no key');
    assert.equal(refused.headers['access-control-allow-origin'], ORIGIN, 'errors are readable too');
  });

  it('a client without an Origin (Node) is answered as before, and adds no origin to what it saw', async () => {
    ctx.sim.reset();
    const answer = await chat(ctx.sim.baseUrl);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    assert.deepEqual(ctx.sim.originsSeen, []);
    assert.deepEqual(ctx.sim.preflights, []);
  });

  it('in refuse mode, set over the control API, a preflight gets no allow header and responses carry none', async () => {
    const set = await send(
      `${ctx.sim.origin}/__sim/cors`,
      'POST',
      { 'content-type': 'application/json' },
      JSON.stringify({ mode: 'refuse' }),
    );
    assert.equal(set.status, 200);
    const preflight = await send(`${ctx.sim.baseUrl}/v1/chat/completions`, 'OPTIONS', preflightHeaders);
    assert.equal(preflight.status, 204);
    for (const name of Object.keys(preflight.headers))
      assert.ok(!name.startsWith('access-control-'), `no ${name}`);
    const answer = await chat(ctx.sim.baseUrl, ORIGIN);
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.equal(ctx.sim.preflights.at(-1)?.mode, 'refuse');
    const listed = JSON.parse((await send(`${ctx.sim.origin}/__sim/requests`, 'GET', {})).body) as {
      preflights: unknown[];
      origins: string[];
    };
    assert.equal(listed.preflights.length, ctx.sim.preflights.length);
    assert.deepEqual(listed.origins, [ORIGIN]);
    ctx.sim.reset();
    assert.equal(ctx.sim.cors, 'allow', 'a reset restores the mode it started with');
  });
});
