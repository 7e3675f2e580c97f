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
  /** Still over the cap after removing every unsaved result (what is left is all saved). */
  stillOver: boolean;
}

export function planCleanup(results: readonly StoredResult[], capBytes: number): CleanupPlan {
  const totalBytes = results.reduce((sum, r) => sum + Math.max(0, r.bytes), 0);
  const remove: string[] = [];
  let left = totalBytes;
  if (left > capBytes) {
    const candidates = results
      .filter((r) => !r.saved)
      .sort((a, b) => a.finishedAt - b.finishedAt || a.jobId.localeCompare(b.jobId));
    for (const result of candidates) {
      if (left <= capBytes) break;
      remove.push(result.jobId);
      left -= Math.max(0, result.bytes);
    }
  }
  return { remove, totalBytes, freedBytes: totalBytes - left, stillOver: left > capBytes };
}

/** "1.4 MB", "820 KB": sizes for people. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
