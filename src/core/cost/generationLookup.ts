/**
 * The cost of a reply whose stream carried none, from the gateway's `GET /v1/generation?id=`.
 * The record appears only a while after the reply ends (often more than half a second), so a 404
 * is asked again a few times over a few seconds. Only a gateway that never once answered is taken
 * to have no such endpoint; it is then not asked again. Pure: the clock and the dice are passed in.
 */
import { GatewayError } from '../../api/errors';
import type { Generation } from '../../api/types';

export interface GenerationTiming {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

/** Pauses before each ask: about 0.5 s, 1 s, 1.5 s, 2 s (5 s in all), each never under 250 ms. */
export const GENERATION_DELAYS_MS: readonly number[] = [500, 1000, 1500, 2000];
export const GENERATION_FLOOR_MS = 250;

/** The pause before ask `attempt`: its base scaled by 0.75–1.0, at least the floor, plus up to 100 ms of jitter. */
export function generationDelayMs(attempt: number, random: () => number): number {
  const base = GENERATION_DELAYS_MS[Math.min(attempt, GENERATION_DELAYS_MS.length - 1)];
  return (
    Math.max(GENERATION_FLOOR_MS, Math.floor(base * (0.75 + 0.25 * random()))) + Math.floor(100 * random())
  );
}

export type GenerationFetch = (id: string, signal?: AbortSignal) => Promise<Generation | undefined>;

export class GenerationLookup {
  /** Gateways (base URLs) that answered a lookup at least once: their 404 means "not yet". */
  private readonly answered = new Set<string>();
  /** Gateways that never answered a whole round of asks: not asked again. */
  private readonly unsupported = new Set<string>();

  constructor(
    private readonly timing: GenerationTiming,
    private readonly onLog: (message: string) => void = () => undefined,
  ) {}

  /** Whether this gateway is known to have no generation endpoint. */
  isUnsupported(gateway: string): boolean {
    return this.unsupported.has(gateway);
  }

  /**
   * The reply's record, or undefined when the gateway has none (after the asks above), has no
   * such endpoint, or failed otherwise. Never throws except when `signal` aborts the wait.
   */
  async lookup(
    gateway: string,
    id: string,
    fetch: GenerationFetch,
    signal?: AbortSignal,
  ): Promise<Generation | undefined> {
    if (!id || this.unsupported.has(gateway)) return undefined;
    for (let attempt = 0; attempt < GENERATION_DELAYS_MS.length; attempt++) {
      await this.timing.sleep(generationDelayMs(attempt, this.timing.random), signal);
      try {
        const generation = await fetch(id, signal);
        this.answered.add(gateway);
        return generation;
      } catch (error) {
        if (signal?.aborted) throw error;
        if (!(GatewayError.is(error) && (error.status === 404 || error.status === 405))) {
          this.onLog(
            `The reply's cost could not be read from the gateway: ${error instanceof Error ? error.message : String(error)}`,
          );
          return undefined;
        }
        if (error.status === 405) break;
      }
    }
    if (!this.answered.has(gateway)) {
      this.unsupported.add(gateway);
      this.onLog('The gateway has no generation records (404); replies without a cost stay without one.');
    }
    return undefined;
  }
}
