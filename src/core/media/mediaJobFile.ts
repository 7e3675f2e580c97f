/**
 * The media jobs file that every window shares (`jobs.json` in the extension's global storage),
 * and the merge that lets several windows write it without losing each other's jobs.
 * Pure: the folder comes in through `StoreFiles`; writes go through a WriteQueue (atomic, in
 * order, retried with backoff).
 */
import { isRecord, tryParseJson } from '../../api/json';
import { StorageKey } from '../ids';
import { keepAside } from '../storage/storeFiles';
import type { StoreEvents, StoreFiles } from '../storage/storeFiles';
import { WriteQueue } from '../storage/writeQueue';
import { isFinal, UNKNOWN_STATUS } from './mediaJob';
import type { MediaJob } from './mediaJob';
import { deserializeJobs, serializeJobs } from './mediaJobCodec';

export const MEDIA_JOBS_FILE = StorageKey.mediaJobsFile;
const FILE_VERSION = 2;
/** At most this many removals are remembered (the oldest are forgotten first). */
export const MAX_REMOVALS = 1000;

export interface MediaJobsState {
  jobs: MediaJob[];
  /**
   * Removed job id → when. A removed job never comes back through a merge: every copy created
   * before the removal is dropped (see `isRemovedCopy`).
   */
  removed: Record<string, number>;
}

export interface ParsedJobsFile extends MediaJobsState {
  skipped: number;
  problems: string[];
}

function removals(entries: Iterable<[string, number]> = []): Record<string, number> {
  const map = Object.create(null) as Record<string, number>;
  for (const [id, at] of entries) map[id] = at;
  return map;
}

/**
 * The jobs file's content (or the old globalState value, a bare array or `{ jobs }`), or
 * undefined when it is not a jobs file at all. Bad jobs are skipped and counted; never throws.
 * A job's id is the gateway's, whatever string that is (`models/veo-3/operations/abc`): it is
 * never used as a file name (see mediaFiles.ts), so any non-empty string is kept.
 */
export function parseJobsFile(value: unknown): ParsedJobsFile | undefined {
  if (!Array.isArray(value) && !(isRecord(value) && Array.isArray(value['jobs']))) return undefined;
  const { jobs, skipped, problems } = deserializeJobs(value);
  const removed = removals();
  let bad = skipped;
  const raw = isRecord(value) ? value['removed'] : undefined;
  if (isRecord(raw)) {
    for (const [id, at] of Object.entries(raw)) {
      if (id !== '' && typeof at === 'number' && Number.isFinite(at) && at >= 0) removed[id] = at;
      else bad++;
    }
  }
  return { jobs, removed, skipped: bad, problems };
}

/**
 * Whether `job` is a copy of a removed job: one created before (or when) it was removed. A job
 * created after the removal under the same id is a new start the gateway gave that id again,
 * and is kept (see pickJob).
 */
export function isRemovedCopy(
  job: Pick<MediaJob, 'id' | 'createdAt'>,
  removed: MediaJobsState['removed'],
): boolean {
  const at = Object.hasOwn(removed, job.id) ? removed[job.id] : undefined;
  return at !== undefined && job.createdAt <= at;
}

/**
 * Which of two copies of one job to keep.
 * - Two starts under one id (the gateway gave an id again, see MediaJobsFeature.generate): the
 *   later start wins, as the id now names it at the gateway.
 * - A result (completed or failed) beats "unknown": a window whose status check got 404 later
 *   (the gateway forgot the job) must not wipe the result another window got.
 * - A final job beats one still running (a window that polled later with an older answer must
 *   not undo a result).
 * - Otherwise the newer wins.
 * Results are never dropped: the winner without outputs takes the other's.
 */
export function pickJob(a: MediaJob, b: MediaJob): MediaJob {
  let winner: MediaJob;
  let loser: MediaJob;
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt ? a : b;
  if (isAnswered(a) !== isAnswered(b)) [winner, loser] = isAnswered(a) ? [a, b] : [b, a];
  else if (isFinal(a) !== isFinal(b)) [winner, loser] = isFinal(a) ? [a, b] : [b, a];
  else if (a.updatedAt !== b.updatedAt) [winner, loser] = a.updatedAt > b.updatedAt ? [a, b] : [b, a];
  else [winner, loser] = a.outputs.length >= b.outputs.length ? [a, b] : [b, a];
  if (winner.outputs.length === 0 && loser.outputs.length > 0 && winner.status === loser.status)
    return { ...winner, outputs: loser.outputs };
  return winner;
}

/** Final with the gateway's own answer: completed or failed, not "unknown" (404). */
function isAnswered(job: MediaJob): boolean {
  return isFinal(job) && job.status !== UNKNOWN_STATUS;
}

/**
 * True when the stored state lacks something of `ours`: a job it does not have (and did not
 * remove), or an older copy. Two windows that wrote at the same moment each lose that race
 * sometimes; whoever notices writes the merge back, so the windows converge on the union. Ties
 * go to the stored copy, so two windows never write the same state back and forth.
 */
export function lacksAny(stored: MediaJobsState, ours: readonly MediaJob[]): boolean {
  const byId = new Map(stored.jobs.map((job) => [job.id, job]));
  return ours.some((job) => {
    if (isRemovedCopy(job, stored.removed)) return false;
    const theirs = byId.get(job.id);
    if (!theirs) return true;
    return JSON.stringify(theirs) !== JSON.stringify(job) && pickJob(theirs, job) !== theirs;
  });
}

/** Both windows' jobs by id (see pickJob), minus every removed one. */
export function mergeJobs(theirs: MediaJobsState, ours: MediaJobsState): MediaJobsState {
  const removed = removals(Object.entries(theirs.removed));
  for (const [id, at] of Object.entries(ours.removed)) removed[id] = Math.max(at, removed[id] ?? 0);
  const jobs = new Map<string, MediaJob>();
  for (const job of [...theirs.jobs, ...ours.jobs]) {
    if (isRemovedCopy(job, removed)) continue;
    const other = jobs.get(job.id);
    jobs.set(job.id, other ? pickJob(other, job) : job);
  }
  const kept = Object.entries(removed)
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_REMOVALS);
  return { jobs: [...jobs.values()], removed: removals(kept) };
}

export function serializeJobsFile(state: MediaJobsState): string {
  const value = serializeJobs(state.jobs) as { version: number; jobs: unknown[] };
  return JSON.stringify({ version: FILE_VERSION, jobs: value.jobs, removed: state.removed });
}

export type MediaJobFileOptions = StoreEvents;

/** Reads, merges and writes the shared jobs file. */
export class MediaJobFile {
  private readonly queue: WriteQueue;
  private removed = removals();
  private lastProblem: string | undefined;
  private readonly now: () => number;

  constructor(
    private readonly files: StoreFiles,
    private readonly options: MediaJobFileOptions = {},
  ) {
    this.now = () => options.clock?.now() ?? Date.now();
    this.queue = new WriteQueue(
      (error) => options.onSaveFailed?.(error),
      () => options.onSaveRecovered?.(),
      options.clock,
    );
  }

  /**
   * What is on disk now: an unreadable file is moved aside (and reported) and reads as empty;
   * a file that cannot be read at all (I/O) throws, so nothing is written over it.
   */
  async read(): Promise<MediaJobsState> {
    const text = await this.files.read(MEDIA_JOBS_FILE);
    if (text === undefined) return { jobs: [], removed: removals() };
    const json = tryParseJson(text);
    const parsed = json.ok ? parseJobsFile(json.value) : undefined;
    if (!parsed) {
      const reason = json.ok ? 'not a media jobs file' : 'not valid JSON';
      const kept = await keepAside(this.files, MEDIA_JOBS_FILE, reason, this.now());
      if (kept) this.options.onKept?.(kept);
      else
        this.options.onProblem?.(
          `The media jobs file is unreadable (${reason}) and could not be moved aside.`,
        );
      return { jobs: [], removed: removals() };
    }
    const problem = `Skipped ${parsed.skipped} unreadable stored media job entr(ies): ${parsed.problems.join('; ')}`;
    // Once per distinct problem: the file is read before every write.
    if (parsed.skipped > 0 && problem !== this.lastProblem) this.options.onProblem?.(problem);
    this.lastProblem = parsed.skipped > 0 ? problem : undefined;
    for (const [id, at] of Object.entries(parsed.removed))
      this.removed[id] = Math.max(at, this.removed[id] ?? 0);
    return { jobs: parsed.jobs, removed: parsed.removed };
  }

  /** Remembers that the user removed a job here, so no merge brings it back. */
  markRemoved(id: string): void {
    this.removed[id] = this.now();
  }

  /** Whether `job` was removed (in this window or, as far as read, in another one). */
  isRemoved(job: Pick<MediaJob, 'id' | 'createdAt'>): boolean {
    return isRemovedCopy(job, this.removed);
  }

  /** When the job with this id was last removed, as far as this window knows. */
  removedAt(id: string): number | undefined {
    return this.removed[id];
  }

  /**
   * Merges `jobs` (this window's) with the file as it is just before writing, writes the result
   * and hands it to `onMerged` (so the window can take the other windows' jobs).
   */
  save(jobs: readonly MediaJob[], onMerged?: (state: MediaJobsState) => void): Promise<void> {
    const snapshot = [...jobs];
    return this.queue.run(MEDIA_JOBS_FILE, async () => {
      // Removals are taken when the write runs, not when it was queued: a job removed while this
      // save waited must not be written back (and then taken back into the model).
      const started = this.now();
      const theirs = await this.read();
      const ours: MediaJobsState = { jobs: snapshot, removed: removals(Object.entries(this.removed)) };
      const merged = mergeJobs(theirs, ours);
      await this.files.write(MEDIA_JOBS_FILE, serializeJobsFile(merged));
      const next = removals(Object.entries(merged.removed));
      // A removal made during the write is kept for the next one.
      for (const [id, at] of Object.entries(this.removed))
        if (next[id] === undefined && at >= started) next[id] = at;
      this.removed = next;
      onMerged?.(merged);
    });
  }

  /** Resolves when every save so far has been written (or is being retried). */
  flush(): Promise<void> {
    return this.queue.whenIdle();
  }

  get isFailing(): boolean {
    return this.queue.isFailing;
  }

  dispose(): void {
    this.queue.dispose();
  }
}
