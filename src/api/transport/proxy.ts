/**
 * The process environment a proxy may come from (HTTPS_PROXY, ...), read only to know its
 * credentials and keep them out of errors and the log. Which proxy a request takes is the host's
 * choice: VS Code's `fetch` applies `http.proxy`, `http.noProxy`, the environment and the system's
 * settings (see fetchTransport.ts). The browser has no environment (proxy.web.ts).
 */
export function proxyEnvironment(): Record<string, string | undefined> {
  return process.env;
}
