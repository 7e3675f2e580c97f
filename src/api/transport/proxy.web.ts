/**
 * A browser has no process environment: no proxy credentials to keep out of errors and the log
 * (proxy.ts reads Node's).
 */
export function proxyEnvironment(): Record<string, string | undefined> {
  return {};
}
