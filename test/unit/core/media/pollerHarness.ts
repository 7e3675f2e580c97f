import { createMediaJob } from '../../../../src/core/media/mediaJob';
import type { MediaJob } from '../../../../src/core/media/mediaJob';
import { MediaJobModel } from '../../../../src/core/media/mediaJobModel';
import { MediaJobPoller } from '../../../../src/core/media/mediaJobPoller';
import type { MediaJobPollerOptions } from '../../../../src/core/media/mediaJobPoller';
import { FakeClock } from './fakeClock';
import { FakeGateway, record } from './fakeGateway';
import type { StatusScript } from './fakeGateway';

export interface PollerHarness {
  clock: FakeClock;
  model: MediaJobModel;
  gateway: FakeGateway;
  poller: MediaJobPoller;
  errors: { id: string; error: unknown }[];
  /** Adds a job created now and starts polling it, as the host does after `POST /v1/media`. */
  start(id: string): MediaJob;
}

type TimingOptions = Pick<MediaJobPollerOptions, 'maxConcurrent' | 'maxIntervalMs' | 'random'>;

export interface HarnessOptions extends Partial<TimingOptions> {
  script?: StatusScript;
  latencyMs?: number;
  clock?: FakeClock;
  jobs?: MediaJob[];
}

/** A poller on a fake clock and gateway. No jitter unless the test passes a random source. */
export function pollerHarness(options: HarnessOptions = {}): PollerHarness {
  const clock = options.clock ?? new FakeClock();
  const model = new MediaJobModel(options.jobs ?? [], () => clock.now());
  const gateway = new FakeGateway(
    clock,
    options.script ?? ((id) => record(id, 'processing')),
    options.latencyMs ?? 0,
  );
  const errors: { id: string; error: unknown }[] = [];
  const poller = new MediaJobPoller({
    model,
    getStatus: gateway.getStatus,
    clock,
    maxConcurrent: options.maxConcurrent,
    maxIntervalMs: options.maxIntervalMs,
    random: options.random ?? (() => 0.5),
    onError: (id, error) => errors.push({ id, error }),
  });
  return {
    clock,
    model,
    gateway,
    poller,
    errors,
    start(id) {
      const job = createMediaJob({ id, prompt: `prompt ${id}`, model: 'openai/gpt-image-1' }, clock.now());
      model.add(job);
      poller.track(id);
      return job;
    },
  };
}

export const SECOND = 1_000;
export const MINUTE = 60_000;
