/** What a route handler of the simulator gets to work with. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './respond';
import type { ScenarioSet } from './scenarios';
import { formatScenario } from './scenarios';
import type { Scenario } from './scenarios';
import type { QuirksState } from './openRouterQuirks';
import type { MediaTimings, RecordedRequest, SeenImage } from './types';

export interface RequestContext {
  record: RecordedRequest;
  request: IncomingMessage;
  response: ServerResponse;
  /** The Bearer key, checked already. */
  apiKey: string;
  body: unknown;
  /** From the X-Sim-Scenario header. */
  headerScenarios: Scenario[];
  /** The simulator is about to destroy this connection itself (not a client disconnect). */
  markDropped(): void;
}

export interface SimulatorCore {
  readonly origin: string;
  readonly providerName: string;
  readonly chunkDelayMs: number;
  readonly mediaTimings: MediaTimings;
  /** Where the chat route records the images it was sent. */
  readonly seenImages: SeenImage[];
  /** Header, then markers, then the key's, then the global scenarios. */
  scenariosFor(context: RequestContext, markers: Scenario[]): ScenarioSet;
  /** How many times this counter was hit before (0 the first time). */
  countHit(counter: string): number;
  /** The OpenRouter-quirks mode, and every reply's generation record. */
  readonly quirks: QuirksState;
  /** The kind of gateway it answers as, when not its own (see dialectModes.ts). */
  readonly dialect?: import('./dialectModes').SimDialect;
}

/**
 * Failures decided before anything is written: 429, 429-then-ok, 500-then-ok, status:<code>.
 * Returns true when it answered. `counter` separates the "then ok" counts of different routes/jobs.
 */
export function respondWithFailure(
  context: RequestContext,
  core: SimulatorCore,
  scenarios: ScenarioSet,
  counter: string,
): boolean {
  const scenario = scenarios.first(['429', '429-then-ok', '500-then-ok', 'status']);
  if (!scenario) return false;
  const provider = core.providerName;
  const { response } = context;
  switch (scenario.name) {
    case '429': {
      const seconds = scenarios.numberArg('429', 1);
      sendError(
        response,
        429,
        `Rate limit exceeded for ${provider}: too many requests. Retry after ${seconds} s.`,
        {
          metadata: { provider_name: provider },
          headers: { 'retry-after': String(seconds) },
        },
      );
      return true;
    }
    case '429-then-ok': {
      const failures = scenarios.numberArg('429-then-ok', 1);
      if (core.countHit(`${counter}|${context.apiKey}|${formatScenario(scenario)}`) >= failures) return false;
      sendError(response, 429, `Rate limit exceeded for ${provider}.`, {
        metadata: { provider_name: provider },
        headers: { 'retry-after': '1' },
      });
      return true;
    }
    case '500-then-ok': {
      const failures = scenarios.numberArg('500-then-ok', 1);
      const hit = core.countHit(`${counter}|${context.apiKey}|${formatScenario(scenario)}`);
      if (hit >= failures) return false;
      const status = hit % 2 === 0 ? 502 : 500;
      sendError(response, status, `Provider ${provider} returned error: upstream overloaded`, {
        metadata: { provider_name: provider, raw: 'upstream overloaded (simulated)' },
      });
      return true;
    }
    default: {
      const status = Number(scenario.arg);
      if (!Number.isInteger(status) || status < 400 || status > 599) return false;
      respondWithStatus(response, status, provider);
      return true;
    }
  }
}

/**
 * `status:<code>`. For 5xx the provider is named in the body (502, 504), in the
 * X-OpenRouter-Provider header (503), or not at all (500: the gateway's own failure).
 */
function respondWithStatus(response: ServerResponse, status: number, provider: string): void {
  if (status === 500) return sendError(response, 500, 'Internal server error (simulated gateway failure)');
  if (status === 503) {
    return sendError(response, 503, 'Service unavailable (simulated)', {
      headers: { 'x-openrouter-provider': provider },
    });
  }
  if (status >= 500) {
    return sendError(response, status, `Provider ${provider} failed (simulated)`, {
      metadata: { provider_name: provider, raw: 'bad gateway' },
    });
  }
  if (status === 402) {
    return sendError(
      response,
      402,
      'Insufficient credits. This account never purchased credits or has run out; add more and try again.',
    );
  }
  sendError(response, status, `Simulated error ${status}`);
}
