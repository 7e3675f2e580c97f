import * as assert from 'node:assert/strict';
import { createGatewayClient } from '../../../src/api';
import { GatewayError } from '../../../src/api/errors';
import { BACKOFF_FLOOR_MS, backoffDelayMs, parseRetryAfter, retryDelayMs } from '../../../src/api/retry';
import type { RetryPolicy } from '../../../src/api/retry';
import {
  collect,
  expectGatewayError,
  freePort,
  makeClient,
  requestsTo,
  userRequest,
  withSimulator,
} from './helpers';

describe('api: retries', () => {
  const ctx = withSimulator();

  it('retries a chat after 500/502 and then succeeds', async () => {
    const { client, timing, log } = makeClient(ctx.sim);
    const reply = await client.chat(userRequest('hello #sim:500-then-ok:2'));
    assert.match(reply.content, /^Echo from/);
    assert.deepEqual(
      log.map((entry) => entry.status),
      [502, 500, 200],
    );
    assert.equal(timing.sleeps.length, 2);
  });

  it('retries a stream before it started (5xx, 429), never after', async () => {
    const { client, key, log } = makeClient(ctx.sim);
    ctx.sim.setScenarioForKey(key, '500-then-ok');
    const streamed = await collect(client.streamChat(userRequest('again')));
    assert.equal(streamed.error, undefined);
    assert.deepEqual(
      log.map((entry) => entry.status),
      [502, 200],
    );
    ctx.sim.setScenarioForKey(key, '429-then-ok');
    const limited = await collect(client.streamChat(userRequest('again')));
    assert.equal(limited.error, undefined);
    ctx.sim.setScenarioForKey(key, undefined);
  });

  it('gives up after maxRetries with the last error', async () => {
    const { client, timing } = makeClient(ctx.sim, { maxRetries: 2 });
    const error = await expectGatewayError(client.chat(userRequest('#sim:status:502')), 'http');
    assert.equal(error.status, 502);
    assert.equal(timing.sleeps.length, 2);
  });

  it('uses exponential backoff with bounded jitter when no Retry-After is given', async () => {
    const { client, timing } = makeClient(ctx.sim, { maxRetries: 3 });
    await expectGatewayError(client.chat(userRequest('#sim:status:502')), 'http');
    assert.deepEqual(timing.sleeps, [437, 875, 1750]); // random() = 0.5: 0.875 of 500, 1000, 2000 ms
  });

  it('honours a real Retry-After: 1 (waits at least a second)', async () => {
    const client = createGatewayClient({
      baseUrl: ctx.sim.baseUrl,
      apiKey: () => 'sk-retry-after-real',
      maxRetries: 2,
    });
    const started = Date.now();
    const reply = await client.chat(userRequest('#sim:429-then-ok'));
    const elapsed = Date.now() - started;
    assert.match(reply.content, /^Echo/);
    assert.ok(elapsed >= 950, `waited ${elapsed} ms`);
    assert.ok(elapsed < 3000, `waited ${elapsed} ms`);
    await client.close();
  });

  it('does not wait when the server asks for longer than the cap: surfaces the error with retryAfter', async () => {
    const { client, timing } = makeClient(ctx.sim, { maxRetries: 3 });
    const before = requestsTo(ctx.sim, 'POST', '/chat').length;
    const error = await expectGatewayError(client.chat(userRequest('#sim:429:600')), 'http');
    assert.equal(error.retryAfter, 600);
    assert.equal(timing.sleeps.length, 0);
    assert.equal(requestsTo(ctx.sim, 'POST', '/chat').length - before, 1);
  });

  it('never repeats POST /v1/media after a 5xx (it could start a second billed job)', async () => {
    const { client, key } = makeClient(ctx.sim, { maxRetries: 3 });
    ctx.sim.setScenarioForKey(key, '500-then-ok');
    const before = requestsTo(ctx.sim, 'POST', '/v1/media').length;
    const error = await expectGatewayError(
      client.startMedia({ model: 'vendor/image', prompt: 'a cat' }),
      'http',
    );
    assert.equal(error.status, 502);
    assert.equal(requestsTo(ctx.sim, 'POST', '/v1/media').length - before, 1);
    ctx.sim.setScenarioForKey(key, undefined);
  });

  it('never repeats POST /v1/media after a 429 or a timeout either', async () => {
    const { client } = makeClient(ctx.sim, { maxRetries: 3 });
    const before = requestsTo(ctx.sim, 'POST', '/v1/media').length;
    await expectGatewayError(client.startMedia({ model: 'vendor/image', prompt: 'a cat #sim:429' }), 'http');
    assert.equal(requestsTo(ctx.sim, 'POST', '/v1/media').length - before, 1);
  });

  it('repeats POST /v1/media when the connection was refused (nothing was sent)', async () => {
    const port = await freePort();
    const { client, timing, log } = makeClient(ctx.sim, {
      baseUrl: `http://127.0.0.1:${port}/api`,
      maxRetries: 2,
    });
    await expectGatewayError(client.startMedia({ model: 'vendor/image', prompt: 'p' }), 'network');
    assert.equal(timing.sleeps.length, 2);
    assert.equal(log.length, 3);
  });

  it('retries GET /v1/media/{id} after a 5xx', async () => {
    const { client, key, log } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: 'vendor/image', prompt: 'p' });
    ctx.sim.setScenarioForKey(key, '500-then-ok:2');
    const record = await client.getMedia(started.id);
    assert.equal(record.id, started.id);
    assert.deepEqual(
      log.map((entry) => entry.status),
      [200, 502, 500, 200],
    );
    ctx.sim.setScenarioForKey(key, undefined);
  });

  it('an abort during a retry pause ends at once with "aborted"', async () => {
    const controller = new AbortController();
    const client = createGatewayClient({
      baseUrl: ctx.sim.baseUrl,
      apiKey: () => 'sk-abort-pause',
      maxRetries: 3,
    });
    const pending = client.chat(userRequest('#sim:429:30'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await expectGatewayError(pending, 'aborted');
    assert.ok(Date.now() - started < 1000);
    await client.close();
  });
});

describe('api: retry rules (pure)', () => {
  const policy = (rule: RetryPolicy['rule'], maxRetries = 3): RetryPolicy => ({
    rule,
    maxRetries,
    timing: { random: () => 1, sleep: () => Promise.resolve() },
  });

  it('caps backoff at 8 s and never pauses less than 250 ms or three quarters of the step', () => {
    assert.ok(backoffDelayMs(0, () => 0) >= 250);
    for (let attempt = 0; attempt < 8; attempt++) {
      assert.ok(backoffDelayMs(attempt, Math.random) >= 250, `attempt ${attempt}`);
    }
    assert.equal(
      backoffDelayMs(0, () => 1),
      500,
    );
    assert.equal(
      backoffDelayMs(3, () => 1),
      4000,
    );
    assert.equal(
      backoffDelayMs(20, () => 1),
      8_000,
    );
    assert.equal(
      backoffDelayMs(5, () => 0),
      6_000,
    );
  });

  it('retries 429 and 5xx, not other statuses, and not beyond maxRetries', () => {
    const http = (status: number, retryAfter?: number): GatewayError =>
      new GatewayError({ kind: 'http', status, message: 'x', retryAfter });
    assert.equal(retryDelayMs(http(503), 0, policy('idempotent')), 500);
    assert.equal(retryDelayMs(http(429, 2), 0, policy('idempotent')), 2000);
    assert.equal(retryDelayMs(http(400), 0, policy('idempotent')), undefined);
    assert.equal(retryDelayMs(http(401), 0, policy('idempotent')), undefined);
    assert.equal(retryDelayMs(http(503), 3, policy('idempotent')), undefined);
    assert.equal(retryDelayMs(http(503), 0, policy('start-once')), undefined);
    assert.equal(retryDelayMs(http(429, 61), 0, policy('idempotent')), undefined);
    // A gateway saying "retry after 0" (or a past date) still gets the floor, not a burst of retries.
    assert.equal(retryDelayMs(http(429, 0), 0, policy('idempotent')), BACKOFF_FLOOR_MS);
    assert.equal(retryDelayMs(http(503, 0), 1, policy('idempotent')), BACKOFF_FLOOR_MS);
    assert.equal(
      retryDelayMs(new GatewayError({ kind: 'stream', message: 'x' }), 0, policy('idempotent')),
      undefined,
    );
    assert.equal(
      retryDelayMs(new GatewayError({ kind: 'aborted', message: 'x' }), 0, policy('idempotent')),
      undefined,
    );
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('5', now), 5);
    assert.equal(parseRetryAfter('1.2', now), 2);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter(['3', '4'], now), 3);
  });
});
