import { GatewayError } from './errors';
import { redact } from './redact';

/**
 * Joins the configured base URL and an API path (`/v1/…`). The base may be given as users paste
 * it: `https://openrouter.ai/api`, `http://127.0.0.1:4000/v1`, `https://host/api/v1/`: a base that
 * already ends in `/v1` takes the path without its own `/v1`, so it is never doubled. Validated at
 * each call, not when the client is created, so a bad setting surfaces as an error the user can
 * act on.
 */
export function resolveEndpoint(baseUrl: string, apiPath: string): URL {
  const { origin, prefix } = parseBase(baseUrl);
  const path = /\/v1$/i.test(prefix) && /^\/v1(?=[/?]|$)/.test(apiPath) ? apiPath.slice(3) : apiPath;
  return new URL(`${origin}${prefix}${path}`);
}

/**
 * Where the API's `/v1` is for a base URL, as used for every request (`https://openrouter.ai/api/v1`),
 * for telling the user what base was used. Throws a GatewayError ('config') for an invalid base.
 */
export function apiRoot(baseUrl: string): string {
  const { origin, prefix } = parseBase(baseUrl);
  return /\/v1$/i.test(prefix) ? `${origin}${prefix}` : `${origin}${prefix}/v1`;
}

function parseBase(baseUrl: string): { origin: string; prefix: string } {
  let base: URL | undefined;
  try {
    base = new URL(baseUrl.trim());
  } catch {
    base = undefined;
  }
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:') || !base.hostname) {
    throw new GatewayError({
      kind: 'config',
      message: `The base URL "${redact(baseUrl)}" is not a valid http(s) URL. Set the gateway's base URL, e.g. https://openrouter.ai/api.`,
    });
  }
  return { origin: base.origin, prefix: base.pathname.replace(/\/+$/, '') };
}

/**
 * Reads the key through the caller's getter; nothing is sent without one, unless `optional` (a
 * gateway on this computer: a local server may answer without a key, and a 401 then asks for one).
 * A GatewayError from the getter (the key belongs to another origin) is the caller's own word,
 * passed on as it is.
 */
export async function readApiKey(
  getKey: () => string | undefined | Promise<string | undefined>,
): Promise<string>;
export async function readApiKey(
  getKey: () => string | undefined | Promise<string | undefined>,
  optional: boolean,
): Promise<string | undefined>;
export async function readApiKey(
  getKey: () => string | undefined | Promise<string | undefined>,
  optional = false,
): Promise<string | undefined> {
  let key: string | undefined;
  try {
    key = await getKey();
  } catch (error) {
    if (GatewayError.is(error)) throw error;
    throw new GatewayError({
      kind: 'config',
      message: 'The API key could not be read from secret storage.',
      cause: error,
    });
  }
  key = key?.trim();
  if (!key && optional) return undefined;
  if (!key) {
    throw new GatewayError({
      kind: 'config',
      message: "No API key is set for the gateway. Set one with 'Gateway AI: Set API Key'.",
    });
  }
  return key;
}
