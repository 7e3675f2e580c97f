import { GatewayError } from './errors';
import { redact } from './redact';

/**
 * Joins the configured base URL (which ends in the API prefix) and an API path. Validated at each
 * call, not when the client is created, so a bad setting surfaces as an error the user can act on.
 */
export function resolveEndpoint(baseUrl: string, apiPath: string): URL {
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
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(`${base.origin}${prefix}${apiPath}`);
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
