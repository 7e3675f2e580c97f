/**
 * `http.proxyStrictSSL: false` is about connections through a proxy (a corporate one that re-signs
 * certificates): a direct connection to the gateway checks its certificate whatever it says. A
 * gateway on 127.0.0.1 with a self-signed certificate (test/fixtures/tls) stands for one whose
 * certificate no CA vouches for.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createGatewayClient } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';
import type { ProxyOptions } from '../../../src/api/types';
import { TestProxy, throughProxy } from './testProxy';

const fixtures = path.resolve(__dirname, '../../../../test/fixtures/tls');

describe('api: certificates and http.proxyStrictSSL', function () {
  let gateway: HttpsServer;
  const proxy = new TestProxy();
  let gatewayUrl = '';
  const authorizations: Array<string | undefined> = [];

  before(async () => {
    gateway = createHttpsServer(
      {
        cert: readFileSync(path.join(fixtures, 'loopback-cert.pem')),
        key: readFileSync(path.join(fixtures, 'loopback-key.pem')),
      },
      (request, response) => {
        authorizations.push(request.headers.authorization);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ data: [] }));
      },
    );
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', () => resolve()));
    gatewayUrl = `https://127.0.0.1:${(gateway.address() as AddressInfo).port}/api`;
    // A CONNECT proxy: the TLS session runs through it, end to end.
    await proxy.start();
  });

  after(async () => {
    gateway.closeAllConnections();
    await Promise.all([new Promise<void>((resolve) => gateway.close(() => resolve())), proxy.stop()]);
  });

  function client(proxyOptions: ProxyOptions, baseUrl = gatewayUrl) {
    return createGatewayClient({
      baseUrl,
      apiKey: () => 'sk-tls-test-key',
      timeoutMs: 5_000,
      maxRetries: 0,
      proxy: proxyOptions,
    });
  }

  it('a direct connection checks the certificate even with strictSSL off, and sends no key to a gateway it refused', async () => {
    const before = authorizations.length;
    const direct = client({ url: '', noProxy: ['127.0.0.1'], strictSSL: false });
    try {
      await assert.rejects(direct.listModels(), (error: unknown) => {
        assert.ok(error instanceof GatewayError, String(error));
        assert.equal(error.kind, 'network');
        return true;
      });
    } finally {
      await direct.close();
    }
    assert.equal(authorizations.length, before, 'no request reached the gateway');
  });

  it('through the proxy, strictSSL off lets the re-signed certificate through; on, it is refused', async () => {
    // Named as only the proxy resolves it: a loopback gateway is never proxied.
    const proxied = throughProxy(gatewayUrl);
    const lax = client({ url: proxy.url, noProxy: [], strictSSL: false }, proxied);
    const strict = client({ url: proxy.url, noProxy: [], strictSSL: true }, proxied);
    try {
      const tunnelsBefore = proxy.tunnels.length;
      assert.deepEqual(await lax.listModels(), { data: [] });
      assert.ok(proxy.tunnels.length > tunnelsBefore, 'the request went through the proxy');
      await assert.rejects(strict.listModels(), (error: unknown) => error instanceof GatewayError);
    } finally {
      await lax.close();
      await strict.close();
    }
  });
});
