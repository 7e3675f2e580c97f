/**
 * Extra request headers a gateway needs (Portkey's `x-portkey-provider`, Helicone's
 * `Helicone-Auth`, Cloudflare AI Gateway's `cf-aig-authorization`, Azure OpenAI's `api-key`), and
 * the form of the auth header. The setting's value is outside data (a hand-edited settings.json
 * can hold anything): it is read here, at one boundary, bounded; a header that cannot be sent is
 * skipped with a message that says why, never thrown.
 */
import { isRecord } from '../../api/json';
import { isSecretHeaderName } from '../../api/redact';
import type { AuthHeaderForm } from '../../api/types';

export type { AuthHeaderForm } from '../../api/types';
export { isSecretHeaderName } from '../../api/redact';

export const AUTH_HEADER_FORMS: readonly AuthHeaderForm[] = ['bearer', 'api-key', 'none'];

export function parseAuthHeaderForm(value: unknown): AuthHeaderForm {
  return value === 'api-key' || value === 'none' ? value : 'bearer';
}

/** Most extra headers sent; more are skipped. */
export const MAX_EXTRA_HEADERS = 32;
/** Longest header name and value taken. */
export const MAX_HEADER_NAME = 100;
export const MAX_HEADER_VALUE = 4096;
/** Entries of a settings object looked at, at most: a huge object is not a list of headers. */
const MAX_ENTRIES_READ = 256;

/** RFC 9110 (7230) `token`: the characters a header name may have. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab, and bytes 0x80–0xFF as Latin-1 text: what a field value may hold. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Headers the client sets itself, or the connection owns (hop-by-hop): never taken from the setting.
 * `authorization` and `api-key` are the key's own, unless the key is not sent (`none`).
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'cookie',
  'accept',
  'accept-encoding',
  'user-agent',
]);

/** Why a header name cannot be sent (with the auth form in force), or undefined when it can. */
export function headerNameRefusal(name: string, auth: AuthHeaderForm): string | undefined {
  if (name.length === 0) return 'an empty header name';
  if (name.length > MAX_HEADER_NAME) return `a header name longer than ${MAX_HEADER_NAME} characters`;
  if (!TOKEN.test(name)) return `"${shown(name)}" is not a valid header name`;
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || lower.startsWith('sec-') || lower.startsWith('proxy-'))
    return `"${name}" is set by the connection or by Gateway AI itself`;
  if (auth === 'bearer' && lower === 'authorization')
    return `"${name}" carries your API key; set the key with 'Gateway AI: Set API Key', or set the auth header to none`;
  if (auth === 'api-key' && lower === 'api-key')
    return `"${name}" carries your API key; set the key with 'Gateway AI: Set API Key', or set the auth header to none`;
  return undefined;
}

/** Why a header value cannot be sent, or undefined when it can. */
export function headerValueRefusal(value: string): string | undefined {
  if (value.length > MAX_HEADER_VALUE) return `a value longer than ${MAX_HEADER_VALUE} characters`;
  if (!FIELD_VALUE.test(value)) return 'a value with a line break or a control character';
  return undefined;
}

export interface ParsedHeaders {
  /** The headers to send, by their names as written (a name written twice in any case: the first). */
  headers: Record<string, string>;
  /** One line per skipped entry: the name (never the value) and why. */
  problems: string[];
}

/**
 * The extra headers of a settings value (an object of name → string value). Names that cannot be
 * sent, values that cannot be sent, and entries beyond the cap are skipped, each with a message.
 * With `secretsAllowed` false, a header named like a credential is skipped too: its value belongs
 * in secret storage, not in a settings file that may be synced or shared.
 */
export function parseExtraHeaders(
  value: unknown,
  options: { auth: AuthHeaderForm; secretsAllowed: boolean; what?: string },
): ParsedHeaders {
  const what = options.what ?? 'header';
  // A list, made an object at the end: `__proto__` is then a name like any other.
  const kept: Array<[string, string]> = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { headers: {}, problems };
  if (!isRecord(value))
    return { headers: {}, problems: ['the headers setting is not an object; none were sent'] };
  const seen = new Set<string>();
  const entries = Object.entries(value);
  if (entries.length > MAX_ENTRIES_READ)
    problems.push(`only the first ${MAX_ENTRIES_READ} entries of the headers setting were read`);
  for (const [rawName, raw] of entries.slice(0, MAX_ENTRIES_READ)) {
    const name = rawName.trim();
    const skip = (why: string): void => {
      problems.push(`the ${what} "${shown(name)}" was not sent: ${why}.`);
    };
    const nameProblem = headerNameRefusal(name, options.auth);
    if (nameProblem) {
      skip(nameProblem);
      continue;
    }
    if (typeof raw !== 'string') {
      skip('its value is not a string');
      continue;
    }
    const text = raw.trim();
    const valueProblem = headerValueRefusal(text);
    if (valueProblem) {
      skip(valueProblem);
      continue;
    }
    if (!options.secretsAllowed && isSecretHeaderName(name)) {
      skip("its value looks like a secret; store it with 'Gateway AI: Set Secret Header…' instead");
      continue;
    }
    const lower = name.toLowerCase();
    if (seen.has(lower)) {
      skip('it is set twice');
      continue;
    }
    if (seen.size >= MAX_EXTRA_HEADERS) {
      skip(`more than ${MAX_EXTRA_HEADERS} headers are set`);
      continue;
    }
    seen.add(lower);
    kept.push([name, text]);
  }
  return { headers: Object.fromEntries(kept), problems };
}

/**
 * The headers of both sources as one set: the stored secret ones win over a setting's header of the
 * same name (in any case), and the whole stays under the cap.
 */
export function mergeHeaders(
  plain: Readonly<Record<string, string>>,
  secret: Readonly<Record<string, string>>,
): Record<string, string> {
  const secretNames = new Set(Object.keys(secret).map((name) => name.toLowerCase()));
  const merged = [
    ...Object.entries(secret),
    ...Object.entries(plain).filter(([name]) => !secretNames.has(name.toLowerCase())),
  ];
  return Object.fromEntries(merged.slice(0, MAX_EXTRA_HEADERS));
}

/** A name as it may appear in a message: printable, short. */
function shown(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 60 ? `${printable.slice(0, 60)}…` : printable;
}
