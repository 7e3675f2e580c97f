/**
 * The gateway client on undici as it ships (dist/undici.js, Node's sibling bundle): undici with the
 * build's stand-ins for the parts our transport never runs (MODULE_STUBS of build/bundles.mjs: the
 * HTTP/2 client, fetch's FormData bodies, SOCKS proxies, the non-SIMD parser). The other client
 * tests run the sources against the whole of undici; these give the client's Node transport the
 * bundle's parts, so a stand-in that is reached fails here.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as api from '../../../src/api/index';
import { createGatewayClient } from '../../../src/api/client';
import type { ClientOptions } from '../../../src/api/types';
import { HttpTransport } from '../../../src/api/transport/http';
import type { UndiciParts } from '../../../src/api/transport/undiciParts';
import { collect, freshKey, userRequest, withSimulator } from '../api/helpers';
import { PROXIED_HOST, TestProxy, throughProxy } from '../api/testProxy';

const dist = path.resolve(__dirname, '../../../../dist');
const fixtures = path.resolve(__dirname, '../../../../test/fixtures/tls');

describe("the client on undici's built bundle (dist/undici.js)", function () {
  const ctx = withSimulator();
  const proxy = new TestProxy();
  let loadUndici: () => UndiciParts;

  before(async function () {
    if (!existsSync(path.join(dist, 'undici.js')))
      throw new Error('dist/ is not built: run "npm run build" first');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built bundle, as the Node transport loads it
    ({ loadUndici } = require(path.join(dist, 'undici.js')) as { loadUndici: () => UndiciParts });
    await proxy.start();
  });
  after(() => proxy.stop());

  function client(options: Partial<ClientOptions>): api.GatewayClient {
    const key = freshKey('built');
    return createGatewayClient(
      {
        baseUrl: ctx.sim.baseUrl,
        apiKey: () => key,
        timeoutMs: 5_000,
        streamIdleTimeoutMs: 5_000,
        maxRetries: 0,
        proxy: { url: '', noProxy: ['127.0.0.1'] },
        ...options,
      },
      { transport: (settings) => new HttpTransport(settings, loadUndici) },
    );
  }

  it('answers and streams a chat on a direct HTTP/1.1 connection', async () => {
    const direct = client({});
    try {
      assert.match((await direct.chat(userRequest('built direct'))).content, /^Echo from .*: built direct/);
      const streamed = await collect(direct.streamChat(userRequest('built streamed')));
      assert.equal(streamed.error, undefined);
      assert.match(streamed.completion.content, /built streamed/);
      assert.ok(streamed.deltas.length > 1, 'the reply arrived in pieces');
    } finally {
      await direct.close();
    }
  });

  it('answers and streams through an http: proxy (a CONNECT tunnel)', async () => {
    const proxied = client({
      baseUrl: throughProxy(ctx.sim.baseUrl),
      proxy: { url: proxy.url, noProxy: [] },
    });
    const before = proxy.uses;
    try {
      assert.match((await proxied.chat(userRequest('built proxied'))).content, /built proxied/);
      const streamed = await collect(proxied.streamChat(userRequest('built proxied stream')));
      assert.equal(streamed.error, undefined);
      assert.match(streamed.completion.content, /built proxied stream/);
    } finally {
      await proxied.close();
    }
    assert.ok(proxy.uses > before, 'the requests went through the proxy');
  });

  it('refuses a SOCKS proxy URL before undici would make a SOCKS agent', async () => {
    const socks = client({
      baseUrl: throughProxy(ctx.sim.baseUrl),
      proxy: { url: 'socks5://127.0.0.1:1080', noProxy: [] },
    });
    try {
      await assert.rejects(socks.chat(userRequest('never sent')), (error: unknown) => {
        assert.ok(api.GatewayError.is(error), String(error));
        assert.equal(error.kind, 'config');
        assert.match(error.message, /not a valid http\(s\) URL/);
        return true;
      });
    } finally {
      await socks.close();
    }
  });

  describe('a TLS gateway that prefers HTTP/2', () => {
    let gateway: Http2SecureServer;
    const versions: string[] = [];

    before(async () => {
      // Offers h2 first and HTTP/1.1 as well: a client that offered h2 in ALPN would get it.
      gateway = createSecureServer(
        {
          cert: readFileSync(path.join(fixtures, 'loopback-cert.pem')),
          key: readFileSync(path.join(fixtures, 'loopback-key.pem')),
          allowHTTP1: true,
        },
        (request, response) => {
          versions.push(request.httpVersion);
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ data: [] }));
        },
      );
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', () => resolve()));
    });
    after(() => new Promise<void>((resolve) => gateway.close(() => resolve())));

    it('is spoken to over HTTP/1.1, so the HTTP/2 client the build leaves out is never needed', async () => {
      // Through the proxy with strictSSL off: the fixture's certificate is self-signed.
      const tls = client({
        baseUrl: `https://${PROXIED_HOST}:${(gateway.address() as AddressInfo).port}/api`,
        proxy: { url: proxy.url, noProxy: [], strictSSL: false },
      });
      try {
        await tls.listModels();
      } finally {
        await tls.close();
      }
      assert.deepEqual(versions, ['1.1']);
    });
  });
});
