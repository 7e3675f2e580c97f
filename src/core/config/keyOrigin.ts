/**
 * The API key belongs to one origin: the `scheme://host:port` it was entered for. It is stored
 * with that origin, and no request to another origin carries it, whatever the settings say. Pure:
 * the host keeps the stored form in SecretStorage and asks these helpers what it may send where.
 */
import { isRecord } from '../../api/json';

/** The key and the origin it was entered for (or that the user agreed to send it to). */
export interface StoredKey {
  key: string;
  origin: string;
}

/** `https://openrouter.ai`: where a key entered before keys had an origin went by default. */
export const DEFAULT_ORIGIN = 'https://openrouter.ai';

/**
 * The origin of an http(s) URL, normalised as browsers do (lower-case host, no default port), or
 * undefined for anything else.
 */
export function originOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !parsed.hostname) return undefined;
  return parsed.origin;
}

/**
 * Whether a URL's hostname (as `URL` gives it: IPv4 dotted, IPv6 in brackets, lower case) is this
 * computer: `localhost`, 127.0.0.0/8 or `[::1]`. Nothing else may be reached over plain http.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]') return true;
  const quad = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!quad && quad.slice(1).every((part) => Number(part) <= 255);
}

/**
 * Whether requests may go without a key: the auth form is `none`, or the gateway is on this
 * computer (Ollama, LM Studio, vLLM and llama.cpp take none; one that wants a key answers 401,
 * and the user is then asked for it).
 */
export function keyIsOptional(settings: {
  baseUrl: string;
  request: { authHeader: 'bearer' | 'api-key' | 'none' };
}): boolean {
  if (settings.request.authHeader === 'none') return true;
  try {
    return isLoopbackHost(new URL(settings.baseUrl.trim()).hostname);
  } catch {
    return false;
  }
}

/**
 * The origin a key stored before keys had one is bound to: the origin of the user's own base URL
 * (their settings file's value, never a workspace's or a default another extension contributes),
 * or https://openrouter.ai.
 */
export function legacyKeyOrigin(userBaseUrl: unknown): string {
  return (typeof userBaseUrl === 'string' && originOf(userBaseUrl)) || DEFAULT_ORIGIN;
}

/** The form kept in SecretStorage: JSON, so the key and its origin are written in one go. */
export function encodeStoredKey(stored: StoredKey): string {
  return JSON.stringify({ key: stored.key, origin: stored.origin });
}

/** The stored form read back; undefined for anything that is not one (nothing is guessed). */
export function decodeStoredKey(text: string | undefined): StoredKey | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.key !== 'string' || typeof value.origin !== 'string') return undefined;
  const key = value.key.trim();
  const origin = originOf(value.origin);
  // An origin is stored exactly as originOf gives it; anything else was not written by us.
  if (!key || origin !== value.origin) return undefined;
  return { key, origin };
}

/**
 * Why the key may not go to the gateway at `baseUrl`, or undefined when it may. The message says
 * what happened and what to do; it names origins, never the key.
 */
export function keyOriginRefusal(boundOrigin: string, baseUrl: string): string | undefined {
  const target = originOf(baseUrl);
  if (target === boundOrigin) return undefined;
  return (
    `Your API key was entered for ${boundOrigin}, and the gateway base URL is now on ${target ?? 'another origin'}, ` +
    `so nothing was sent. Use 'Gateway AI: Manage API Key' to send your key to ${target ?? 'it'} ` +
    `or to enter a key for it.`
  );
}
