import * as assert from 'node:assert/strict';
import { createHash, getRandomValues } from 'node:crypto';
import fc from 'fast-check';
import {
  SIGN_IN_TTL_MS,
  SignInFlows,
  base64Url,
  cleanCode,
  createPkce,
  keysPageUrl,
  parseAuthKeyReply,
  signInPageUrl,
} from '../../../../src/core/auth/signIn';
import type { PendingSignIn, PkceCrypto } from '../../../../src/core/auth/signIn';

const nodeCrypto: PkceCrypto = {
  randomBytes: (length) => getRandomValues(new Uint8Array(length)),
  sha256: (data) => Promise.resolve(new Uint8Array(createHash('sha256').update(data).digest())),
};

function pending(overrides: Partial<PendingSignIn> = {}): PendingSignIn {
  return {
    state: 'state-1',
    verifier: 'v'.repeat(43),
    baseUrl: 'https://openrouter.ai/api',
    startedAt: 1_000_000,
    headless: false,
    ...overrides,
  };
}

describe('Sign in with OpenRouter: PKCE and the sign-in page', () => {
  it('base64url matches Node\u2019s for any bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        assert.equal(base64Url(bytes), Buffer.from(bytes).toString('base64url'));
      }),
    );
  });

  it('makes a 43-character verifier of 32 random bytes and its S256 challenge, new each time', async () => {
    const first = await createPkce(nodeCrypto);
    const second = await createPkce(nodeCrypto);
    assert.match(first.verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(first.challenge, createHash('sha256').update(first.verifier).digest('base64url'));
    assert.notEqual(first.verifier, second.verifier);
  });

  it('builds the page from the gateway origin, and a callback with its own query stays whole', () => {
    const callback =
      'https://host.example/stable-1/callback?vscode-reqid=3&vscode-scheme=code-oss&vscode-authority=gateway-ai.gateway-ai&vscode-path=%2Fsignin%2Fabc';
    const page = signInPageUrl('https://openrouter.ai/api/v1/', 'chal_lenge', callback)!;
    const url = new URL(page);
    assert.equal(url.origin + url.pathname, 'https://openrouter.ai/auth');
    assert.equal(url.searchParams.get('callback_url'), callback);
    assert.equal(url.searchParams.get('code_challenge'), 'chal_lenge');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.deepEqual(
      [...url.searchParams.keys()],
      ['callback_url', 'code_challenge', 'code_challenge_method'],
    );
  });

  it('leaves out the callback in headless mode, and refuses a base URL that is not http(s)', () => {
    const page = new URL(signInPageUrl('http://127.0.0.2:9000/api', 'c', undefined)!);
    assert.equal(page.searchParams.has('callback_url'), false);
    assert.equal(page.origin, 'http://127.0.0.2:9000');
    assert.equal(signInPageUrl('file:///etc/passwd', 'c', undefined), undefined);
    assert.equal(signInPageUrl('not a url', 'c', undefined), undefined);
    assert.equal(keysPageUrl('https://openrouter.ai/api'), 'https://openrouter.ai/settings/keys');
  });
});

describe('Sign in with OpenRouter: the waiting sign-in', () => {
  it('takes the code that comes with the waiting state, once', () => {
    const flows = new SignInFlows();
    flows.begin(pending());
    const claim = flows.claim(' code-123 ', 'state-1', 1_000_500);
    assert.ok(claim.ok);
    assert.equal(claim.code, 'code-123');
    assert.equal(claim.pending.verifier, 'v'.repeat(43));
    assert.equal(flows.waiting, undefined);
  });

  it('a code that arrives when no sign-in is waiting is refused, saying so', () => {
    const claim = new SignInFlows().claim('code', 'state-1', 0);
    assert.equal(claim.ok, false);
    assert.match(!claim.ok ? claim.reason : '', /No sign-in is waiting/);
  });

  it('a code that arrives twice is refused the second time, saying it was already used', () => {
    const flows = new SignInFlows();
    flows.begin(pending());
    assert.ok(flows.claim('code', 'state-1', 1_000_001).ok);
    const again = flows.claim('code', 'state-1', 1_000_002);
    assert.equal(again.ok, false);
    assert.match(!again.ok ? again.reason : '', /already completed or cancelled/);
  });

  it('a code that arrives after 10 minutes is refused, and the flow ends', () => {
    const flows = new SignInFlows();
    flows.begin(pending());
    const late = flows.claim('code', 'state-1', 1_000_000 + SIGN_IN_TTL_MS + 1);
    assert.equal(late.ok, false);
    assert.match(!late.ok ? late.reason : '', /expired/);
    assert.equal(flows.waiting, undefined);
  });

  it('a code with the wrong state is refused, and the waiting flow stays for its own code', () => {
    const flows = new SignInFlows();
    flows.begin(pending());
    const wrong = flows.claim('code', 'state-2', 1_000_001);
    assert.equal(wrong.ok, false);
    assert.match(!wrong.ok ? wrong.reason : '', /another sign-in/);
    assert.ok(flows.claim('code', 'state-1', 1_000_002).ok);
  });

  it('a pasted code (no state) completes the waiting flow; a new flow replaces an older one', () => {
    const flows = new SignInFlows();
    flows.begin(pending({ state: 'old' }));
    flows.begin(pending({ state: 'new', headless: true }));
    const old = flows.claim('code', 'old', 1_000_001);
    assert.equal(old.ok, false);
    const pasted = flows.claim('code-pasted', undefined, 1_000_002);
    assert.ok(pasted.ok);
    assert.equal(pasted.pending.state, 'new');
  });

  it('refuses codes with spaces, control characters or no text, keeping the flow', () => {
    for (const bad of ['', '   ', 'a b', 'a\u0000b', 'x'.repeat(600), 42, undefined])
      assert.equal(cleanCode(bad), undefined);
    const flows = new SignInFlows();
    flows.begin(pending());
    assert.equal(flows.claim('a\nb', 'state-1', 1_000_001).ok, false);
    assert.ok(flows.waiting);
  });
});

describe('Sign in with OpenRouter: the key exchange answer', () => {
  it('reads {key, user_id}', () => {
    assert.deepEqual(parseAuthKeyReply({ key: 'sk-or-v1-abc', user_id: 'user_1' }), {
      key: 'sk-or-v1-abc',
      userId: 'user_1',
    });
    assert.deepEqual(parseAuthKeyReply({ key: 'sk-or-v1-abc' }), { key: 'sk-or-v1-abc' });
  });

  it('never throws and never gives a key with spaces or control characters (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ key: fc.string(), user_id: fc.string() })),
        (value) => {
          const reply = parseAuthKeyReply(value);
          if (reply) assert.match(reply.key, /^[\x21-\x7e]{1,512}$/);
        },
      ),
    );
  });
});
