import { GatewayError } from './errors';

export const REDACTED = '[redacted]';

const BEARER = /(Bearer\s+)[^\s"',;]+/gi;
const AUTH_HEADER = /("?authorization"?\s*[:=]\s*"?(?:Bearer\s+)?)[^"\s,}]+/gi;
/** Shapes of common API keys (OpenRouter, OpenAI-style), redacted even when we were not told the key. */
const KEY_SHAPES = /\bsk-(?:or-)?(?:v1-)?[A-Za-z0-9_-]{16,}\b/g;

/**
 * Removes secrets from text that may reach the user or a log: each known secret (also
 * URL-encoded), Bearer tokens, Authorization headers and key-shaped tokens. Servers sometimes echo
 * the key they were sent (e.g. "invalid key sk-..."), so every gateway-provided string passes here,
 * and so does every line of the extension's log.
 */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let result = text;
  for (const secret of secrets) {
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

export function redactSecret(text: string, secret: string | undefined): string {
  return redact(text, [secret]);
}

/** The same error with the key scrubbed from every text field; the original when already clean. */
export function redactError(error: GatewayError, secret: string | undefined): GatewayError {
  const message = redactSecret(error.message, secret);
  const provider = error.provider === undefined ? undefined : redactSecret(error.provider, secret);
  const code = typeof error.code === 'string' ? redactSecret(error.code, secret) : error.code;
  if (message === error.message && provider === error.provider && code === error.code) return error;
  return new GatewayError({
    kind: error.kind,
    message,
    status: error.status,
    provider,
    code,
    retryAfter: error.retryAfter,
    cause: error.cause,
  });
}
