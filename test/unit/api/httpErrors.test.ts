import * as assert from 'node:assert/strict';
import { httpError } from '../../../src/api/httpErrors';

describe('api: HTTP error messages (pure)', () => {
  const chat = { operation: 'chat' as const, model: 'vendor/m', secret: 'sk-secret-1234' };

  it('takes Retry-After from an HTTP date, or from the body metadata when no header is sent', () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const dated = httpError(429, { 'retry-after': inTenSeconds }, '{}', chat);
    assert.ok(
      dated.retryAfter !== undefined && dated.retryAfter >= 9 && dated.retryAfter <= 11,
      String(dated.retryAfter),
    );
    assert.equal(
      httpError(
        429,
        {},
        JSON.stringify({ error: { message: 'slow down', metadata: { retry_after: 4 } } }),
        chat,
      ).retryAfter,
      4,
    );
    const reset = Date.now() + 5_000;
    const viaHeaders = httpError(
      429,
      {},
      JSON.stringify({
        error: { message: 'x', metadata: { headers: { 'X-RateLimit-Reset': String(reset) } } },
      }),
      chat,
    );
    assert.ok(
      viaHeaders.retryAfter !== undefined && viaHeaders.retryAfter >= 4 && viaHeaders.retryAfter <= 5,
    );
    assert.match(httpError(429, {}, '{}', chat).message, /Try again in a moment/);
  });

  it('names the provider from the body, the X-OpenRouter-Provider or the X-Provider header', () => {
    assert.equal(
      httpError(502, {}, JSON.stringify({ error: { message: 'x', metadata: { provider_name: 'A' } } }), chat)
        .provider,
      'A',
    );
    assert.equal(httpError(502, { 'x-openrouter-provider': 'B' }, '{}', chat).provider, 'B');
    assert.equal(httpError(500, { 'x-provider': 'C' }, 'oops', chat).provider, 'C');
    assert.match(
      httpError(500, { 'x-provider': 'C' }, 'oops', chat).message,
      /^The upstream provider C failed \(500\)/,
    );
  });

  it('includes the gateway’s words and the raw upstream text, without the key or HTML pages', () => {
    const body = JSON.stringify({
      error: {
        message: 'Bad key sk-secret-1234',
        code: 'bad_request',
        metadata: { raw: 'upstream said no' },
      },
    });
    const error = httpError(400, {}, body, chat);
    assert.equal(error.code, 'bad_request');
    assert.match(
      error.message,
      /rejected the request as invalid \(400\)\. Gateway message: Bad key \[redacted\] \(upstream said no\)/,
    );
    assert.ok(!error.message.includes('sk-secret-1234'));
    assert.ok(!httpError(502, {}, '<html><body>Bad Gateway</body></html>', chat).message.includes('<html>'));
    assert.match(
      httpError(418, {}, 'short and stout', chat).message,
      /HTTP 418\. Gateway message: short and stout/,
    );
    assert.match(
      httpError(401, {}, JSON.stringify({ error: 'plain string error' }), chat).message,
      /Gateway message: plain string error/,
    );
  });

  it('explains 402 and a 404 on chat', () => {
    assert.match(httpError(402, {}, '{}', chat).message, /insufficient credits/);
    // A 404 blames the path unless the gateway's words name the model.
    const wrongPath = httpError(404, {}, '{}', { ...chat, path: '/v1/v1/chat/completions' }).message;
    assert.match(wrongPath, /no endpoint at \/v1\/v1\/chat\/completions \(404\)\. Check the base URL/);
    assert.doesNotMatch(wrongPath, /model/);
    assert.match(
      httpError(404, {}, JSON.stringify({ error: { message: 'The model vendor/m does not exist' } }), chat)
        .message,
      /does not know the model vendor\/m \(404\)/,
    );
  });

  it('takes LiteLLM\'s 400 "No connected db." for what it is: a wrong key', () => {
    const error = httpError(
      400,
      {},
      JSON.stringify({ error: { message: 'No connected db.', code: '400' } }),
      chat,
    );
    assert.equal(error.status, 401);
    assert.match(error.message, /rejected the API key.*Set API Key.*No connected db\./);
  });
});
