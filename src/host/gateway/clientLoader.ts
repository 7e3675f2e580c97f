/**
 * The one door to the gateway client (`src/api`). It is required here on the first request, so
 * activation does not evaluate the client. No other module may load it (a lint rule keeps it so);
 * everything else imports only types from `src/api` and its pure helpers.
 */
import type { ClientOptions, GatewayClient } from '../../api';

type ClientModule = typeof import('../../api');

let loaded: ClientModule | undefined;

/** Builds a client; the first call evaluates the client's modules, later calls reuse them. */
export function createClient(options: ClientOptions): GatewayClient {
  // Bundled in, and evaluated only on this first `require` (esbuild keeps a required module's body
  // unrun until then), so activation does not run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require('../../api') as ClientModule;
  return loaded.createGatewayClient(options);
}
