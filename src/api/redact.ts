import { GatewayError } from './errors';

const REDACTED = '[redacted]';

/**
 * Removes the API key from text that may reach the user or a log. Servers sometimes echo the key
 * they were sent (e.g. "invalid key sk-..."), so every gateway-provided string passes here.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  let result = text;
  if (secret && secret.length >= 4) {
    result = result.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) result = result.split(encoded).join(REDACTED);
  }
  // A key we were not told about (e.g. echoed from another header) still has a recognisable shape.
  return result.replace(/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`);
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
