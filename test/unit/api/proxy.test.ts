import * as assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { bypassesProxy, proxyUrlFor } from '../../../src/api/transport/proxy';
import { collect, makeClient, userRequest, withSimulator } from './helpers';

/**
 * A minimal loopback proxy. undici's ProxyAgent tunnels with CONNECT even for http:// targets;
 * plain forwarding (absolute-URI requests) is supported as well, in case that changes.
 */
class TestProxy {
  readonly tunnels: string[] = [];
  readonly forwarded: string[] = [];
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      this.forwarded.push(request.url ?? '');
      const target = new URL(request.url ?? '');
      const upstream = httpRequest(target, { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    server.on('connect', (request, clientSocket: Socket, head: Buffer) => {
      this.tunnels.push(request.url ?? '');
      const [host, port] = (request.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      this.sockets.add(clientSocket).add(upstream);
      upstream.on('error', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  get uses(): number {
    return this.tunnels.length + this.forwarded.length;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('api: proxies', () => {
  const ctx = withSimulator();
  const proxy = new TestProxy();
  before(() => proxy.start());
  after(() => proxy.stop());

  it('sends requests through the configured proxy (a CONNECT tunnel), streams included', async () => {
    const { client } = makeClient(ctx.sim, { proxy: { url: proxy.url } });
    const before = proxy.uses;
    const reply = await client.chat(userRequest('via proxy'));
    assert.match(reply.content, /^Echo from .*: via proxy/);
    const streamed = await collect(client.streamChat(userRequest('streamed via proxy')));
    assert.equal(streamed.error, undefined);
    assert.ok(proxy.uses > before);
    assert.ok(
      proxy.tunnels.includes(`127.0.0.1:${ctx.sim.port}`) ||
        proxy.forwarded.some((url) => url.includes(`127.0.0.1:${ctx.sim.port}`)),
    );
    await client.close();
  });

  it('bypasses the proxy for noProxy hosts (exact host, host:port)', async () => {
    for (const noProxy of [['127.0.0.1'], [`127.0.0.1:${ctx.sim.port}`], ['*']]) {
      const { client } = makeClient(ctx.sim, { proxy: { url: proxy.url, noProxy } });
      const before = proxy.uses;
      await client.chat(userRequest('direct'));
      assert.equal(proxy.uses, before, `noProxy ${noProxy.join(',')}`);
      await client.close();
    }
    const { client } = makeClient(ctx.sim, { proxy: { url: proxy.url, noProxy: ['127.0.0.1:1'] } });
    const before = proxy.uses;
    await client.chat(userRequest('other port: proxied'));
    assert.ok(proxy.uses > before);
    await client.close();
  });

  it('takes the proxy from HTTP_PROXY and the bypass list from NO_PROXY when none is configured', async () => {
    const saved = { ...process.env };
    try {
      for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
        delete process.env[name];
      process.env.HTTP_PROXY = proxy.url;
      const viaEnv = makeClient(ctx.sim, { proxy: { url: '' } });
      let before = proxy.uses;
      await viaEnv.client.chat(userRequest('env proxy'));
      assert.ok(proxy.uses > before);
      await viaEnv.client.close();

      process.env.NO_PROXY = 'localhost,127.0.0.1';
      const bypassed = makeClient(ctx.sim, { proxy: undefined });
      before = proxy.uses;
      await bypassed.client.chat(userRequest('env bypass'));
      assert.equal(proxy.uses, before);
      await bypassed.client.close();
    } finally {
      for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});

describe('api: proxy choice (pure)', () => {
  const url = (text: string): URL => new URL(text);

  it('matches exact hosts, domains with subdomains, dot-suffixes, wildcards and ports', () => {
    assert.equal(bypassesProxy(url('https://api.example.com/x'), ['example.com']), true);
    assert.equal(bypassesProxy(url('https://example.com/x'), ['example.com']), true);
    assert.equal(bypassesProxy(url('https://badexample.com/x'), ['example.com']), false);
    assert.equal(bypassesProxy(url('https://api.example.com/x'), ['.example.com']), true);
    assert.equal(bypassesProxy(url('https://example.com/x'), ['.example.com']), false);
    assert.equal(bypassesProxy(url('https://a.example.com/x'), ['*.example.com']), true);
    assert.equal(bypassesProxy(url('https://anything.test/x'), ['*']), true);
    assert.equal(bypassesProxy(url('https://example.com/x'), ['example.com:443']), true);
    assert.equal(bypassesProxy(url('https://example.com:8443/x'), ['example.com:443']), false);
    assert.equal(bypassesProxy(url('http://[::1]:8080/x'), ['[::1]:8080']), true);
    assert.equal(bypassesProxy(url('http://[::1]:8080/x'), ['::1']), true);
    assert.equal(bypassesProxy(url('https://Example.COM/x'), ['other.org, example.com']), true);
  });

  it('prefers the configured URL, else the environment by scheme', () => {
    const env = {
      HTTPS_PROXY: 'http://secure:1',
      HTTP_PROXY: 'http://plain:2',
      NO_PROXY: 'internal.example',
    };
    assert.equal(
      proxyUrlFor(url('https://a.test'), { url: 'http://configured:3' }, env),
      'http://configured:3',
    );
    assert.equal(proxyUrlFor(url('https://a.test'), { url: '' }, env), 'http://secure:1');
    assert.equal(proxyUrlFor(url('http://a.test'), undefined, env), 'http://plain:2');
    assert.equal(proxyUrlFor(url('https://internal.example'), undefined, env), undefined);
    assert.equal(
      proxyUrlFor(url('https://internal.example'), { noProxy: ['other'] }, env),
      'http://secure:1',
    );
    assert.equal(
      proxyUrlFor(url('https://a.test'), undefined, { https_proxy: 'http://lower:4' }),
      'http://lower:4',
    );
    assert.equal(proxyUrlFor(url('https://a.test'), undefined, {}), undefined);
  });
});
