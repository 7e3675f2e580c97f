import * as assert from 'node:assert/strict';
import { bypassesProxy, proxyUrlFor } from '../../../src/api/transport/proxy';
import { collect, makeClient, userRequest, withSimulator } from './helpers';
import { TestProxy } from './testProxy';

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
