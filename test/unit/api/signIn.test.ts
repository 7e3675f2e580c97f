import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { GatewayError } from '../../../src/api/errors';
import { freshKey, makeClient, withSimulator } from './helpers';

function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

describe('client: Sign in with OpenRouter code exchange (POST /v1/auth/keys)', () => {
  const ctx = withSimulator();

  /** What a browser does: visits the page with the challenge, and gets a code back. */
  async function codeFor(verifier: string): Promise<string> {
    const page = new URL(`${ctx.sim.origin}/auth`);
    page.searchParams.set('code_challenge', challengeOf(verifier));
    page.searchParams.set('code_challenge_method', 'S256');
    const response = await fetch(page);
    assert.equal(response.status, 200);
    return /<pre id="code">([^<]+)<\/pre>/.exec(await response.text())![1];
  }

  it('trades a code and its verifier for a key, without sending any key', async () => {
    const verifier = 'a'.repeat(43);
    const code = await codeFor(verifier);
    const { client } = makeClient(ctx.sim, { apiKey: () => freshKey('unused') });
    const reply = (await client.exchangeAuthCode(code, verifier)) as { key: string; user_id: string };
    assert.equal(reply.key, ctx.sim.oauth.issuedKeys.at(-1));
    const request = ctx.sim.requests.at(-1)!;
    assert.equal(request.path, '/api/v1/auth/keys');
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(request.body, { code, code_verifier: verifier, code_challenge_method: 'S256' });
  });

  it('a used code is refused once, with a sign-in message that holds neither the code nor the verifier', async () => {
    const verifier = 'b'.repeat(43);
    const code = await codeFor(verifier);
    const { client } = makeClient(ctx.sim);
    await client.exchangeAuthCode(code, verifier);
    const before = ctx.sim.requests.length;
    const error = await client.exchangeAuthCode(code, verifier).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(GatewayError.is(error));
    assert.match(error.message, /did not accept the sign-in code \(403\)/);
    assert.ok(!error.message.includes(code) && !error.message.includes(verifier));
    assert.equal(ctx.sim.requests.length, before + 1, 'a code is never sent twice by the client');
  });

  it('a wrong verifier is refused', async () => {
    const code = await codeFor('c'.repeat(43));
    const { client } = makeClient(ctx.sim);
    await assert.rejects(client.exchangeAuthCode(code, 'd'.repeat(43)), /sign-in code \(403\)/);
  });
});
