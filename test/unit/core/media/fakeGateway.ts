import { GatewayError } from '../../../../src/api/errors';
import type { MediaRecord, MediaStatus } from '../../../../src/api/types';
import type { FakeClock } from './fakeClock';

/** What the gateway answers to the `callIndex`-th status request for job `id` (0-based), at `now`. */
export type StatusScript = (id: string, callIndex: number, now: number) => MediaRecord | Error;

export interface StatusCall {
  id: string;
  at: number;
}

/**
 * `GET /v1/media/{id}` on the fake clock: each request takes `latencyMs`, honours its abort
 * signal, and is recorded, so tests can count and time requests and see concurrency from the
 * server's side.
 */
export class FakeGateway {
  readonly calls: StatusCall[] = [];
  inFlight = 0;
  peakInFlight = 0;
  aborted = 0;
  /** The most requests ever in flight for one job at once. */
  peakPerJob = 0;
  private readonly inFlightByJob = new Map<string, number>();

  constructor(
    private readonly clock: FakeClock,
    public script: StatusScript,
    public latencyMs = 100,
  ) {}

  readonly getStatus = (id: string, signal: AbortSignal): Promise<MediaRecord> =>
    new Promise<MediaRecord>((resolve, reject) => {
      const callIndex = this.callsFor(id).length;
      this.calls.push({ id, at: this.clock.now() });
      const answer = this.script(id, callIndex, this.clock.now());
      this.begin(id);
      const onAbort = (): void => {
        this.clock.clearTimeout(timer);
        this.end(id);
        this.aborted++;
        reject(new GatewayError({ kind: 'aborted', message: 'The request was cancelled.' }));
      };
      const timer = this.clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        this.end(id);
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      }, this.latencyMs);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  callsFor(id: string): StatusCall[] {
    return this.calls.filter((call) => call.id === id);
  }

  /** Times between consecutive requests for a job. */
  gapsFor(id: string): number[] {
    const times = this.callsFor(id).map((call) => call.at);
    return times.slice(1).map((at, i) => at - times[i]);
  }

  private begin(id: string): void {
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    const forJob = (this.inFlightByJob.get(id) ?? 0) + 1;
    this.inFlightByJob.set(id, forJob);
    this.peakPerJob = Math.max(this.peakPerJob, forJob);
  }

  private end(id: string): void {
    this.inFlight--;
    this.inFlightByJob.set(id, (this.inFlightByJob.get(id) ?? 1) - 1);
  }
}

/** A status record; `status` may be a word we do not know (or none), as a gateway may send. */
export function record(
  id: string,
  status: MediaStatus | undefined,
  extra: Partial<MediaRecord> = {},
): MediaRecord {
  return { id, ...(status === undefined ? {} : { status }), outputs: [], ...extra };
}

export function httpError(status: number, retryAfter?: number): GatewayError {
  return new GatewayError({ kind: 'http', status, message: `HTTP ${status}`, retryAfter });
}

export function networkError(): GatewayError {
  return new GatewayError({ kind: 'network', message: 'socket hang up' });
}

/** Each job is 'processing' until `durations[id]` ms after `startedAt[id]`, then 'completed'. */
export function completesAfter(durations: Map<string, number>, startedAt: Map<string, number>): StatusScript {
  return (id, _callIndex, now) => {
    const done = now >= (startedAt.get(id) ?? 0) + (durations.get(id) ?? 0);
    return done
      ? record(id, 'completed', { outputs: [{ kind: 'url', url: `https://cdn.example/${id}.png` }] })
      : record(id, 'processing');
  };
}
