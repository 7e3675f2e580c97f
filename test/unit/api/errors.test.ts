import * as assert from 'node:assert/strict';
import { createGatewayClient } from '../../../src/api';
import { collect, expectGatewayError, freePort, makeClient, userRequest, withSimulator } from './helpers';

describe('api: HTTP errors and configuration errors', () => {
  const ctx = withSimulator({ validKeys: undefined });

  it('400: says the gateway rejected the request, with its reason', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(
      client.chat({ model: 'no-slash', messages: [{ role: 'user', content: 'x' }] }),
      'http',
    );
    assert.equal(error.status, 400);
    assert.equal(error.code, 400);
    assert.match(error.message, /rejected the request.*not a valid model ID/);
    assert.equal(error.retryable, false);
  });

  it('401: tells the user to set a valid key, and never shows the key the server echoed', async () => {
    const key = 'sk-or-v1-very-secret-value-123';
    const logged: string[] = [];
    const { startGatewaySimulator } = await import('../../simulator');
    const strict = await startGatewaySimulator({ validKeys: ['sk-good'], chunkDelayMs: 0 });
    try {
      const client = createGatewayClient({
        baseUrl: strict.baseUrl,
        apiKey: () => key,
        log: (entry) => logged.push(JSON.stringify(entry)),
      });
      const error = await expectGatewayError(client.chat(userRequest('x')), 'http');
      assert.equal(error.status, 401);
      assert.ok(
        error.message.startsWith(
          "The gateway rejected the API key. Set a valid key with 'Gateway AI: Set API Key'.",
        ),
      );
      assert.ok(!error.message.includes(key), error.message);
      assert.match(error.message, /User not found for key \[redacted\]/);
      const streamed = await collect(client.streamChat(userRequest('x')));
      assert.equal(streamed.error?.status, 401);
      assert.ok(!streamed.error?.message.includes(key));
      assert.ok(logged.length >= 2 && logged.every((line) => !line.includes(key)));
      await client.close();
    } finally {
      await strict.close();
    }
  });

  it('401 when the key is missing from the request (simulator check)', async () => {
    const response = await fetch(`${ctx.sim.baseUrl}/v1/chat/completions`, { method: 'POST', body: '{}' });
    assert.equal(response.status, 401);
    const malformed = await fetch(`${ctx.sim.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Token abc' },
    });
    assert.equal(malformed.status, 401);
  });

  it('403: names the model and provider, and scrubs the echoed key', async () => {
    const key = 'sk-forbidden-abcdef';
    const client = createGatewayClient({ baseUrl: ctx.sim.baseUrl, apiKey: () => key });
    const error = await expectGatewayError(
      client.chat(userRequest('x', { model: 'anthropic/claude-x' })),
      'http',
    );
    assert.equal(error.status, 403);
    assert.equal(error.provider, 'SimProvider');
    assert.match(
      error.message,
      /lacks the rights to use the model anthropic\/claude-x through provider SimProvider/,
    );
    assert.ok(!error.message.includes(key));
    await client.close();
  });

  it('404: no such media job', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.getMedia('does-not-exist'), 'http');
    assert.equal(error.status, 404);
    assert.match(error.message, /no media job with id "does-not-exist"/);
  });

  it('429: rate limit with "try again in N s", provider and retryAfter', async () => {
    const { client } = makeClient(ctx.sim, { maxRetries: 0 });
    const error = await expectGatewayError(client.chat(userRequest('#sim:429:7')), 'http');
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 7);
    assert.equal(error.provider, 'SimProvider');
    assert.match(error.message, /Rate limit exceeded at provider SimProvider \(429\)\. Try again in 7 s\./);
    assert.equal(error.retryable, true);
  });

  it('5xx: tells a gateway failure from an upstream provider failure, naming the provider', async () => {
    const { client } = makeClient(ctx.sim, { maxRetries: 0 });
    const gateway = await expectGatewayError(client.chat(userRequest('#sim:status:500')), 'http');
    assert.equal(gateway.status, 500);
    assert.equal(gateway.provider, undefined);
    assert.match(gateway.message, /^The gateway failed \(500\)/);

    const upstream = await expectGatewayError(client.chat(userRequest('#sim:status:502')), 'http');
    assert.equal(upstream.provider, 'SimProvider');
    assert.match(
      upstream.message,
      /^The upstream provider SimProvider failed \(502\).*Provider SimProvider failed \(simulated\)/,
    );

    const byHeader = await expectGatewayError(client.chat(userRequest('#sim:status:503')), 'http');
    assert.equal(byHeader.provider, 'SimProvider');
    assert.match(byHeader.message, /^The upstream provider SimProvider failed \(503\)/);

    const streamed = await collect(client.streamChat(userRequest('#sim:status:504')));
    assert.equal(streamed.error?.status, 504);
    assert.equal(streamed.deltas.length, 0);
  });

  it('a 200 whose body is an error becomes a GatewayError naming the provider', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.chat(userRequest('#sim:error-chunk')), 'http');
    assert.equal(error.provider, 'SimProvider');
    assert.equal(error.status, 502);
  });

  it('missing key for a gateway off this computer: a "config" error telling the user to set it, nothing sent', async () => {
    const before = ctx.sim.requests.length;
    for (const apiKey of [() => undefined, () => '', () => Promise.resolve('  ')]) {
      // A gateway on loopback is asked without a key (a local server may need none).
      const client = createGatewayClient({ baseUrl: 'https://gateway.invalid/api', apiKey });
      const error = await expectGatewayError(client.chat(userRequest('x')), 'config');
      assert.match(error.message, /No API key is set.*Set API Key/);
      await expectGatewayError(
        collect(client.streamChat(userRequest('x'))).then((o) => {
          if (o.error) throw o.error;
        }),
        'config',
      );
      await expectGatewayError(client.startMedia({ model: 'a/b', prompt: 'p' }), 'config');
    }
    assert.equal(ctx.sim.requests.length, before);
  });

  it('invalid base URL: a "config" error', async () => {
    for (const baseUrl of ['not a url', 'ftp://example.com/api', '']) {
      const client = createGatewayClient({ baseUrl, apiKey: () => 'k' });
      const error = await expectGatewayError(client.getMedia('x'), 'config');
      assert.match(error.message, /is not a valid http\(s\) URL/);
    }
  });

  it('connection refused: a "network" error saying so', async () => {
    const port = await freePort();
    const { client } = makeClient(ctx.sim, { baseUrl: `http://127.0.0.1:${port}/api`, maxRetries: 1 });
    const error = await expectGatewayError(client.chat(userRequest('x')), 'network');
    assert.match(error.message, /connection was refused/);
    assert.equal(error.retryable, true);
  });

  it('creating a client makes no request, and the client loads no package', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = `
      const requested = [];
      globalThis.fetch = (...args) => { requested.push(String(args[0])); return new Promise(() => {}); };
      const api = require(${JSON.stringify(require.resolve('../../../src/api'))});
      api.createGatewayClient({ baseUrl: 'http://127.0.0.1:9/api', apiKey: () => 'k' });
      const packages = Object.keys(require.cache).filter((p) => /node_modules/.test(p));
      process.stdout.write(JSON.stringify({ requested, packages }));`;
    assert.deepEqual(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })), {
      requested: [],
      packages: [],
    });
  });
});
