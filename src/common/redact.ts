/**
 * Removes secrets from text before it reaches a log line or a message. Pure: no `vscode`.
 */

const BEARER = /(Bearer\s+)[^\s"',;]+/gi;
const AUTH_HEADER = /("?authorization"?\s*[:=]\s*"?(?:Bearer\s+)?)[^"\s,}]+/gi;
/** Shapes of common API keys (OpenRouter, OpenAI-style), redacted even if we don't know the key. */
const KEY_SHAPES = /\bsk-(?:or-)?(?:v1-)?[A-Za-z0-9_-]{16,}\b/g;

export const REDACTED = '[redacted]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces every known secret, Bearer token, Authorization header and key-shaped token. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short "secrets" would shred ordinary words; keys are long.
    if (secret && secret.length >= 4) out = out.replace(new RegExp(escapeRegExp(secret), 'g'), REDACTED);
  }
  return out.replace(BEARER, `$1${REDACTED}`).replace(AUTH_HEADER, `$1${REDACTED}`).replace(KEY_SHAPES, REDACTED);
}
