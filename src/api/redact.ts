import { GatewayError } from './errors';
import { excerpt } from './json';

export const REDACTED = '[redacted]';

const BEARER = /(Bearer\s+)[^\s"',;]+/gi;
/** `Authorization` and `Proxy-Authorization` headers, Bearer or Basic. */
const AUTH_HEADER = /("?(?:proxy-)?authorization"?\s*[:=]\s*"?(?:(?:Bearer|Basic)\s+)?)[^"\s,}]+/gi;
/** Shapes of common API keys (OpenRouter, OpenAI-style), redacted even when we were not told the key. */
const KEY_SHAPES = /\bsk-(?:or-)?(?:v1-)?[A-Za-z0-9_-]{16,}\b/g;
/**
 * The userinfo of any URL (`scheme://user:password@host`), up to the last `@` before the path:
 * proxy URLs carry credentials there, and so may URLs a gateway echoes. The match starts only
 * at the start of a run of scheme characters (and keeps the run): with a plain `\b`, every letter
 * of `a.a.a.…` or `sk-sk-…` started a scan to the end of the run, quadratic in the text's length.
 */
const URL_USERINFO = /(?<![a-z0-9+.-])([a-z0-9+.-]*:\/\/)[^\s/?#"'<>`]*@/gi;
/** The longest URL userinfo or token we expect to find whole in a cut text. */
const TOKEN_MARGIN = 1024;

export type Secrets = string | undefined | ReadonlyArray<string | undefined>;

function secretList(secrets: Secrets): ReadonlyArray<string | undefined> {
  return typeof secrets === 'string' || secrets === undefined ? [secrets] : secrets;
}

/**
 * The credentials in a URL's userinfo, to redact wherever they appear on their own (a proxy may
 * repeat its password in an error): the password raw and decoded, and the whole userinfo. A user
 * name next to a password is not secret and would shred ordinary words, so it stays; a userinfo
 * without a password is a token and is redacted. Empty for a URL without any.
 */
export function urlCredentials(url: string | undefined): string[] {
  const match = url ? /^[a-z][a-z0-9+.-]*:\/\/([^\s/?#]*)@/i.exec(url.trim()) : null;
  if (!match) return [];
  const userinfo = match[1];
  const colon = userinfo.indexOf(':');
  const secret = colon < 0 ? userinfo : userinfo.slice(colon + 1);
  const found = new Set([userinfo, secret]);
  try {
    found.add(decodeURIComponent(secret));
  } catch {
    // Not valid percent-encoding: the raw form is all there is.
  }
  return [...found].filter((part) => part.length >= 4);
}

/**
 * Removes secrets from text that may reach the user or a log: each known secret (also
 * URL-encoded), Bearer and Basic tokens, Authorization headers, key-shaped tokens and the userinfo
 * of every URL. Servers sometimes echo the key they were sent (e.g. "invalid key sk-..."), so
 * every gateway-provided string passes here, and so does every line of the extension's log.
 */
export function redact(text: string, secrets: Secrets = []): string {
  // Userinfo first, so a password that is also a listed secret leaves no `user:[redacted]@` behind.
  let result = text.replace(URL_USERINFO, `$1${REDACTED}@`);
  for (const secret of secretList(secrets)) {
    // Very short "secrets" would shred ordinary words; keys are long.
    if (!secret || secret.length < 4) continue;
    result = result.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) result = result.split(encoded).join(REDACTED);
  }
  return result
    .replace(BEARER, `$1${REDACTED}`)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(KEY_SHAPES, REDACTED);
}

/**
 * `redact` then `excerpt`, without redacting more of a long text than the excerpt needs: a stream
 * event may be megabytes of gateway text. The text is cut with a margin after `max` (the longest
 * secret, also URL-encoded, and a long token), so a secret straddling the cut is redacted
 * whole or falls beyond what is shown; the cut grows while redaction shrinks the text so much
 * that the shown part could reach into that margin.
 */
export function redactExcerpt(text: string, max: number, secrets: Secrets = []): string {
  const longest = Math.max(0, ...secretList(secrets).map((secret) => secret?.length ?? 0));
  const margin = Math.max(TOKEN_MARGIN, 3 * longest);
  for (let cut = max + margin; ; cut *= 2) {
    if (cut >= text.length) return excerpt(redact(text, secrets), max);
    const redacted = redact(text.slice(0, cut), secrets);
    // A replaced secret may grow to 2.5 times its length ('[redacted]' for 4 chars): 3 margins
    // after the shown part keep all of the unsafe tail out of it.
    if (redacted.replace(/\s+/g, ' ').trim().length >= max + 3 * margin) return excerpt(redacted, max);
  }
}

export function redactSecret(text: string, secret: Secrets): string {
  return redact(text, secret);
}

/** The same error with the secrets scrubbed from every text field; the original when already clean. */
export function redactError(error: GatewayError, secrets: Secrets): GatewayError {
  const message = redact(error.message, secrets);
  const provider = error.provider === undefined ? undefined : redact(error.provider, secrets);
  const code = typeof error.code === 'string' ? redact(error.code, secrets) : error.code;
  if (message === error.message && provider === error.provider && code === error.code) return error;
  return new GatewayError({
    kind: error.kind,
    message,
    status: error.status,
    provider,
    code,
    retryAfter: error.retryAfter,
    creditHeldInFlight: error.creditHeldInFlight,
    cause: error.cause,
  });
}

/** Words of a header name (split at `-`, `_`, `.`) that say its value is a credential. */
const SECRET_WORD =
  /^(?:auth|authorization|bearer|password|passwd|credentials?|session|signature|cookie|.*key|.*token|.*secret)$/;
/** Words that end like one but are names (Portkey's own headers: `x-portkey-provider`). */
const NOT_SECRET_WORDS = new Set(['portkey']);

/**
 * Whether a header's value is a secret, by its name's words (`Helicone-Auth`, `x-portkey-api-key`,
 * `cf-aig-authorization`, `X-Api-Token`): kept in secret storage, redacted from every text.
 */
export function isSecretHeaderName(name: string): boolean {
  return name
    .toLowerCase()
    .split(/[-_.]+/)
    .some((word) => SECRET_WORD.test(word) && !NOT_SECRET_WORDS.has(word));
}
