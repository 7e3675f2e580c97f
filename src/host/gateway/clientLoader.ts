/**
 * The one door to the gateway client bundle (`dist/api.js`). The client, with undici and the SSE
 * parser, is a bundle of its own that is required here on the first request, so activation neither
 * parses nor evaluates the network stack. No other module may load it (a lint rule keeps it so);
 * everything else imports only types from `src/api` and the shared errors, which are bundled once.
 */
import type { ClientOptions, GatewayClient } from '../../api';

type ClientModule = typeof import('../../api');

let loaded: ClientModule | undefined;

/** Builds a client; the first call loads the bundle (about 10 ms), later calls reuse it. */
export function createClient(options: ClientOptions): GatewayClient {
  // esbuild points this `require` at the sibling bundle dist/api.js (see esbuild.mjs).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../../api') as ClientModule;
  return loaded.createGatewayClient(options);
}
