/** One media generation the user started, as shown in the Media Jobs view and kept across reloads. */

import { FINAL_MEDIA_STATUSES } from '../../api/types';
import type { MediaOutput, MediaStatus } from '../../api/types';

/**
 * The gateway answered 404 for the job: it expired there or never existed. Final, since asking
 * again will not help, but not a failure: the generation may well have succeeded.
 */
export const UNKNOWN_STATUS = 'unknown';

/**
 * Ours, or `unknown` after a 404. Jobs stored by older versions may hold other words; those count
 * as still in progress.
 */
export type MediaJobStatus = MediaStatus | typeof UNKNOWN_STATUS | (string & {});

export interface MediaJob {
  /** The gateway's id, from `POST /v1/media`. */
  id: string;
  prompt: string;
  model: string;
  parameters?: Record<string, unknown>;
  /** The gateway's last answer, which may be a status this version does not know. */
  status: MediaJobStatus;
  /** All times are epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** When the job reached a final status. */
  finishedAt?: number;
  outputs: MediaOutput[];
  /** Why the generation failed, as the gateway said. */
  error?: string;
  /**
   * What it cost in the gateway's credits (usually USD), when the gateway reported it (`usage.cost`
   * of its record). Kept once reported, so a ledger of the day's spending can count it.
   */
  cost?: number;
  /**
   * Where its status is asked for, when the gateway named a `polling_url` at the start (absolute;
   * resolved against the base URL then). Stored, so a reload polls the same place.
   */
  pollingUrl?: string;
  /** How far it is, 0 to 1, while it runs and the gateway says. */
  progress?: number;
  /** Jobs ahead of it in the provider's queue, while it waits and the gateway says. */
  queuePosition?: number;
  lastCheckedAt?: number;
  /**
   * A passing problem with the last status check (gateway busy, network down, ...), for the
   * tooltip. The job itself is fine; cleared by the next successful check.
   */
  lastProblem?: string;
  /** Status checks made so far; where the job stands in the poll schedule. */
  pollCount: number;
}

export interface NewMediaJob {
  id: string;
  prompt: string;
  model: string;
  parameters?: Record<string, unknown>;
  /** What `POST /v1/media` said, if anything. */
  status?: MediaStatus;
  /** The job's own status URL, from the start's answer. */
  pollingUrl?: string;
}

export function createMediaJob(init: NewMediaJob, now: number): MediaJob {
  const job: MediaJob = {
    id: init.id,
    prompt: init.prompt,
    model: init.model,
    status: init.status || 'queued',
    createdAt: now,
    updatedAt: now,
    outputs: [],
    pollCount: 0,
  };
  if (init.parameters !== undefined) job.parameters = init.parameters;
  if (init.pollingUrl !== undefined) job.pollingUrl = init.pollingUrl;
  if (isFinalStatus(job.status)) job.finishedAt = now;
  return job;
}

/**
 * Only completed, failed, cancelled, expired, or unknown to the gateway (404): anything else keeps
 * being polled.
 */
export function isFinalStatus(status: string): boolean {
  return status === UNKNOWN_STATUS || FINAL_MEDIA_STATUSES.has(status);
}

/** Ended one way or another: nothing more will happen, so polling stops. */
export function isFinal(job: Pick<MediaJob, 'status'>): boolean {
  return isFinalStatus(job.status);
}

/**
 * Characters of base64 the job carries inline. Such outputs can be megabytes; the host can use
 * this to move them to files before persisting (see `serializeJobs`).
 */
export function inlineDataChars(job: Pick<MediaJob, 'outputs'>): number {
  let total = 0;
  for (const output of job.outputs) if (output.kind === 'data') total += output.data.length;
  return total;
}
