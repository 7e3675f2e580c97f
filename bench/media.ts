/**
 * Media polling under load: 100 jobs started at once against the gateway simulator, followed to
 * completion by the real client and the real poller on the real clock. The question is whether
 * the poller wastes requests (compared with the fewest its own schedule allows) and whether it
 * keeps to its cap on requests in flight.
 */
import { createGatewayClient } from '../src/api';
import { createMediaJob } from '../src/core/media/mediaJob';
import { MediaJobModel } from '../src/core/media/mediaJobModel';
import { DEFAULT_MAX_CONCURRENT, MediaJobPoller } from '../src/core/media/mediaJobPoller';
import { minimumRequestsFor } from '../src/core/media/pollSchedule';
import { startGatewaySimulator } from '../test/simulator';
import { median, round } from './report';
import type { SectionResult } from './report';

const JOBS = 100;
/**
 * 12 s per job takes the schedule through its whole ramp (checks at 1, 3, 8 and 18 s) while the
 * run stays around 20 s, and it falls mid-way between two checks, so the ±20% jitter cannot
 * move a check across the finish line by chance.
 */
const TIMINGS = { queuedMs: 2_000, processingMs: 10_000 };
const REQUEST_RATIO_GOAL = 1.5;
const RUN_TIMEOUT_MS = 90_000;

interface StartedJob {
  id: string;
  /** When the client sent the start request; the simulator created the job after this. */
  sentAt: number;
  createdAt: number;
}

export async function benchMedia(): Promise<SectionResult> {
  const sim = await startGatewaySimulator({ mediaTimings: TIMINGS });
  const client = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: () => 'sk-bench', maxRetries: 3 });
  const model = new MediaJobModel();
  let inFlight = 0;
  let peakSeen = 0;
  const latencies: number[] = [];
  const pollErrors: string[] = [];
  const poller = new MediaJobPoller({
    model,
    // Counted here, outside the poller, so its own peak figure is checked independently.
    getStatus: async (id, signal) => {
      inFlight++;
      peakSeen = Math.max(peakSeen, inFlight);
      const started = performance.now();
      try {
        return await client.getMedia(id, { signal });
      } finally {
        latencies.push(performance.now() - started);
        inFlight--;
      }
    },
    onError: (id, error) =>
      pollErrors.push(`${id}: ${error instanceof Error ? error.message : String(error)}`),
  });

  let timer: NodeJS.Timeout | undefined;
  try {
    const wallStart = Date.now();
    const allFinal = new Promise<void>((resolve, reject) => {
      let finished = 0;
      timer = setTimeout(
        () =>
          reject(
            new Error(`only ${finished} of ${JOBS} media jobs finished within ${RUN_TIMEOUT_MS / 1000} s`),
          ),
        RUN_TIMEOUT_MS,
      );
      model.onDidChange((change) => {
        finished += change.finished.length;
        if (finished >= JOBS) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // If starting the jobs fails, this promise is never awaited; its timeout must not surface later.
    allFinal.catch(() => undefined);

    const started = await Promise.all(
      Array.from({ length: JOBS }, async (_, index): Promise<StartedJob> => {
        const sentAt = Date.now();
        const reply = await client.startMedia({
          model: 'openai/gpt-image-1',
          prompt: `bench image ${index + 1}`,
        });
        // As the extension does: the job's clock starts when the gateway's answer arrives.
        const job = createMediaJob(
          {
            id: reply.id,
            prompt: `bench image ${index + 1}`,
            model: 'openai/gpt-image-1',
            status: reply.status,
          },
          Date.now(),
        );
        model.add(job);
        poller.track(job.id);
        return { id: job.id, sentAt, createdAt: job.createdAt };
      }),
    );
    await allFinal;
    const wallMs = Date.now() - wallStart;

    const statusRequests = sim.requests.filter(
      (request) => request.method === 'GET' && request.path.startsWith('/api/v1/media/'),
    ).length;
    // A job completes queued+processing after the simulator created it, which happened between
    // sentAt and createdAt. Counting from sentAt gives the shortest possible duration, hence the
    // smallest minimum: the ratio can only come out too high, never flatteringly low.
    const minimum = started.reduce(
      (sum, job) =>
        sum + minimumRequestsFor(TIMINGS.queuedMs + TIMINGS.processingMs - (job.createdAt - job.sentAt)),
      0,
    );
    const notCompleted = model.all().filter((job) => job.status !== 'completed').length;
    const ratio = statusRequests / minimum;
    const medianLatency = median(latencies);
    const cap = DEFAULT_MAX_CONCURRENT;
    // Throughput the cap allows at the measured latency, against the burst the first check makes:
    // all jobs fall due within the ±20% jitter window around 1 s, i.e. within 0.4 s.
    const capThroughput = cap / (medianLatency / 1000);
    const burstDemand = JOBS / 0.4;

    const notes = [
      `media: ${JOBS} jobs, simulator queued ${TIMINGS.queuedMs / 1000} s + processing ${TIMINGS.processingMs / 1000} s, cap ${cap}, real clock; ` +
        `poller counted ${poller.requestCount} checks, the simulator saw ${statusRequests} status requests` +
        (statusRequests > poller.requestCount ? ' (the difference: client retries)' : ''),
      capThroughput >= burstDemand
        ? `media: the cap did not force delays: ${cap} slots at ${medianLatency.toFixed(1)} ms per request carry ~${Math.round(capThroughput)} req/s, the first-check burst needs ~${Math.round(burstDemand)} req/s`
        : `media: the cap forced delays in the first-check burst: ${cap} slots at ${medianLatency.toFixed(1)} ms carry ~${Math.round(capThroughput)} req/s, the burst needs ~${Math.round(burstDemand)} req/s`,
    ];
    if (notCompleted > 0) notes.push(`media: ${notCompleted} job(s) ended other than completed`);
    if (pollErrors.length > 0)
      notes.push(`media: ${pollErrors.length} failed check(s), first: ${pollErrors[0]}`);

    return {
      rows: [
        {
          name: `media status requests (${JOBS} jobs)`,
          value: statusRequests,
          unit: 'req',
          goal: `≤ ${REQUEST_RATIO_GOAL}× the schedule's minimum (${minimum})`,
          ratio: round(ratio, 3),
          met: ratio <= REQUEST_RATIO_GOAL,
        },
        {
          name: 'media peak in flight (poller)',
          value: poller.peakInFlight,
          unit: 'req',
          goal: `≤ cap ${cap}`,
          ratio: round(poller.peakInFlight / cap, 3),
          met: poller.peakInFlight <= cap,
        },
        {
          name: 'media peak in flight (measured)',
          value: peakSeen,
          unit: 'req',
          goal: `≤ cap ${cap}`,
          ratio: round(peakSeen / cap, 3),
          met: peakSeen <= cap,
        },
        { name: 'media status request latency (median)', value: round(medianLatency, 2), unit: 'ms' },
        {
          name: `media wall time (${JOBS} jobs of ${(TIMINGS.queuedMs + TIMINGS.processingMs) / 1000} s)`,
          value: round(wallMs / 1000, 2),
          unit: 's',
        },
      ],
      notes,
    };
  } finally {
    clearTimeout(timer);
    poller.dispose();
    model.dispose();
    await client.close().catch(() => undefined);
    await sim.close();
  }
}
