/**
 * `http.proxyStrictSSL: false` is about connections through a proxy (a corporate one that re-signs
 * certificates): a direct connection to the gateway checks its certificate whatever it says. A
 * gateway on 127.0.0.1 with a self-signed certificate (test/fixtures/tls) stands for one whose
 * certificate no CA vouches for.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { createGatewayClient } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';
import type { ProxyOptions } from '../../../src/api/types';

const fixtures = path.resolve(__dirname, '../../../../test/fixtures/tls');

describe('api: certificates and http.proxyStrictSSL', function () {
  let gateway: HttpsServer;
  let proxy: HttpServer;
  let gatewayUrl = '';
  let proxyUrl = '';
  const tunnels: string[] = [];
  const authorizations: Array<string | undefined> = [];
  const sockets = new Set<Socket>();

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
    proxy = createHttpServer((_request, response) => response.writeHead(405).end());
    proxy.on('connect', (request, client: Socket, head: Buffer) => {
      tunnels.push(request.url ?? '');
      const [host, port] = (request.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(client).add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    gateway.closeAllConnections();
    proxy.closeAllConnections();
    await Promise.all([
      new Promise<void>((resolve) => gateway.close(() => resolve())),
      new Promise<void>((resolve) => proxy.close(() => resolve())),
    ]);
  });

  function client(proxyOptions: ProxyOptions) {
    return createGatewayClient({
      baseUrl: gatewayUrl,
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
    const lax = client({ url: proxyUrl, noProxy: [], strictSSL: false });
    const strict = client({ url: proxyUrl, noProxy: [], strictSSL: true });
    try {
      const tunnelsBefore = tunnels.length;
      assert.deepEqual(await lax.listModels(), { data: [] });
      assert.ok(tunnels.length > tunnelsBefore, 'the request went through the proxy');
      await assert.rejects(strict.listModels(), (error: unknown) => error instanceof GatewayError);
    } finally {
      await lax.close();
      await strict.close();
    }
  });
});
