/**
 * Request headers whose values are secrets (Helicone-Auth, x-portkey-api-key, cf-aig-authorization),
 * kept in SecretStorage per gateway origin, like the key: a header stored for one gateway goes to
 * no other. Pure: the host keeps the stored form; what is stored is read back here, bounded, and a
 * malformed store reads as empty, never throws.
 */
import { isRecord } from '../../api/json';
import { originOf } from './keyOrigin';
import { MAX_EXTRA_HEADERS, MAX_HEADER_NAME, MAX_HEADER_VALUE } from './requestHeaders';

/** Origin → header name → value. */
export type SecretHeaders = Record<string, Record<string, string>>;

/** Gateways remembered at most. */
const MAX_ORIGINS = 32;
/** A stored value longer than this was not written by us. */
const MAX_STORED_CHARS = 512 * 1024;

/** The stored form read back: only origins as `originOf` gives them, only string values, bounded. */
export function decodeSecretHeaders(text: string | undefined): SecretHeaders {
  if (!text || text.length > MAX_STORED_CHARS) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isRecord(value)) return {};
  const decoded: SecretHeaders = {};
  for (const [origin, headers] of Object.entries(value).slice(0, MAX_ORIGINS)) {
    if (originOf(origin) !== origin || !isRecord(headers)) continue;
    const kept = Object.entries(headers)
      .filter(
        (entry): entry is [string, string] =>
          entry[0].length > 0 &&
          entry[0].length <= MAX_HEADER_NAME &&
          typeof entry[1] === 'string' &&
          entry[1].length <= MAX_HEADER_VALUE,
      )
      .slice(0, MAX_EXTRA_HEADERS);
    if (kept.length > 0) decoded[origin] = Object.fromEntries(kept);
  }
  return decoded;
}

export function encodeSecretHeaders(headers: SecretHeaders): string {
  return JSON.stringify(headers);
}

/**
 * The store with one header of one origin set (or removed, for an empty value). A header of the
 * same name in another case is replaced.
 */
export function withSecretHeader(
  headers: SecretHeaders,
  origin: string,
  name: string,
  value: string,
): SecretHeaders {
  const lower = name.toLowerCase();
  const own = Object.entries(headers[origin] ?? {}).filter(([key]) => key.toLowerCase() !== lower);
  if (value !== '') own.push([name, value]);
  const next: SecretHeaders = { ...headers };
  if (own.length > 0) next[origin] = Object.fromEntries(own);
  else delete next[origin];
  return next;
}
