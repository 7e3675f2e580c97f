/** The key belongs to one origin (src/core/config/keyOrigin.ts), and the base URL it may go to. */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeStoredKey,
  DEFAULT_ORIGIN,
  encodeStoredKey,
  isLoopbackHost,
  keyOriginRefusal,
  legacyKeyOrigin,
  originOf,
} from '../../../../src/core/config/keyOrigin';
import { validateBaseUrl } from '../../../../src/core/config/settingsModel';

describe('key origin: what a key belongs to', () => {
  it('an origin is scheme, host and port, as browsers write it', () => {
    assert.equal(originOf('https://OpenRouter.ai/api'), 'https://openrouter.ai');
    assert.equal(originOf('https://openrouter.ai:443/api/v1'), 'https://openrouter.ai');
    assert.equal(originOf(' http://127.0.0.1:8787/api '), 'http://127.0.0.1:8787');
    assert.equal(originOf('http://[::1]:9/x'), 'http://[::1]:9');
    // The user-info trick names another host: that host is the origin.
    assert.equal(originOf('https://openrouter.ai@evil.example/api'), 'https://evil.example');
    for (const notOne of ['', 'not a url', 'ftp://x/y', 'file:///etc/passwd', 'javascript:alert(1)'])
      assert.equal(originOf(notOne), undefined, notOne);
  });

  it('a different port, scheme or host is another origin: the key is refused there, and the message says where', () => {
    assert.equal(keyOriginRefusal('https://openrouter.ai', 'https://openrouter.ai/api'), undefined);
    assert.equal(keyOriginRefusal('https://openrouter.ai', 'https://OPENROUTER.ai:443/api/'), undefined);
    for (const other of [
      'http://openrouter.ai/api',
      'https://openrouter.ai:8443/api',
      'https://api.openrouter.ai/api',
      'https://openrouter.ai@evil.example/api',
      'http://127.0.0.1:9999/api',
    ]) {
      const refusal = keyOriginRefusal('https://openrouter.ai', other);
      assert.ok(refusal, other);
      assert.match(refusal, /entered for https:\/\/openrouter\.ai/);
      assert.match(refusal, /nothing was sent/);
      assert.ok(refusal.includes(originOf(other)!), refusal);
    }
  });

  it('a key from before origins belongs to the user’s own base URL, else openrouter.ai', () => {
    assert.equal(DEFAULT_ORIGIN, 'https://openrouter.ai');
    assert.equal(legacyKeyOrigin('http://127.0.0.1:8787/api'), 'http://127.0.0.1:8787');
    assert.equal(legacyKeyOrigin('https://GATEWAY.example/api/'), 'https://gateway.example');
    for (const none of [undefined, null, '', 'not a url', 42, { url: 'https://x' }])
      assert.equal(legacyKeyOrigin(none), DEFAULT_ORIGIN, JSON.stringify(none));
  });

  it('the stored form round-trips, and anything else is no key (never a guess)', () => {
    const stored = { key: 'sk-test-0123', origin: 'http://127.0.0.1:8787' };
    assert.deepEqual(decodeStoredKey(encodeStoredKey(stored)), stored);
    for (const text of [
      undefined,
      '',
      'sk-bare-key',
      '{}',
      '{"key":"sk","origin":5}',
      '{"key":"  ","origin":"https://openrouter.ai"}',
      '{"key":"sk","origin":"https://OpenRouter.ai/api"}',
      '{"key":"sk","origin":"ftp://x"}',
      '[]',
      'null',
    ])
      assert.equal(decodeStoredKey(text), undefined, String(text));
    fc.assert(
      fc.property(fc.string(), (text) => {
        const decoded = decodeStoredKey(text);
        assert.ok(
          decoded === undefined || (decoded.key.length > 0 && originOf(decoded.origin) === decoded.origin),
        );
      }),
    );
  });

  it('loopback is localhost, 127.0.0.0/8 and [::1]; nothing else', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      '127.0.0.1',
      '127.1.2.3',
      '127.255.255.255',
      '[::1]',
    ])
      assert.ok(isLoopbackHost(host), host);
    for (const host of [
      'evil.localhost',
      'localhost.evil.example',
      '127.0.0.1.evil.example',
      '128.0.0.1',
      '10.0.0.1',
      '192.168.1.1',
      '[::ffff:7f00:1]',
      '[::2]',
      '0.0.0.0',
      'example.com',
    ])
      assert.ok(!isLoopbackHost(host), host);
    // As URL normalises them: `127.1` and the hex form are 127.0.0.1.
    assert.ok(isLoopbackHost(new URL('http://127.1/').hostname));
    assert.ok(isLoopbackHost(new URL('http://0x7f.0.0.1/').hostname));
  });
});

describe('key origin: the base URLs the key may go to', () => {
  it('https anywhere; plain http only to this computer', () => {
    for (const ok of [
      'https://openrouter.ai/api',
      'https://gateway.example:8443/v2',
      'http://127.0.0.1:8787/api',
      'http://localhost:4000/api',
      'http://[::1]:4000/api',
    ])
      assert.equal(validateBaseUrl(ok), undefined, ok);
    for (const plain of [
      'http://gateway.example/api',
      'http://192.168.1.20:8080/api',
      'http://evil.localhost/api',
    ]) {
      const problem = validateBaseUrl(plain);
      assert.match(problem ?? '', /must use https:\/\//, plain);
      assert.match(problem ?? '', /only for a gateway on this computer/);
    }
  });

  it('plain http to the loopback names a proxy may see (SECURITY.md): 127.0.0.2 and localhost.', () => {
    // VS Code's fetch goes direct only for localhost, 127.0.0.1 and ::1; these two are allowed
    // too, and go through a configured proxy, as SECURITY.md says.
    for (const ok of ['http://127.0.0.2:4000/api', 'http://localhost.:4000/api'])
      assert.equal(validateBaseUrl(ok), undefined, ok);
    assert.equal(new URL('http://localhost.:4000/').hostname, 'localhost.', 'a name of its own');
  });

  it('no user name or password: the host after "@" is where the key would go, and it is named', () => {
    for (const url of [
      'https://openrouter.ai@evil.example/api',
      'https://user:pass@openrouter.ai/api',
      'http://openrouter.ai@127.0.0.1:8787/api',
    ]) {
      const problem = validateBaseUrl(url) ?? '';
      assert.match(problem, /must not contain a user name or password/, url);
      assert.ok(!problem.includes('pass@'), problem);
    }
    assert.match(validateBaseUrl('https://openrouter.ai@evil.example/api') ?? '', /evil\.example/);
  });

  it('other schemes, queries and fragments are still refused', () => {
    assert.match(validateBaseUrl('ftp://gateway.example/api') ?? '', /must start with https:\/\//);
    assert.match(validateBaseUrl('https://gateway.example/api?x=1') ?? '', /query/);
    assert.match(validateBaseUrl('not a url') ?? '', /is not a valid URL/);
  });
});
