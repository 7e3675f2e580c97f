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
 * The bytes of standard base64 text; undefined for text that is not base64 (any character outside
 * the alphabet, or a wrong length), where Node's `Buffer.from(text, 'base64')` would skip them.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  let binary: string;
  try {
    binary = atob(text);
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
