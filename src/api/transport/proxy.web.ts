/**
 * Proxy choice in the browser build: a page's requests go through the browser's own proxy, which
 * it chooses itself, and there is no process environment. The fetch transport says once, in the
 * request log, that a proxy setting is ignored there.
 */
import type { Env } from './proxyRules';

export * from './proxyRules';

/** No environment variables in a browser: none to take a proxy or its credentials from. */
export function proxyEnvironment(): Env {
  return {};
}
