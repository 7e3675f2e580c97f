/**
 * A gateway whose certificate no CA vouches for is refused, before the key is sent: a gateway on
 * 127.0.0.1 with a self-signed certificate (test/fixtures/tls) stands for one. (Through a proxy,
 * VS Code's fetch decides, with the system's certificates.)
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createGatewayClient } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';

const fixtures = path.resolve(__dirname, '../../../../test/fixtures/tls');

describe('api: certificates', function () {
  let gateway: HttpsServer;
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
  });

  after(async () => {
    gateway.closeAllConnections();
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
  });

  function client() {
    return createGatewayClient({
      baseUrl: gatewayUrl,
      apiKey: () => 'sk-tls-test-key',
      timeoutMs: 5_000,
      maxRetries: 0,
    });
  }

  it('refuses the connection, and sends no key to the gateway it refused', async () => {
    const before = authorizations.length;
    const direct = client();
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

  it('names the certificate and what to trust, never a setting that would not apply', async () => {
    // VS Code's fetch trusts the system's certificates and has no strict-SSL switch of its own:
    // http.proxyStrictSSL is read by VS Code's own requests, not by the fetch the client sends on.
    const direct = client();
    try {
      await assert.rejects(direct.listModels(), (error: unknown) => {
        assert.ok(error instanceof GatewayError, String(error));
        assert.match(error.message, /TLS certificate of 127\.0\.0\.1:\d+ was not accepted/);
        assert.match(error.message, /system's trusted certificates/);
        assert.doesNotMatch(error.message, /strict ssl/i);
        return true;
      });
    } finally {
      await direct.close();
    }
  });
});
