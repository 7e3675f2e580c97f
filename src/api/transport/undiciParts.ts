/**
 * The parts of undici the transport uses (Agent, ProxyAgent and `request` on a dispatcher), loaded
 * from undici's own modules rather than its index. The index also loads fetch, WebSocket, the
 * cache, mock and snapshot agents and more, none of which we run: about 220 KB of the client
 * bundle (≈ 64 KB gzipped), so a third of the .vsix. Loaded on first use, like the index was.
 *
 * undici has no `exports` map, so these paths are reachable; the version is pinned by the
 * lockfile, and the unit tier's loopback and proxy tests run through exactly these modules.
 */
import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');

export interface UndiciParts {
  Agent: Undici['Agent'];
  ProxyAgent: Undici['ProxyAgent'];
  /** What undici's top-level `request(url, { dispatcher, … })` does, without its index. */
  request: (
    dispatcher: Dispatcher,
    url: URL,
    options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
  ) => Promise<Dispatcher.ResponseData>;
}

let parts: UndiciParts | undefined;

export function loadUndici(): UndiciParts {
  if (parts) return parts;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, from undici's own modules (see above) */
  const dispatcherClass = require('undici/lib/dispatcher/dispatcher') as { prototype: object };
  // The index gives every dispatcher its `request`, `stream`, … methods this way.
  Object.assign(dispatcherClass.prototype, require('undici/lib/api') as object);
  const Agent = require('undici/lib/dispatcher/agent') as Undici['Agent'];
  const ProxyAgent = require('undici/lib/dispatcher/proxy-agent') as Undici['ProxyAgent'];
  /* eslint-enable @typescript-eslint/no-require-imports */
  parts = {
    Agent,
    ProxyAgent,
    request: (dispatcher, url, options) =>
      dispatcher.request({ ...options, origin: url.origin, path: `${url.pathname}${url.search}` }),
  };
  return parts;
}
