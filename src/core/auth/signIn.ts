/**
 * Sign in with OpenRouter (OAuth PKCE, S256), as OpenRouter documents it, without I/O: the
 * verifier and its challenge, the sign-in page's URL, the one sign-in that may be waiting, and the
 * answer of `POST /v1/auth/keys`. The host opens the page, receives the callback and stores the key.
 *
 * Nothing here keeps the verifier beyond the flow it belongs to, and nothing is logged.
 */

/** Codes are single use and expire after ten minutes on OpenRouter; a flow waits no longer. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
/** Bytes of randomness in the verifier (OpenRouter: 32, base64url → 43 characters). */
export const VERIFIER_BYTES = 32;
/** Bytes of randomness in the state that ties a callback to the flow that asked for it. */
export const STATE_BYTES = 16;
/** A code longer than this is not one the gateway gave. */
const MAX_CODE_LENGTH = 512;
/** A key longer than this is not one the gateway gave. */
const MAX_KEY_LENGTH = 512;

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function base64Url(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += alphabet[(n >> 18) & 63] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + alphabet[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += alphabet[(n >> 18) & 63] + alphabet[(n >> 12) & 63];
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += alphabet[(n >> 18) & 63] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63];
  }
  return out;
}

/** The platform's randomness and SHA-256 (Web Crypto in both hosts), handed in by the host. */
export interface PkceCrypto {
  randomBytes(length: number): Uint8Array;
  sha256(data: Uint8Array): Promise<Uint8Array>;
}

/** A fresh verifier (32 random bytes, base64url) and its S256 challenge. */
export async function createPkce(crypto: PkceCrypto): Promise<Pkce> {
  const verifier = base64Url(crypto.randomBytes(VERIFIER_BYTES));
  const challenge = base64Url(await crypto.sha256(new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

/**
 * The sign-in page of the gateway the base URL names: `<origin>/auth`, with the challenge and,
 * unless the user pastes the code (headless mode), the callback. Built with URLSearchParams, so a
 * callback that carries its own query stays whole. Undefined for a base URL that is not http(s).
 */
export function signInPageUrl(
  baseUrl: string,
  challenge: string,
  callbackUrl: string | undefined,
): string | undefined {
  const origin = httpOrigin(baseUrl);
  if (!origin) return undefined;
  const query = new URLSearchParams();
  if (callbackUrl !== undefined) query.set('callback_url', callbackUrl);
  query.set('code_challenge', challenge);
  query.set('code_challenge_method', 'S256');
  return `${origin}/auth?${query.toString()}`;
}

/** Where the user manages (and revokes) keys on OpenRouter's kind of gateway. */
export function keysPageUrl(baseUrl: string): string | undefined {
  const origin = httpOrigin(baseUrl);
  return origin ? `${origin}/settings/keys` : undefined;
}

function httpOrigin(baseUrl: string): string | undefined {
  try {
    const url = new URL(baseUrl.trim());
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** A code as the gateway gives it: printable, without spaces, bounded. Undefined otherwise. */
export function cleanCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim();
  if (!code || code.length > MAX_CODE_LENGTH || !/^[\x21-\x7e]+$/.test(code)) return undefined;
  return code;
}

export interface PendingSignIn {
  /** Ties the callback to this flow; part of the callback URL. */
  readonly state: string;
  readonly verifier: string;
  /** The gateway it signs in to (the base URL when it began). */
  readonly baseUrl: string;
  readonly startedAt: number;
  /** Whether the page was opened without a callback (the user pastes the code). */
  readonly headless: boolean;
}

export type SignInClaim = { ok: true; pending: PendingSignIn; code: string } | { ok: false; reason: string };

/**
 * The one sign-in that may be waiting. A new one replaces it. A code is taken once: the flow ends
 * when it is claimed, whether the exchange then works or not.
 */
export class SignInFlows {
  private pending: PendingSignIn | undefined;
  /** States of flows that ended, so a second arrival is told so (bounded). */
  private readonly ended: string[] = [];

  begin(pending: PendingSignIn): void {
    if (this.pending) this.remember(this.pending.state);
    this.pending = pending;
  }

  get waiting(): PendingSignIn | undefined {
    return this.pending;
  }

  /** Forgets the waiting flow (the user cancelled), so no code is taken for it. */
  cancel(): void {
    if (this.pending) this.remember(this.pending.state);
    this.pending = undefined;
  }

  /**
   * Claims the waiting flow for a code that arrived with `state` (undefined for a pasted code).
   * Refused, with the reason to show, when none waits, the state is another's, the flow is older
   * than ten minutes, or it was already claimed.
   */
  claim(code: unknown, state: string | undefined, now: number): SignInClaim {
    const pending = this.pending;
    if (state !== undefined && this.ended.includes(state))
      return {
        ok: false,
        reason:
          'This sign-in was already completed or cancelled; its code is not used again. Sign in again if needed.',
      };
    if (!pending)
      return {
        ok: false,
        reason: 'No sign-in is waiting in this window, so the code was not used. Start Sign In again.',
      };
    if (state !== undefined && state !== pending.state)
      return {
        ok: false,
        reason:
          'The code belongs to another sign-in than the one waiting, so it was not used. Start Sign In again.',
      };
    if (now - pending.startedAt > SIGN_IN_TTL_MS || now < pending.startedAt) {
      this.cancel();
      return {
        ok: false,
        reason: 'The sign-in took longer than 10 minutes and has expired. Start Sign In again.',
      };
    }
    const clean = cleanCode(code);
    if (!clean)
      return { ok: false, reason: 'The sign-in did not return a usable code. Start Sign In again.' };
    this.cancel();
    return { ok: true, pending, code: clean };
  }

  private remember(state: string): void {
    this.ended.push(state);
    if (this.ended.length > 16) this.ended.shift();
  }
}

/** The answer of `POST /v1/auth/keys`: the key, and the user's id where given. */
export interface AuthKeyReply {
  key: string;
  userId?: string;
}

/** Reads `{key, user_id}`; undefined when the answer holds no usable key. */
export function parseAuthKeyReply(body: unknown): AuthKeyReply | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const key = typeof record.key === 'string' ? record.key.trim() : '';
  if (!key || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) return undefined;
  const userId =
    typeof record.user_id === 'string' &&
    record.user_id.length <= 200 &&
    /^[\x20-\x7e]*$/.test(record.user_id)
      ? record.user_id
      : undefined;
  return userId ? { key, userId } : { key };
}
