/**
 * Stands in for the MCP SDK's `client/auth.js` in our build (esbuild.mjs): its OAuth flow (with
 * the SDK's OAuth schemas and error classes, about 19 KB minified) runs only for a transport given
 * an `authProvider`, and ours are given none. An HTTP server that answers 401 fails to connect
 * with the server's own status, and the config's `headers` carry any token it needs.
 */
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? 'Unauthorized');
  }
}

export function auth(): Promise<never> {
  return Promise.reject(new UnauthorizedError('OAuth sign-in to MCP servers is not supported'));
}

export function extractWWWAuthenticateParams(): Record<string, never> {
  return {};
}
