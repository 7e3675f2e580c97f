import * as assert from 'node:assert/strict';
import { bypassesProxy, isLoopback, proxyUrlFor } from '../../../src/api/transport/proxy';
import { collect, makeClient, userRequest, withSimulator } from './helpers';
import { PROXIED_HOST, TestProxy, throughProxy } from './testProxy';

const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/** Runs `body` with no proxy variables in the environment but those it sets; puts them back after. */
async function withoutProxyEnv(body: () => Promise<void>): Promise<void> {
  const saved = { ...process.env };
  for (const name of PROXY_ENV) delete process.env[name];
  try {
    await body();
  } finally {
    for (const name of PROXY_ENV) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

describe('api: proxies', () => {
  const ctx = withSimulator();
  const proxy = new TestProxy();
  before(() => proxy.start());
  after(() => proxy.stop());

  /** A client of the simulator named as only the proxy resolves it (loopback is never proxied). */
  function proxiedClient(proxyOptions: { url?: string; noProxy?: string[] } | undefined) {
    return makeClient(ctx.sim, {
      baseUrl: throughProxy(ctx.sim.baseUrl),
      maxRetries: 0,
      proxy: proxyOptions,
    });
  }

  it('sends requests through the configured proxy (a CONNECT tunnel), streams included', async () => {
    const { client } = proxiedClient({ url: proxy.url });
    const before = proxy.uses;
    const reply = await client.chat(userRequest('via proxy'));
    assert.match(reply.content, /^Echo from .*: via proxy/);
    const streamed = await collect(client.streamChat(userRequest('streamed via proxy')));
    assert.equal(streamed.error, undefined);
    assert.ok(proxy.uses > before);
    assert.ok(
      proxy.tunnels.includes(`${PROXIED_HOST}:${ctx.sim.port}`) ||
        proxy.forwarded.some((url) => url.includes(`${PROXIED_HOST}:${ctx.sim.port}`)),
    );
    await client.close();
  });

  it('bypasses the proxy for noProxy hosts (exact host, host:port)', async () => {
    // Bypassed, the client connects itself to a name only the proxy knows: it fails, unproxied.
    for (const noProxy of [[PROXIED_HOST], [`${PROXIED_HOST}:${ctx.sim.port}`], ['*']]) {
      const { client } = proxiedClient({ url: proxy.url, noProxy });
      const before = proxy.uses;
      await assert.rejects(client.chat(userRequest('direct')));
      assert.equal(proxy.uses, before, `noProxy ${noProxy.join(',')}`);
      await client.close();
    }
    const { client } = proxiedClient({ url: proxy.url, noProxy: [`${PROXIED_HOST}:1`] });
    const before = proxy.uses;
    await client.chat(userRequest('other port: proxied'));
    assert.ok(proxy.uses > before);
    await client.close();
  });

  it('an http:// loopback gateway never goes through a proxy: configured, or from HTTPS_PROXY/HTTP_PROXY', async () => {
    await withoutProxyEnv(async () => {
      process.env.HTTP_PROXY = proxy.url;
      process.env.HTTPS_PROXY = proxy.url;
      const origin = new URL(ctx.sim.baseUrl);
      for (const host of ['127.0.0.1', 'localhost', '127.1'])
        for (const options of [{ url: proxy.url, noProxy: [] }, { url: '' }, undefined]) {
          const baseUrl = ctx.sim.baseUrl.replace(origin.hostname, host);
          const { client, key } = makeClient(ctx.sim, { baseUrl, proxy: options });
          const before = { tunnels: proxy.tunnels.length, forwarded: proxy.forwarded.length };
          const reply = await client.chat(userRequest('loopback, direct'));
          assert.match(reply.content, /loopback, direct/);
          assert.deepEqual(
            { tunnels: proxy.tunnels.length, forwarded: proxy.forwarded.length },
            before,
            `${host} with ${JSON.stringify(options)}: no connection reached the proxy`,
          );
          assert.ok(!proxy.forwarded.some((url) => url.includes(key)));
          await client.close();
        }
    });
  });

  it('takes the proxy from HTTP_PROXY and the bypass list from NO_PROXY when none is configured', async () => {
    await withoutProxyEnv(async () => {
      process.env.HTTP_PROXY = proxy.url;
      const viaEnv = proxiedClient({ url: '' });
      let before = proxy.uses;
      await viaEnv.client.chat(userRequest('env proxy'));
      assert.ok(proxy.uses > before);
      await viaEnv.client.close();

      process.env.NO_PROXY = `localhost,${PROXIED_HOST}`;
      const bypassed = proxiedClient(undefined);
      before = proxy.uses;
      await assert.rejects(bypassed.client.chat(userRequest('env bypass')));
      assert.equal(proxy.uses, before);
      await bypassed.client.close();
    });
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

  it('an http:// loopback gateway bypasses every proxy: 127.0.0.0/8, ::1 and localhost, however written', () => {
    const env = { HTTPS_PROXY: 'http://secure:1', HTTP_PROXY: 'http://plain:2' };
    for (const text of [
      'http://127.0.0.1:8080/api',
      'http://127.1/api',
      'http://0x7f.0.0.1/api',
      'http://127.255.255.254/',
      'http://[::1]:3000/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://localhost:4000/v1',
      'http://LOCALHOST./v1',
      'http://gateway.localhost/v1',
      'https://127.0.0.1/',
    ]) {
      assert.ok(isLoopback(url(text)), text);
      assert.equal(proxyUrlFor(url(text), { url: 'http://configured:3' }, env), undefined, text);
      assert.equal(proxyUrlFor(url(text), undefined, env), undefined, text);
    }
    for (const text of [
      'http://128.0.0.1/',
      'http://10.0.0.1/',
      'http://localhost.example.com/',
      'http://mylocalhost/',
      'http://[::2]/',
      'http://[::ffff:8.8.8.8]/',
      'http://0.0.0.1/',
    ]) {
      assert.equal(isLoopback(url(text)), false, text);
      assert.equal(proxyUrlFor(url(text), undefined, env), 'http://plain:2', text);
    }
  });
});
