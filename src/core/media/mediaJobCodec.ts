/**
 * Media jobs to and from the plain JSON the host keeps in extension storage. Reading is defensive:
 * storage can hold anything (an older version's shape, a hand-edited file, a half-written value),
 * and one bad entry must neither crash activation nor cost the user the other jobs.
 */

import { isRecord } from '../../api/json';
import { gatewayUrl } from '../../api/media';
import type { MediaOutput } from '../../api/types';
import type { MediaJob } from './mediaJob';

const STORAGE_VERSION = 1;
/** Enough to tell the user what went wrong without flooding the log. */
const MAX_PROBLEMS = 10;

export interface DeserializedJobs {
  jobs: MediaJob[];
  /** Stored entries that could not be read; an unreadable whole counts as one. */
  skipped: number;
  /** Why, for the log: at most a few lines. */
  problems: string[];
}

/**
 * A JSON-ready copy of the jobs, with only the known fields.
 *
 * Outputs are kept as given, base64 `data` outputs included. Extension storage is not made for
 * megabytes, so a host that receives large inline outputs should write them to files and store
 * `url` outputs pointing there instead (`inlineDataChars` measures a job); this module stays out
 * of that decision.
 */
export function serializeJobs(jobs: readonly MediaJob[]): unknown {
  return { version: STORAGE_VERSION, jobs: jobs.map(copyJob) };
}

/** Never throws: whatever it gets, it returns the jobs it could read and counts the rest. */
export function deserializeJobs(data: unknown): DeserializedJobs {
  const problems: string[] = [];
  if (data === undefined || data === null) return { jobs: [], skipped: 0, problems };

  let entries: unknown;
  try {
    // Older or hand-written values may be a bare array of jobs.
    entries = Array.isArray(data) ? data : isRecord(data) ? data['jobs'] : undefined;
  } catch {
    entries = undefined;
  }
  if (!Array.isArray(entries)) {
    return { jobs: [], skipped: 1, problems: ['Stored media jobs are not in a known format; ignored them.'] };
  }

  const jobs: MediaJob[] = [];
  const seenIds = new Set<string>();
  let skipped = 0;
  entries.forEach((entry: unknown, index) => {
    let result: MediaJob | string;
    try {
      result = readJob(entry);
    } catch {
      // A getter or proxy that throws: still just one unreadable entry.
      result = 'unreadable';
    }
    if (typeof result !== 'string' && seenIds.has(result.id)) result = `duplicate id ${result.id}`;
    if (typeof result === 'string') {
      skipped++;
      if (problems.length < MAX_PROBLEMS) problems.push(`Stored media job #${index + 1} skipped: ${result}.`);
      return;
    }
    seenIds.add(result.id);
    jobs.push(result);
  });
  if (skipped > MAX_PROBLEMS) problems.push(`…and ${skipped - MAX_PROBLEMS} more skipped.`);
  return { jobs, skipped, problems };
}

function copyJob(job: MediaJob): MediaJob {
  const copy: MediaJob = {
    id: job.id,
    prompt: job.prompt,
    model: job.model,
    status: job.status,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    outputs: job.outputs.map(copyOutput),
    pollCount: job.pollCount,
  };
  if (job.parameters !== undefined) copy.parameters = job.parameters;
  if (job.finishedAt !== undefined) copy.finishedAt = job.finishedAt;
  if (job.error !== undefined) copy.error = job.error;
  if (job.cost !== undefined) copy.cost = job.cost;
  if (job.pollingUrl !== undefined) copy.pollingUrl = job.pollingUrl;
  if (job.progress !== undefined) copy.progress = job.progress;
  if (job.queuePosition !== undefined) copy.queuePosition = job.queuePosition;
  if (job.lastCheckedAt !== undefined) copy.lastCheckedAt = job.lastCheckedAt;
  if (job.lastProblem !== undefined) copy.lastProblem = job.lastProblem;
  return copy;
}

function copyOutput(output: MediaOutput): MediaOutput {
  switch (output.kind) {
    case 'url':
      return output.mimeType === undefined
        ? { kind: 'url', url: output.url }
        : { kind: 'url', url: output.url, mimeType: output.mimeType };
    case 'data':
      return { kind: 'data', data: output.data, mimeType: output.mimeType };
    case 'text':
      return { kind: 'text', text: output.text };
  }
}

/** The job, or why the entry is unusable. */
function readJob(entry: unknown): MediaJob | string {
  if (!isRecord(entry)) return 'not an object';
  const { id, prompt, model, status, createdAt, updatedAt, outputs, pollCount } = entry;
  if (typeof id !== 'string' || id === '') return 'no id';
  if (typeof prompt !== 'string') return 'no prompt';
  if (typeof model !== 'string' || model === '') return 'no model';
  if (typeof status !== 'string' || status === '') return 'no status';
  if (!isTime(createdAt) || !isTime(updatedAt)) return 'bad timestamps';
  if (typeof pollCount !== 'number' || !Number.isInteger(pollCount) || pollCount < 0) return 'bad poll count';
  if (!Array.isArray(outputs)) return 'no outputs';
  const readOutputs = outputs.map(readOutput);
  if (readOutputs.some((o) => o === undefined)) return 'a malformed output';

  const job: MediaJob = {
    id,
    prompt,
    model,
    status,
    createdAt,
    updatedAt,
    outputs: readOutputs as MediaOutput[],
    pollCount,
  };
  // JSON turns a missing value into null in some writers, so null reads as "absent".
  const { parameters, finishedAt, error, lastCheckedAt, lastProblem, cost, pollingUrl } = entry;
  if (parameters != null) {
    if (!isRecord(parameters)) return 'bad parameters';
    job.parameters = parameters;
  }
  for (const [name, value] of [
    ['finishedAt', finishedAt],
    ['lastCheckedAt', lastCheckedAt],
  ] as const) {
    if (value == null) continue;
    if (!isTime(value)) return `bad ${name}`;
    job[name] = value;
  }
  // An unreadable cost, progress or queue place is only not shown: the job itself is fine.
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) job.cost = cost;
  const { progress, queuePosition } = entry;
  if (typeof progress === 'number' && progress >= 0 && progress <= 1) job.progress = progress;
  if (typeof queuePosition === 'number' && Number.isInteger(queuePosition) && queuePosition >= 0)
    job.queuePosition = queuePosition;
  // A polling URL that is not one (a hand-edited file) is dropped: the job is then asked for at
  // the gateway's own media endpoint, which knows it by its id.
  if (typeof pollingUrl === 'string') {
    const url = gatewayUrl(pollingUrl);
    if (url) job.pollingUrl = url;
  }
  for (const [name, value] of [
    ['error', error],
    ['lastProblem', lastProblem],
  ] as const) {
    if (value == null) continue;
    if (typeof value !== 'string') return `bad ${name}`;
    job[name] = value;
  }
  return job;
}

function readOutput(value: unknown): MediaOutput | undefined {
  if (!isRecord(value)) return undefined;
  const mimeType = value['mimeType'];
  switch (value['kind']) {
    case 'url': {
      const url = value['url'];
      if (typeof url !== 'string' || (mimeType != null && typeof mimeType !== 'string')) return undefined;
      return typeof mimeType === 'string' ? { kind: 'url', url, mimeType } : { kind: 'url', url };
    }
    case 'data': {
      const data = value['data'];
      if (typeof data !== 'string' || typeof mimeType !== 'string') return undefined;
      return { kind: 'data', data, mimeType };
    }
    case 'text': {
      const text = value['text'];
      return typeof text === 'string' ? { kind: 'text', text } : undefined;
    }
    default:
      return undefined;
  }
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
