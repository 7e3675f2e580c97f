/**
 * Base64 and UTF-8 between strings and bytes, the same in Node and in a browser worker (no
 * `Buffer`): `atob`/`btoa` work on "binary strings", so bytes pass through them in chunks small
 * enough for `String.fromCharCode`'s argument list.
 */

const CHUNK = 0x8000;

/** Standard base64 (with padding) of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK)
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/**
 * The bytes of base64 text, as Node's `Buffer.from(text, 'base64')` read what gateways send:
 * padding optional, ASCII whitespace (line breaks every 76 characters, as MIME writes it) skipped,
 * and the URL-safe alphabet (`-`, `_`) taken as well. Undefined for anything else (another
 * character, a wrong length, text after the padding), which Node would have skipped silently.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  let binary: string;
  try {
    // `atob` is the web's forgiving decode: it skips ASCII whitespace and needs no padding.
    binary = atob(text.replace(/[-_]/g, (c) => (c === '-' ? '+' : '/')));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of `text` (lone surrogates become U+FFFD, as in Node). */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** `bytes` read as UTF-8 (bad sequences become U+FFFD, as in Node). */
export function utf8Text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** The bytes of base64 text that must be valid (a file or a message said it is): throws otherwise. */
export function base64Bytes(text: string, what: string): Uint8Array {
  const bytes = base64ToBytes(text);
  if (!bytes) throw new Error(`${what} is not valid base64.`);
  return bytes;
}
