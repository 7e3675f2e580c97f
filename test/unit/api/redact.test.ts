import * as assert from 'node:assert/strict';
import { redact, REDACTED } from '../../../src/api/redact';

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
});
