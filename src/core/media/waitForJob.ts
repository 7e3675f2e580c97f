/**
 * Waiting for one job to end, for a caller that holds something up meanwhile (the agents' tool
 * holds up the agent). The wait ends when the job is final, removed, cancelled, or after
 * `timeoutMs`: a job the gateway leaves queued for hours, or whose checks are held (a rejected
 * key), must not hold the caller forever. The job itself goes on in every case.
 */
import type { Clock } from '../util/clock';
import { systemClock } from '../util/clock';
import type { Event } from '../util/emitter';
import { isFinal } from './mediaJob';
import type { MediaJob } from './mediaJob';
import type { MediaJobsChange } from './mediaJobModel';

export type WaitOutcome =
  | { kind: 'final'; job: MediaJob }
  | { kind: 'removed' }
  | { kind: 'cancelled' }
  /** Still running after the time allowed; `job` as it was then. */
  | { kind: 'timeout'; job: MediaJob };

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  clock?: Clock;
  /** Each status the job shows while waited for, the first included. */
  onStatus?: (status: string) => void;
}

export function waitForJob(
  model: { get(id: string): MediaJob | undefined; readonly onDidChange: Event<MediaJobsChange> },
  id: string,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const clock = options.clock ?? systemClock;
  return new Promise<WaitOutcome>((resolve) => {
    let lastStatus = '';
    let done = false;
    const finish = (outcome: WaitOutcome): void => {
      if (done) return;
      done = true;
      subscription.dispose();
      clock.clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const check = (): void => {
      const job = model.get(id);
      if (!job) return finish({ kind: 'removed' });
      if (job.status !== lastStatus) options.onStatus?.((lastStatus = job.status));
      if (isFinal(job)) finish({ kind: 'final', job });
    };
    const onAbort = (): void => finish({ kind: 'cancelled' });
    const subscription = model.onDidChange((change) => change.changed.includes(id) && check());
    const timer = clock.setTimeout(() => {
      const job = model.get(id);
      finish(job ? { kind: 'timeout', job } : { kind: 'removed' });
    }, options.timeoutMs);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
