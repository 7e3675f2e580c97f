/**
 * The fetch transport (the client's in every host) where Node's and a browser's differ, and what a
 * browser origin can read: only the CORS-safelisted response headers. The shared behaviour
 * (streams, cancel, limits, errors) runs in the other suites.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpError, retryAfterSeconds } from '../../../src/api/httpErrors';
import { BACKOFF_FLOOR_MS, backoffDelayMs } from '../../../src/api/retry';
import type { Transport, TransportFactory } from '../../../src/api/transport/exchange';
import { FetchTransport, inBrowser } from '../../../src/api/transport/fetchTransport';
import {
  collect,
  expectGatewayError,
  makeClient,
  requestsTo,
  tinyServer,
  userRequest,
  withSimulator,
} from './helpers';

/** Response headers a page may read from a cross-origin answer that exposes none of its own. */
const SAFELISTED = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);

/** The transport as a browser origin sees it: every other response header unreadable. */
function fromBrowserOrigin(factory: TransportFactory): TransportFactory {
  return (settings) => {
    const inner: Transport = factory(settings);
    return {
      async open(call) {
        const exchange = await inner.open(call);
        exchange.headers = Object.fromEntries(
          Object.entries(exchange.headers).filter(([name]) => SAFELISTED.has(name)),
        );
        return exchange;
      },
      close: () => inner.close(),
    };
  };
}

/** Runs `body` as if in a web worker: the global WorkerGlobalScope exists, and fetch is `fetch`. */
async function asWebWorker<T>(body: () => Promise<T>, fetch?: typeof globalThis.fetch): Promise<T> {
  const global = globalThis as unknown as Record<string, unknown>;
  const realFetch = globalThis.fetch;
  global.WorkerGlobalScope = function WorkerGlobalScope(): void {};
  if (fetch) globalThis.fetch = fetch;
  try {
    return await body();
  } finally {
    delete global.WorkerGlobalScope;
    globalThis.fetch = realFetch;
  }
}

describe('api: the client sends with the host’s fetch', () => {
  const ctx = withSimulator();

  it('sends through it (fetch adds Sec-Fetch-Mode), with its own User-Agent outside a browser', async () => {
    const { client } = makeClient(ctx.sim);
    await client.chat(userRequest('which transport'));
    const headers = ctx.sim.requests.at(-1)?.headers ?? {};
    assert.equal(headers['sec-fetch-mode'], 'cors');
    assert.equal(headers['user-agent'], 'gateway-ai-vscode');
  });
});

describe('api: from a browser origin (no custom response header readable)', () => {
  const ctx = withSimulator({ openRouterQuirks: {} });
  const fromBrowser = { transport: fromBrowserOrigin((settings) => new FetchTransport(settings)) };

  it('takes the reply id from the chunk `id` and the cost from `usage.cost`', async () => {
    for (const view of ['direct', 'browser'] as const) {
      const { client } = makeClient(ctx.sim, {}, view === 'browser' ? fromBrowser : {});
      const { deltas, completion, error } = await collect(client.streamChat(userRequest('Hello')));
      assert.equal(error, undefined);
      const first = deltas[0];
      assert.ok(first.type === 'meta' && /^gen-sim-\d+$/.test(first.id ?? ''), JSON.stringify(first));
      const record = ctx.sim.quirks.generations.get(completion.id ?? '');
      assert.ok(record, `${view}: the id is the gateway's`);
      assert.equal(completion.usage?.cost, record.usage.cost);
    }
  });

  it('without a readable Retry-After, retries a 429 after the plain backoff, not at once', async () => {
    const { client, timing } = makeClient(ctx.sim);
    await client.chat(userRequest('x #sim:429-then-ok'));
    assert.deepEqual(timing.sleeps, [1000], 'read directly, Retry-After: 1 is honoured');
    const browser = makeClient(ctx.sim, {}, fromBrowser);
    await browser.client.chat(userRequest('y #sim:429-then-ok'));
    assert.deepEqual(browser.timing.sleeps, [backoffDelayMs(0, browser.timing.random)]);
    assert.ok((browser.timing.sleeps[0] ?? 0) >= BACKOFF_FLOOR_MS);
  });
});

describe('api: retry timing from error.availability.retry_after', () => {
  it('waits the seconds the body names when no Retry-After header came', async () => {
    let hits = 0;
    const server = await tinyServer((_request, response) => {
      hits += 1;
      if (hits === 1) {
        response.writeHead(429, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            error: {
              message: 'Rate limited',
              code: 429,
              availability: { retryable: true, retry_after: 2.2, fallback_models: ['a/b'] },
            },
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'gen-1',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }],
        }),
      );
    });
    try {
      const { client, timing } = makeClient(server.sim);
      const reply = await client.chat(userRequest('x'));
      assert.equal(reply.content, 'ok');
      assert.deepEqual(timing.sleeps, [3000]);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe('api: the fetch transport in a browser-like global', () => {
  const ctx = withSimulator();

  it('knows Node from a web worker', async () => {
    assert.equal(inBrowser(), false);
    assert.equal(await asWebWorker(() => Promise.resolve(inBrowser())), true);
  });

  it('a fetch that fails without a response names the likely cause and what the admin must allow', async () => {
    const refused: typeof globalThis.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const { client, log } = makeClient(ctx.sim, {
      baseUrl: 'https://gateway.example/api',
      headers: () => ({ 'X-Portkey-Provider': 'openai' }),
      maxRetries: 2,
    });
    const error = await asWebWorker(
      () => expectGatewayError(client.chat(userRequest('x')), 'network'),
      refused,
    );
    assert.match(error.message, /gateway\.example: it is down, or it does not allow cross-origin requests/);
    assert.match(error.message, /Access-Control-Allow-Origin: \*/);
    assert.match(error.message, /headers authorization, content-type, x-portkey-provider and/);
    assert.match(error.message, /OPTIONS preflight/);
    assert.match(error.message, /GET and POST/);
    assert.doesNotMatch(error.message, /openai/, 'header names only, never their values');
    assert.ok(error.message.length < 400, 'short enough for the chat');
    assert.equal(log.length, 3, 'a read is tried again: it may have been the network');
  });

  it('never repeats a job start after such a failure: the gateway may have seen it', async () => {
    let calls = 0;
    const refused: typeof globalThis.fetch = () => {
      calls += 1;
      return Promise.reject(new TypeError('Failed to fetch'));
    };
    const { client } = makeClient(ctx.sim, { baseUrl: 'https://gateway.example/api', maxRetries: 3 });
    await asWebWorker(
      () => expectGatewayError(client.startMedia({ model: 'openai/gpt-image-1', prompt: 'p' }), 'network'),
      refused,
    );
    assert.equal(calls, 1);
  });

  it('sends no User-Agent of its own there, and says once that the proxy setting is not used', async () => {
    const { client, log } = makeClient(ctx.sim, { proxy: { url: 'http://proxy.example:3128' } });
    await asWebWorker(async () => {
      await client.chat(userRequest('one'));
      await client.chat(userRequest('two'));
    });
    const sent = requestsTo(ctx.sim, 'POST', '/chat/completions').slice(-2);
    for (const request of sent) assert.notEqual(request.headers['user-agent'], 'gateway-ai-vscode');
    assert.match(log[0]?.note ?? '', /proxy setting is not used/);
    assert.equal(log[1]?.note, undefined, 'said once');
  });
});

/**
 * A host fetch that heeds its signal only once it sends: VS Code's first resolves the proxy (a PAC
 * script, the system's settings) and loads the system's certificates, and only then passes the
 * signal on. The deadline and the caller's cancel must hold while it does.
 */
describe('api: a host fetch that does not heed its signal yet', () => {
  const call = (signal?: AbortSignal) => ({
    method: 'GET' as const,
    url: new URL('https://gateway.example/api/v1/models'),
    accept: 'application/json',
    signal,
    attempt: 1,
  });

  /** Runs `body` with a global fetch that never settles; fails if `body` is still waiting after 2 s. */
  async function withStuckFetch<T>(body: () => Promise<T>): Promise<T> {
    const realFetch = globalThis.fetch;
    globalThis.fetch = () => new Promise<Response>(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        body(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('still waiting for the host fetch')), 2000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      globalThis.fetch = realFetch;
    }
  }

  it('gives up at the request deadline', async () => {
    const transport = new FetchTransport({ timeoutMs: 50, streamIdleTimeoutMs: 1000, userAgent: 'ua' });
    const error = await withStuckFetch(() => expectGatewayError(transport.open(call()), 'timeout'));
    assert.match(error.message, /gateway\.example did not answer within/);
  });

  it('gives up when the caller cancels', async () => {
    const transport = new FetchTransport({ timeoutMs: 60_000, streamIdleTimeoutMs: 1000, userAgent: 'ua' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await withStuckFetch(() => expectGatewayError(transport.open(call(controller.signal)), 'aborted'));
  });
});

describe('api: retry_after in an error body (pure, property)', () => {
  it('is whole seconds from 0 to a day, or nothing, whatever the value', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const seconds = retryAfterSeconds(value);
        assert.ok(
          seconds === undefined || (Number.isInteger(seconds) && seconds >= 0 && seconds <= 86_400),
          String(seconds),
        );
      }),
    );
  });

  it('rounds a number of seconds up, and reads a string as Retry-After does', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 86_400, noNaN: true }), (value) => {
        assert.equal(retryAfterSeconds(value), Math.ceil(value));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), (value) => {
        assert.equal(retryAfterSeconds(String(value)), value);
      }),
    );
    for (const value of [-1, Number.NaN, Infinity, 86_401, '-3', 'soon', '1e3', true, null, {}, []])
      assert.equal(retryAfterSeconds(value), undefined, JSON.stringify(value));
  });

  it('an error body’s availability is read after the header and before the metadata', () => {
    const chat = { operation: 'chat' as const, secret: 'sk-secret' };
    fc.assert(
      fc.property(fc.anything(), fc.option(fc.integer({ min: 0, max: 60 })), (retryAfter, header) => {
        const body = JSON.stringify({
          error: { message: 'slow', availability: { retry_after: retryAfter }, metadata: { retry_after: 7 } },
        });
        const error = httpError(429, header === null ? {} : { 'retry-after': String(header) }, body, chat);
        // What the gateway's JSON holds of the value (undefined is left out, -0 becomes 0, …).
        const sent = JSON.parse(body) as { error: { availability: { retry_after?: unknown } } };
        const fromBody = retryAfterSeconds(sent.error.availability.retry_after);
        assert.equal(error.retryAfter, header ?? fromBody ?? 7);
      }),
    );
  });
});
