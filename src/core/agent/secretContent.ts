/**
 * Secrets found by what a file holds rather than by its name: a JSON or YAML file with a
 * `"private_key"` field (a cloud service account's key file, whatever it was renamed to) or a
 * PEM private key block. Only the start of the text is looked at (SNIFF_CHARS, plus the part a
 * read returns), so the cost stays bounded whatever the file's size. Pure.
 */

/** How much of a file's text is looked at: key files are small, and their key comes early. */
export const SNIFF_CHARS = 64 * 1024;

/** The file kinds whose content is looked at: JSON and YAML, by their extension. */
const SNIFFED = /\.(?:json|jsonc|json5|ya?ml)$/i;

/** A `private_key` field, as JSON (`"private_key":`) or YAML (`private_key:`) writes it. */
const PRIVATE_KEY_FIELD = /(?:^|[\s{,"'])private_key["']?\s*:/m;
/** `-----BEGIN PRIVATE KEY-----`, `… RSA PRIVATE KEY-----`, `… OPENSSH PRIVATE KEY-----`, PGP's block. */
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;

/** Whether the content of a file so named is looked at. */
export function sniffsContent(path: string): boolean {
  return SNIFFED.test(path);
}

/**
 * What in `text` looks like a private key, as the tools say it (`a "private_key" field`, `a
 * PEM private key block`), or undefined. Only JSON and YAML files are judged (by any of the
 * file's names: a link `notes.txt` to `key.json` is JSON), on `text`'s first `limit` characters
 * (SNIFF_CHARS unless the caller has read and bounded more: a search reads whole files).
 */
export function privateKeyIn(
  paths: readonly string[],
  text: string,
  limit = SNIFF_CHARS,
): string | undefined {
  if (!paths.some(sniffsContent)) return undefined;
  const head = text.length > limit ? text.slice(0, limit) : text;
  if (PEM_PRIVATE_KEY.test(head)) return 'a PEM private key block';
  if (PRIVATE_KEY_FIELD.test(head)) return 'a "private_key" field';
  return undefined;
}
