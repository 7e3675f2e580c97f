/**
 * What every checkpoint store offers, whatever keeps its snapshots: a shadow git repository on
 * desktop (`gitStore.ts`), content-addressed files under a `vscode.Uri` in the browser
 * (`uriStore.ts`). And putting a folder back as a restore plan says, through a `FolderWriter` that
 * knows the folder's file system. No `vscode` and no Node built-in here: both builds share it.
 */
import type { LeftOutList, PruneLimits, RestorePlan, TreeEntry } from '../../../core/agent/checkpoints';

/** Why a store did not give an answer. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    message: string,
    /** `refused`: the folder is one checkpoints never copy (the home folder, `~/.aws`, …). */
    readonly kind: 'noGit' | 'timeout' | 'failed' | 'refused',
  ) {
    super(message);
  }
}

export interface SnapshotSummary {
  /** Files left out: possible secrets, over the size cap. */
  leftOut: { secret: number; large: number };
  /** Files the snapshot holds. */
  files: number;
  ms: number;
}

/** One workspace folder's checkpoints. */
export interface CheckpointStore {
  /** Where the store lives, for the log. */
  readonly dir: string;
  /**
   * Snapshots the folder's files under `id`; rejects with a `CheckpointError` (kind `timeout`
   * when `deadline`, epoch ms, passes first).
   */
  snapshot(id: string, deadline: number, message?: string): Promise<SnapshotSummary>;
  has(id: string): Promise<boolean>;
  /** The files a checkpoint holds, path → entry. */
  files(id: string): Promise<Map<string, TreeEntry>>;
  /** What the checkpoint left out of the files that were there (incomplete when it cannot say). */
  leftOut(id: string): Promise<LeftOutList>;
  /** A stored file's bytes. */
  blob(oid: string): Promise<Uint8Array>;
  /** Drops old checkpoints (see `checkpointsToDrop`) and what no checkpoint holds; the ids dropped. */
  prune(now: number, limits?: PruneLimits, keep?: ReadonlySet<string>): Promise<string[]>;
}

/**
 * A folder's file system as a restore writes it. `T` names a located file (a path on disk, a URI).
 * Each call locates again: nothing is written through a link.
 */
export interface FolderWriter<T> {
  /** Where a relative path is written, or undefined when it may not be (outside, through a link). */
  locate(relative: string): Promise<T | undefined>;
  /** What is there now: a real folder, anything else (a file, a link), or nothing. */
  kind(target: T): Promise<'folder' | 'other' | undefined>;
  /** Writes a stored file back in place of whatever is there (an empty folder goes; a full one throws). */
  write(target: T, entry: TreeEntry, bytes: Uint8Array): Promise<void>;
  /** Removes a file or link the checkpoint did not have (a folder stays). */
  remove(target: T): Promise<void>;
}

/**
 * Puts one folder back as `plan` says (`target` is the checkpoint's files), and returns what could
 * not be done, one short line each. A path is located again just before it is written, never
 * through a link; a file the plan would bring back where the snapshot of now holds nothing but
 * the disk has something (left out of that snapshot: ignored, a possible secret, too large) is
 * left as it is, since Redo could not bring it back.
 */
export async function applyPlanWith<T>(
  writer: FolderWriter<T>,
  options: {
    folderName: string;
    plan: RestorePlan;
    target: ReadonlyMap<string, TreeEntry>;
    blob: (oid: string) => Promise<Uint8Array>;
    /** Files the user chose to leave alone (unsaved in an editor). */
    skip?: (relative: string, located: T) => boolean;
    /** Called after each file is written back, with what was written. */
    written?: (relative: string, located: T, entry: TreeEntry, bytes: Uint8Array) => Promise<void>;
  },
): Promise<string[]> {
  const { folderName, plan, target } = options;
  const failures: string[] = [];
  const recreated = new Set(plan.recreated);
  // Removals first: a file or link where the checkpoint had a folder goes before the folder's
  // files are written back, and a folder's files go before a file takes its place.
  for (const relative of [...plan.removed, ...plan.changed, ...plan.recreated]) {
    const located = await writer.locate(relative).catch(() => undefined);
    if (located === undefined) {
      failures.push(`${relative} (not a path inside ${folderName})`);
      continue;
    }
    if (options.skip?.(relative, located)) continue;
    try {
      const entry = target.get(relative);
      if (!entry) {
        await writer.remove(located);
        continue;
      }
      const there = recreated.has(relative) ? await writer.kind(located).catch(() => undefined) : undefined;
      if (there === 'other') {
        failures.push(`${relative} (left as it is: the snapshot taken before this restore does not hold it)`);
        continue;
      }
      const bytes = await options.blob(entry.oid);
      await writer.write(located, entry, bytes);
      await options.written?.(relative, located, entry, bytes);
    } catch (error) {
      failures.push(`${relative} (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  return failures;
}
