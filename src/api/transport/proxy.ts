/** Proxy choice in Node: the rules (proxyRules.ts) read the process environment. */
import type { Env } from './proxyRules';

export * from './proxyRules';

/** The variables proxies are taken from (HTTPS_PROXY, NO_PROXY, ...). */
export function proxyEnvironment(): Env {
  return process.env;
}
