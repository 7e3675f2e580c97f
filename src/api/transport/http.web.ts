/**
 * The browser build's transport (picked by the `.web.ts` suffix, see esbuild.mjs): fetch instead
 * of undici, with the same names as http.ts, so the client is the same in both builds. No proxy
 * of our own there: the browser's is used (fetchTransport.ts says so in the log).
 */
import type { Transport, TransportSettings } from './exchange';
import { FetchTransport } from './fetchTransport';

/** The transport of the browser build. */
export function createTransport(settings: TransportSettings): Transport {
  return new FetchTransport(settings);
}

export { FetchTransport as HttpTransport };
