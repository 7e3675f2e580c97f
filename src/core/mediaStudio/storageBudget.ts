/**
 * Keeps the results in extension storage under a size cap. Pure: the host measures the files and
 * says which results were saved into the workspace; this decides what goes.
 */

export interface StoredResult {
  jobId: string;
  /** Bytes the job's files take in extension storage (results and thumbnails). */
  bytes: number;
  /** When the result arrived (epoch ms); the oldest go first. */
  finishedAt: number;
  /** Saved into the workspace at least once: never removed. */
  saved: boolean;
}

export interface CleanupPlan {
  /** Jobs whose stored results to remove, oldest first. */
  remove: string[];
  totalBytes: number;
  freedBytes: number;
  /**
   * Still over the cap after the plan: what is left is all saved, plus the newest unsaved
   * result, which is never removed. The cap cannot be met then; the user is told (once, see
   * BudgetNotice) and nothing more can be done here.
   */
  stillOver: boolean;
  /** The newest result not saved to the workspace, kept whatever it costs; if there is one. */
  keptNewest?: string;
  /** What the results saved to the workspace take: over the cap, they alone make it unreachable. */
  savedBytes: number;
}

/**
 * What to remove to get under `capBytes`: the oldest results not saved to the workspace first,
 * until the rest fits. Never a saved result, and never the newest unsaved one: that is the
 * result the user has just received (or paid for), and removing it the moment it arrives
 * because older, saved results fill the cap would lose it for nothing. When the cap cannot be
 * met even so, the plan says `stillOver`.
 */
export function planCleanup(results: readonly StoredResult[], capBytes: number): CleanupPlan {
  const size = (r: StoredResult) => Math.max(0, r.bytes);
  const totalBytes = results.reduce((sum, r) => sum + size(r), 0);
  const savedBytes = results.filter((r) => r.saved).reduce((sum, r) => sum + size(r), 0);
  const unsaved = results
    .filter((r) => !r.saved)
    .sort((a, b) => a.finishedAt - b.finishedAt || a.jobId.localeCompare(b.jobId));
  const newest = unsaved.at(-1);
  const remove: string[] = [];
  let left = totalBytes;
  for (const result of unsaved.slice(0, -1)) {
    if (left <= capBytes) break;
    remove.push(result.jobId);
    left -= size(result);
  }
  const plan: CleanupPlan = {
    remove,
    totalBytes,
    freedBytes: totalBytes - left,
    stillOver: left > capBytes,
    savedBytes,
  };
  if (newest) plan.keptNewest = newest.jobId;
  return plan;
}

/**
 * Says "the limit cannot be met" once, not after every cleanup: again only after the limit was
 * met (or changed) in between. One per window; cleanups run after every finished job.
 */
export class BudgetNotice {
  private warnedFor: number | undefined;

  /** True when this plan's "still over" is news for the user. */
  shouldWarn(plan: Pick<CleanupPlan, 'stillOver'>, capBytes: number): boolean {
    if (!plan.stillOver) {
      this.warnedFor = undefined;
      return false;
    }
    if (this.warnedFor === capBytes) return false;
    this.warnedFor = capBytes;
    return true;
  }
}

/**
 * What to tell the user when the cap cannot be met, or undefined when it can. Plain text: what
 * takes the room, what is kept, and what to do about it.
 */
export function budgetWarning(plan: CleanupPlan, limitMB: number): string | undefined {
  if (!plan.stillOver) return undefined;
  const removed = plan.remove.length
    ? ` ${plan.remove.length} older result(s) not saved to the workspace were removed (${formatBytes(plan.freedBytes)}).`
    : '';
  const cap = limitMB * 1024 * 1024;
  const what =
    plan.savedBytes > cap
      ? `results saved to the workspace alone take ${formatBytes(plan.savedBytes)}, more than the ${limitMB} MB allowed for media storage. They are kept${plan.keptNewest ? ', and so is the newest result' : ''}.`
      : `the newest media result does not fit in the ${limitMB} MB allowed for media storage beside the results saved to the workspace. It is kept, and so are they.`;
  return `${what}${removed} Raise the limit to keep more results; this is not said again until the limit is met.`;
}

/** "1.4 MB", "820 KB": sizes for people. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
