import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { excerpt } from '../../../src/api/json';
import { redact, REDACTED, redactExcerpt, urlCredentials } from '../../../src/api/redact';

/** Runs of scheme and token characters that once made a pattern scan to the end from every letter. */
const adversarial = (size: number): string[] => [
  'a.'.repeat(size / 2),
  'sk-'.repeat(size / 3),
  'a://'.repeat(size / 4),
  `a://${'b'.repeat(size)}`,
  `Bearer${' '.repeat(size)}`,
  `authorization:${' '.repeat(size)}`,
  'authorization'.repeat(size / 13),
  `sk-${'-'.repeat(size)}`,
];

describe('redact', () => {
  it('removes a known secret wherever it stands', () => {
    const key = 'my-secret-key-123';
    assert.equal(redact(`key=${key} and again ${key}`, [key]), `key=${REDACTED} and again ${REDACTED}`);
  });

  it('removes Bearer tokens and Authorization headers without knowing the key', () => {
    assert.equal(redact('Authorization: Bearer abc.def'), `Authorization: Bearer ${REDACTED}`);
    assert.match(redact('{"authorization":"xyz"}'), new RegExp(`"authorization":"\\[redacted\\]`));
  });

  it('removes key-shaped tokens', () => {
    assert.equal(redact('used sk-or-v1-0123456789abcdef0123 here'), `used ${REDACTED} here`);
  });

  it('removes the URL-encoded form of a secret too', () => {
    assert.equal(redact('key=a%2Bb%2Fc-secret', ['a+b/c-secret']), `key=${REDACTED}`);
  });

  it('leaves ordinary text and very short secrets alone', () => {
    assert.equal(redact('nothing to hide', ['a', undefined]), 'nothing to hide');
  });

  it('removes the userinfo of any URL, up to the last @ before the path', () => {
    assert.equal(
      redact('via http://alice:s3cret@proxy:3128 and socks5://bob@h/x?u=a@b'),
      `via http://${REDACTED}@proxy:3128 and socks5://${REDACTED}@h/x?u=a@b`,
    );
    assert.equal(redact('http://u:p@ss@host/p'), `http://${REDACTED}@host/p`);
    assert.equal(redact('mail me at a@b.example'), 'mail me at a@b.example');
  });

  it('removes Proxy-Authorization headers, Basic or Bearer', () => {
    assert.equal(
      redact('Proxy-Authorization: Basic YWxpY2U6czNjcmV0'),
      `Proxy-Authorization: Basic ${REDACTED}`,
    );
  });

  it('finds the credentials of a proxy URL, raw and decoded, to redact them standing alone', () => {
    assert.deepEqual(urlCredentials('http://alice:p%40ss-word@proxy:3128').sort(), [
      'alice:p%40ss-word',
      'p%40ss-word',
      'p@ss-word',
    ]);
    assert.deepEqual(urlCredentials('https://tok3n-only@proxy'), ['tok3n-only']);
    assert.deepEqual(urlCredentials('http://proxy:3128'), []);
    assert.equal(
      redact('wrong password p@ss-word', urlCredentials('http://alice:p%40ss-word@proxy')),
      `wrong password ${REDACTED}`,
    );
  });

  it('redacts adversarial megabyte texts in linear time', function () {
    // The quadratic pattern took minutes on each of these; linear, all of them take well under
    // a second together. The bound is generous so a loaded machine cannot fail it.
    this.timeout(60_000);
    const started = Date.now();
    for (const text of adversarial(1_000_000)) redact(text, ['a-long-secret-key']);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  });

  it('removes every URL userinfo the former, quadratic pattern removed', () => {
    const former = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>`]*@/gi;
    const piece = fc.constantFrom(
      'a',
      'h',
      '1',
      '.',
      '-',
      '+',
      '_',
      ':',
      '//',
      '/',
      '@',
      ' ',
      'u:p',
      'http',
      '://',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        const shown = redact(parts.join(''));
        assert.equal(shown.replace(former, `$1${REDACTED}@`), shown);
      }),
    );
    assert.equal(redact('.http://u:p@h -x://t0ken@h'), `.http://${REDACTED}@h -x://${REDACTED}@h`);
  });
});

describe('redactExcerpt', () => {
  it('shows what redact then excerpt shows, for a short text', () => {
    const key = 'sk-secret-1234';
    const text = `bad key ${key}  at   http://u:p@h/x`;
    assert.equal(redactExcerpt(text, 40, key), excerpt(redact(text, key), 40));
  });

  it('cuts a megabyte text before redacting it, and still removes a secret across the cut', function () {
    this.timeout(60_000);
    const key = 'k'.repeat(5000);
    for (const text of adversarial(1_000_000)) {
      const started = Date.now();
      const out = redactExcerpt(text, 1000, key);
      assert.ok(out.length <= 1001 && Date.now() - started < 2_000);
    }
    // A secret straddling any cut (the first 1000 characters shown, the margin after them).
    for (const at of [990, 1000, 2020, 3 * 5000 + 990]) {
      const text = `${'x'.repeat(at)}${key}${'y'.repeat(100_000)}`;
      assert.ok(!redactExcerpt(text, 1000, key).includes('kkkk'), `secret at ${at}`);
    }
  });

  it('never shows a secret that redact would remove, wherever it stands and however often', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]{4,40}$/),
        fc.array(fc.oneof(fc.constant('S'), fc.string({ maxLength: 30 }), fc.constant(' '.repeat(50))), {
          maxLength: 300,
        }),
        fc.integer({ min: 1, max: 200 }),
        (secret, parts, max) => {
          const text = parts.map((part) => (part === 'S' ? secret : part.replaceAll(secret, ''))).join('');
          const shown = redactExcerpt(text, max, secret);
          const full = excerpt(redact(text, secret), max);
          assert.ok(!shown.includes(secret));
          // The same as redacting all of it, up to where the excerpt is cut.
          assert.equal(
            shown.replace(/…$/, ''),
            full.replace(/…$/, '').slice(0, shown.replace(/…$/, '').length),
          );
        },
      ),
    );
  });
});
