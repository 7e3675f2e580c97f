import * as assert from 'node:assert/strict';
import { redact, REDACTED, urlCredentials } from '../../../src/api/redact';

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
});
