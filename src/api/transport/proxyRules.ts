/**
 * Which proxy a request goes through, by the usual rules (curl's): pure, so both builds share it.
 * Where the environment comes from is the platform's (proxy.ts, proxy.web.ts).
 */
import type { ProxyOptions } from '../types';

/** One NO_PROXY entry: a host (exact, or a suffix when written `.example.com`), maybe with a port. */
interface BypassRule {
  host: string;
  /** Matches subdomains only (written with a leading dot or `*.`). */
  suffixOnly: boolean;
  port?: number;
}

export type Env = Record<string, string | undefined>;

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy to use for `target`, or undefined to connect directly. A loopback target never goes
 * through a proxy (a gateway on this machine, often plain `http://`, would hand its key to the
 * proxy in clear text); otherwise an explicit `proxy.url` wins, else the usual environment
 * variables apply, as they do for curl and most CLIs.
 */
export function proxyUrlFor(target: URL, options: ProxyOptions | undefined, env: Env): string | undefined {
  if (isLoopback(target)) return undefined;
  const explicit = options?.url?.trim();
  const proxyUrl = explicit || proxyFromEnv(target, env);
  if (!proxyUrl) return undefined;
  const noProxy =
    options?.noProxy && options.noProxy.length > 0
      ? options.noProxy
      : splitList(env.NO_PROXY ?? env.no_proxy);
  return bypassesProxy(target, noProxy) ? undefined : proxyUrl;
}

/**
 * Whether `target` names this machine's loopback: `localhost` and its subdomains (RFC 6761),
 * 127.0.0.0/8, `::1`, and IPv4-mapped loopback (`::ffff:127.x.y.z`). The URL parser has already
 * made `127.1`, `0x7f.1` and `[0:0::1]` canonical; a trailing dot is the same name.
 */
export function isLoopback(target: URL): boolean {
  const host = stripBrackets(target.hostname.toLowerCase()).replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  if (host === '::1') return true;
  // `::ffff:127.0.0.1` as the URL parser writes it: `::ffff:7f00:1`.
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

function proxyFromEnv(target: URL, env: Env): string | undefined {
  const names =
    target.protocol === 'https:'
      ? ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']
      : ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'];
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(/[,\s]+/).filter((entry) => entry.length > 0);
}

/**
 * Whether `target` is listed in `noProxy`: `*` matches everything, `example.com` matches that
 * host and its subdomains (curl's rule), `.example.com` / `*.example.com` only subdomains, and
 * `host:port` only that port.
 */
export function bypassesProxy(target: URL, noProxy: readonly string[]): boolean {
  const host = stripBrackets(target.hostname.toLowerCase());
  const port = target.port ? Number(target.port) : DEFAULT_PORTS[target.protocol];
  for (const entry of noProxy.flatMap((item) => splitList(item))) {
    if (entry === '*') return true;
    const rule = parseRule(entry);
    if (rule.port !== undefined && rule.port !== port) continue;
    if (host.endsWith(`.${rule.host}`)) return true;
    if (!rule.suffixOnly && host === rule.host) return true;
  }
  return false;
}

function parseRule(entry: string): BypassRule {
  let text = entry.trim().toLowerCase();
  let port: number | undefined;
  const withPort = /^(.*?):(\d+)$/.exec(text);
  // `[::1]:8080` or `host:8080`; a bare IPv6 address has more than one colon and no brackets.
  if (withPort && (text.startsWith('[') || !withPort[1].includes(':'))) {
    text = withPort[1];
    port = Number(withPort[2]);
  }
  text = stripBrackets(text);
  const suffixOnly = text.startsWith('.') || text.startsWith('*.');
  return { host: text.replace(/^\*?\./, ''), suffixOnly, port };
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
