/**
 * CORS as a gateway that browsers may call answers it (OpenRouter's own browser examples call its
 * API from web pages): the extension in VS Code for the Web runs in a web worker whose origin is a
 * changing `https://<id>.vscode-cdn.net`, so every request it makes carries an `Origin` and each
 * non-simple one (a Bearer key, a JSON body) comes after an `OPTIONS` preflight.
 *
 * - `allow` (the default): a preflight gets 204 with the request's Origin allowed, its methods,
 *   the headers it asked for (echoed) and a Max-Age; every response allows the Origin. No header
 *   is exposed beyond the CORS-safelisted ones (no `Access-Control-Expose-Headers`): a client in
 *   the browser must not depend on reading a custom header.
 * - `refuse`: a gateway that knows nothing of CORS. Preflights get 204 without any allow header
 *   and responses carry none, so a browser blocks every call.
 *
 * Node's fetch and undici send no Origin and never preflight, so the other tiers see no change.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type CorsMode = 'allow' | 'refuse';

export const CORS_MODES: readonly CorsMode[] = ['allow', 'refuse'];

/** One preflight the simulator answered. */
export interface PreflightRecord {
  path: string;
  /** The `Origin` it carried (a browser always sends one). */
  origin?: string;
  /** `Access-Control-Request-Method`. */
  method?: string;
  /** `Access-Control-Request-Headers`, lower-cased, as sent. */
  requestHeaders?: string;
  /** The mode it was answered in. */
  mode: CorsMode;
  time: number;
}

/** How long a browser may keep a preflight's answer. */
export const PREFLIGHT_MAX_AGE_S = 600;

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Sets the CORS header every response of the request gets (before any handler writes), and answers
 * a preflight outright. Returns the preflight's record when it answered one (the caller stops), or
 * undefined for an ordinary request.
 */
export function applyCors(
  mode: CorsMode,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): PreflightRecord | undefined {
  const origin = single(request.headers.origin);
  const allowOrigin = origin ?? '*';
  if (mode === 'allow') {
    response.setHeader('access-control-allow-origin', allowOrigin);
    if (origin) response.setHeader('vary', 'Origin');
  }
  const askedMethod = single(request.headers['access-control-request-method']);
  if (request.method !== 'OPTIONS' || askedMethod === undefined) return undefined;
  const askedHeaders = single(request.headers['access-control-request-headers']);
  const record: PreflightRecord = {
    path,
    ...(origin !== undefined ? { origin } : {}),
    method: askedMethod,
    ...(askedHeaders !== undefined ? { requestHeaders: askedHeaders } : {}),
    mode,
    time: Date.now(),
  };
  const headers: Record<string, string> = { 'content-length': '0' };
  if (mode === 'allow') {
    headers['access-control-allow-methods'] = ALLOWED_METHODS;
    headers['access-control-allow-headers'] = askedHeaders ?? 'authorization, content-type';
    headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_S);
  }
  response.writeHead(204, headers);
  response.end();
  return record;
}
