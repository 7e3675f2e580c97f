/**
 * The media jobs and their state: the one place that changes them. Every change fires
 * `onDidChange`, which the host uses to refresh the view, persist, and announce finished jobs.
 * No timers here; timing is the poller's business.
 *
 * Jobs handed out are snapshots: a change replaces a job's object rather than mutating it, so
 * treat them as read-only.
 */

import type { MediaRecord } from '../../api/types';
import { Emitter } from '../util/emitter';
import type { Event } from '../util/emitter';
import { isFinal, isFinalStatus, UNKNOWN_STATUS } from './mediaJob';
import type { MediaJob } from './mediaJob';

export interface MediaJobsChange {
  /** Jobs added, changed or removed. */
  changed: string[];
  /** Jobs that reached a final status with this change (each job once, when it gets there). */
  finished: MediaJob[];
  /** The subset of `changed` that no longer exists. */
  removed: string[];
  /** Set when the change came from another window (through storage), not from this one. */
  external?: boolean;
}

export type MediaJobPatch = Partial<Omit<MediaJob, 'id'>>;

export class MediaJobModel {
  private readonly jobs = new Map<string, MediaJob>();
  private readonly changes = new Emitter<MediaJobsChange>();

  readonly onDidChange: Event<MediaJobsChange> = this.changes.event;

  /** `now` stamps updatedAt, finishedAt and lastCheckedAt. */
  constructor(
    initialJobs: Iterable<MediaJob> = [],
    private readonly now: () => number = Date.now,
  ) {
    for (const job of initialJobs) this.jobs.set(job.id, job);
  }

  /** Throws if a job with the same id exists (a new start under a held id goes through `start`). */
  add(job: MediaJob): void {
    if (this.jobs.has(job.id)) throw new Error(`Media job ${job.id} already exists.`);
    this.jobs.set(job.id, job);
    this.changes.fire({ changed: [job.id], finished: [], removed: [] });
  }

  /**
   * A job the gateway has just accepted. When the gateway gave an id we already hold a job
   * under, the new start replaces the old job: the id names the new one at the gateway now, and
   * the job just paid for must not be lost (or make this throw). The old job goes first (one
   * change, as a removal: its previews close, its polling stops), then the new one comes (a
   * second change). Returns the job replaced, whose files the caller deletes.
   */
  start(job: MediaJob): MediaJob | undefined {
    const old = this.jobs.get(job.id);
    if (old) this.remove(job.id);
    this.add(job);
    return old;
  }

  get(id: string): MediaJob | undefined {
    return this.jobs.get(id);
  }

  /** Newest first; jobs created in the same millisecond, last added first. */
  all(): MediaJob[] {
    return [...this.jobs.values()].reverse().sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Jobs not in a final status, newest first. */
  running(): MediaJob[] {
    return this.all().filter((job) => !isFinal(job));
  }

  /** Returns the updated job, or undefined if there is no such job. */
  update(id: string, patch: MediaJobPatch): MediaJob | undefined {
    const job = this.jobs.get(id);
    return job && this.commit(job, patch);
  }

  /**
   * Applies the answer of a status check: status, outputs, error, cost, progress and queue place,
   * and clears any problem. A record without a status we know leaves the status as it was, so the
   * job stays in progress.
   */
  applyRecord(id: string, record: MediaRecord): MediaJob | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const status = record.status ?? job.status;
    const running = !isFinalStatus(status);
    return this.commit(job, {
      status,
      outputs: [...record.outputs],
      error: record.error,
      // A later answer without the cost does not take back one already reported.
      cost: record.cost ?? job.cost,
      // Progress never goes back on an answer that leaves it out; it ends with the job.
      progress: running ? (record.progress ?? job.progress) : undefined,
      queuePosition: running ? record.queuePosition : undefined,
      ...this.checked(job),
      // Results over the cap were left out when the record was read: the job says so.
      lastProblem: record.omittedOutputs
        ? `The gateway sent ${record.outputs.length + record.omittedOutputs} results; only the first ${record.outputs.length} are kept.`
        : undefined,
    });
  }

  /**
   * A status check got 404: the gateway does not know the job (any more). Or we stopped asking
   * (`why` says so): either way final, with no result.
   */
  markUnknown(id: string, why?: string): MediaJob | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    return this.commit(job, { status: UNKNOWN_STATUS, ...this.checked(job), lastProblem: why });
  }

  /** A status check failed in a way that leaves the job as it was, e.g. "Gateway busy (429)". */
  recordProblem(id: string, problem: string): MediaJob | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    return this.commit(job, { ...this.checked(job), lastProblem: problem });
  }

  remove(id: string): boolean {
    if (!this.jobs.delete(id)) return false;
    this.changes.fire({ changed: [id], finished: [], removed: [id] });
    return true;
  }

  /**
   * Takes jobs as another window stored them: added, replaced as they are (no new timestamps, so
   * windows do not ping-pong), or removed. One change, marked `external`; returns the ids changed.
   */
  sync(jobs: readonly MediaJob[], removed: readonly string[] = []): string[] {
    const changed: string[] = [];
    const finished: MediaJob[] = [];
    for (const job of jobs) {
      const old = this.jobs.get(job.id);
      if (old && JSON.stringify(old) === JSON.stringify(job)) continue;
      this.jobs.set(job.id, job);
      changed.push(job.id);
      if (isFinal(job) && (!old || !isFinal(old))) finished.push(job);
    }
    const gone = removed.filter((id) => this.jobs.delete(id));
    if (changed.length || gone.length)
      this.changes.fire({ changed: [...changed, ...gone], finished, removed: gone, external: true });
    return [...changed, ...gone];
  }

  /** Removes every finished job, in one change; returns their ids. */
  clearFinished(): string[] {
    const ids = [...this.jobs.values()].filter(isFinal).map((job) => job.id);
    for (const id of ids) this.jobs.delete(id);
    if (ids.length > 0) this.changes.fire({ changed: ids, finished: [], removed: ids });
    return ids;
  }

  dispose(): void {
    this.changes.dispose();
  }

  private checked(job: MediaJob): MediaJobPatch {
    return { lastCheckedAt: this.now(), pollCount: job.pollCount + 1 };
  }

  private commit(job: MediaJob, patch: MediaJobPatch): MediaJob {
    const now = this.now();
    const next: MediaJob = { ...job, ...patch, id: job.id, updatedAt: now };
    const wasFinal = isFinal(job);
    const nowFinal = isFinalStatus(next.status);
    if (nowFinal && !wasFinal) next.finishedAt ??= now;
    if (!nowFinal) delete next.finishedAt;
    // An explicit `undefined` in a patch means "clear": drop the key so storage stays tidy.
    for (const key of Object.keys(next) as (keyof MediaJob)[]) if (next[key] === undefined) delete next[key];

    this.jobs.set(job.id, next);
    const finished = nowFinal && !wasFinal ? [next] : [];
    this.changes.fire({ changed: [job.id], finished, removed: [] });
    return next;
  }
}
