/**
 * OpenRouter's sign-in (OAuth PKCE, S256) as its docs describe it: `GET /auth` with
 * `code_challenge` and `code_challenge_method=S256` (and `callback_url`, or none for the headless
 * page that shows the code to paste), then `POST /api/v1/auth/keys` with `{code, code_verifier,
 * code_challenge_method}` → `{key, user_id}`. Codes are single use and expire after ten minutes.
 *
 * The page approves at once (there is no user to click): with a callback it redirects there with
 * `code` added to the callback's own query; without one it shows the code.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isRecord, sendError, sendJson } from './respond';

const CODE_TTL_MS = 10 * 60_000;

interface IssuedCode {
  challenge: string;
  issuedAt: number;
  used: boolean;
}

export interface SignInPageVisit {
  /** The query exactly as it arrived. */
  query: string;
  callbackUrl: string | null;
  challenge: string | null;
  method: string | null;
  code?: string;
}

export class OAuthDesk {
  private readonly codes = new Map<string, IssuedCode>();
  /** Every visit of the sign-in page, in order. */
  readonly visits: SignInPageVisit[] = [];
  /** Keys handed out, in order. */
  readonly issuedKeys: string[] = [];
  /** The clock; tests move it to expire codes. */
  now: () => number = Date.now;

  page(url: URL, response: ServerResponse): void {
    const callbackUrl = url.searchParams.get('callback_url');
    const challenge = url.searchParams.get('code_challenge');
    const method = url.searchParams.get('code_challenge_method');
    const visit: SignInPageVisit = { query: url.search, callbackUrl, challenge, method };
    this.visits.push(visit);
    if (!challenge || method !== 'S256') {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('code_challenge with code_challenge_method=S256 is required.');
      return;
    }
    const code = `code-${randomBytes(12).toString('hex')}`;
    this.codes.set(code, { challenge, issuedAt: this.now(), used: false });
    visit.code = code;
    if (callbackUrl) {
      let target: URL;
      try {
        target = new URL(callbackUrl);
      } catch {
        response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('callback_url is not a URL.');
        return;
      }
      target.searchParams.set('code', code);
      response.writeHead(302, { location: target.toString() });
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><title>Sign in</title><p>Paste this code into your app:</p><pre id="code">${code}</pre>`,
    );
  }

  exchange(body: unknown, response: ServerResponse): void {
    if (!isRecord(body)) return sendError(response, 400, 'The body must be a JSON object.');
    const { code, code_verifier: verifier, code_challenge_method: method } = body;
    if (typeof code !== 'string' || typeof verifier !== 'string')
      return sendError(response, 400, 'code and code_verifier are required.');
    const issued = this.codes.get(code);
    if (!issued || issued.used) return sendError(response, 403, 'Invalid code or code_verifier');
    if (this.now() - issued.issuedAt > CODE_TTL_MS) return sendError(response, 403, 'The code has expired.');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (method !== 'S256' || challenge !== issued.challenge)
      return sendError(response, 403, 'Invalid code or code_verifier');
    issued.used = true;
    const key = `sk-or-v1-${randomBytes(16).toString('hex')}`;
    this.issuedKeys.push(key);
    sendJson(response, 200, { key, user_id: 'user_sim_1' });
  }
}
