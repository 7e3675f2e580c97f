/**
 * Checkpoints of the workspace, the pure part: which files a snapshot takes, what a restore
 * changes, and which old checkpoints go. The host (`src/host/agent/checkpoints/`) runs git
 * against a repository of our own and hands this module its output; nothing here touches a file.
 */
import { isCheckpointId } from '../protocol/protocolFields';
import { offLimitsPath } from './workspacePaths';

export { isCheckpointId };

/** Largest file a snapshot keeps, in bytes: bigger ones are left out (and never restored). */
export const CHECKPOINT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** How long a snapshot may take before it gives up and says so (ms). */
export const CHECKPOINT_BUDGET_MS = 10_000;
/** Checkpoints older than this are dropped (ms): 30 days. */
export const CHECKPOINT_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** A folder's store above this size (bytes, packed and loose) drops its oldest checkpoints. */
export const CHECKPOINT_MAX_STORE_BYTES = 500 * 1024 * 1024;
/** The newest checkpoints of a folder that size alone never drops. */
export const CHECKPOINT_KEEP_NEWEST = 20;

/** The refs our store keeps a checkpoint under: `refs/checkpoints/<id>`. */
export const CHECKPOINT_REF_PREFIX = 'refs/checkpoints/';

/** A new checkpoint id: sortable by time, safe as a ref name and a protocol field. */
export function newCheckpointId(now: number, random: () => number = Math.random): string {
  const tail = Math.floor(random() * 36 ** 8)
    .toString(36)
    .padStart(8, '0');
  return `cp-${now.toString(36)}-${tail}`;
}

/** One file of a snapshot, as `git ls-tree -r -z` lists it. */
export interface TreeEntry {
  /** `100644`, `100755`, `120000` (a symbolic link); `160000` (a nested repository) is skipped. */
  mode: string;
  oid: string;
}

/**
 * `git ls-tree -r -z --full-tree <tree>` output as path → entry. Lines that do not parse, and
 * anything but files and links, are skipped: they are never restored.
 */
export function parseLsTree(text: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  for (const record of text.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    if (type !== 'blob' || !/^[0-9a-f]{40,64}$/.test(oid ?? '') || !isStorablePath(path)) continue;
    if (mode !== '100644' && mode !== '100755' && mode !== '120000') continue;
    out.set(path, { mode, oid });
  }
  return out;
}

/** A relative path with forward slashes that stays inside its folder. */
export function isStorablePath(path: string): boolean {
  if (!path || path.length > 4096 || path.startsWith('/') || path.includes('\\') || path.includes('\0'))
    return false;
  return path
    .split('/')
    .every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

/** What putting a folder back to a checkpoint does, file by file (each list sorted). */
export interface RestorePlan {
  /** Files that differ now: their checkpoint content is written back. */
  changed: string[];
  /** Files deleted since: brought back. */
  recreated: string[];
  /** Files created since: removed. */
  removed: string[];
  /**
   * Files the snapshot of now holds and the checkpoint does not, but that it did not cover: they
   * were there and left out (ignored, possible secrets, over the size cap), or the checkpoint
   * cannot say. A restore leaves them as they are.
   */
  kept: string[];
}

/**
 * What a checkpoint left out of the files that were there when it was taken: files, and folders
 * (ending in `/`) whose files were all left out (`git ls-files --others --ignored --directory`).
 */
export interface LeftOutList {
  paths: string[];
  /** False when the list was cut at its cap, or is unknown (a checkpoint of an earlier version). */
  complete: boolean;
}

/** Most entries a left-out list keeps; a longer one is cut and marked incomplete. */
export const MAX_LEFT_OUT_ENTRIES = 100_000;
const LEFT_OUT_HEADER = 'gateway-left-out v1 ';

/** A left-out list as our store keeps it (a blob): a header line, then NUL-separated paths. */
export function leftOutText(paths: readonly string[]): string {
  const kept = paths.filter((p) => isStorablePath(p.endsWith('/') ? p.slice(0, -1) : p));
  const complete = kept.length <= MAX_LEFT_OUT_ENTRIES;
  return `${LEFT_OUT_HEADER}${complete ? 'complete' : 'partial'}\n${kept.slice(0, MAX_LEFT_OUT_ENTRIES).join('\0')}`;
}

/**
 * A stored left-out list, read as outside data: anything but our header gives undefined; paths
 * that could leave the folder are dropped; at most MAX_LEFT_OUT_ENTRIES are read (more make it
 * incomplete). Never throws.
 */
export function parseLeftOut(text: unknown): LeftOutList | undefined {
  if (typeof text !== 'string' || !text.startsWith(LEFT_OUT_HEADER)) return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  const state = text.slice(LEFT_OUT_HEADER.length, newline);
  if (state !== 'complete' && state !== 'partial') return undefined;
  const all = text.slice(newline + 1).split('\0', MAX_LEFT_OUT_ENTRIES + 1);
  const paths = all
    .slice(0, MAX_LEFT_OUT_ENTRIES)
    .filter((p) => isStorablePath(p.endsWith('/') ? p.slice(0, -1) : p));
  return { paths, complete: state === 'complete' && all.length <= MAX_LEFT_OUT_ENTRIES };
}

/** Whether a left-out list names `path`, or a folder it lies in. */
function leftOutIndex(list: LeftOutList): (path: string) => boolean {
  const names = new Set(list.paths);
  return (path) => {
    if (names.has(path)) return true;
    for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1))
      if (names.has(path.slice(0, at + 1))) return true;
    return false;
  };
}

/**
 * The files that differ between the checkpoint (`target`) and a snapshot of now (`current`). A
 * file only the snapshot of now holds is removed when the checkpoint covered it (it was not
 * there then), and kept when the checkpoint's `leftOut` names it or cannot say (incomplete).
 */
export function restorePlan(
  target: ReadonlyMap<string, TreeEntry>,
  current: ReadonlyMap<string, TreeEntry>,
  leftOut: LeftOutList = { paths: [], complete: true },
): RestorePlan {
  const plan: RestorePlan = { changed: [], recreated: [], removed: [], kept: [] };
  for (const [path, entry] of target) {
    const now = current.get(path);
    if (!now) plan.recreated.push(path);
    else if (now.oid !== entry.oid || now.mode !== entry.mode) plan.changed.push(path);
  }
  const wasLeftOut = leftOutIndex(leftOut);
  for (const path of current.keys())
    if (!target.has(path)) (leftOut.complete && !wasLeftOut(path) ? plan.removed : plan.kept).push(path);
  plan.changed.sort();
  plan.recreated.sort();
  plan.removed.sort();
  plan.kept.sort();
  return plan;
}

export function planSize(plan: RestorePlan): number {
  return plan.changed.length + plan.recreated.length + plan.removed.length;
}

/**
 * Why a file is left out of snapshots, or undefined when it is kept. `path` is relative to the
 * folder's real path; `realPath`, its absolute real path, is judged too, as the agent's tools judge
 * it (`offLimitsPath`): `credentials` in a folder that is `~/.aws`, any file of a project inside a
 * folder named `secrets`.
 */
export function leftOutBecause(
  path: string,
  bytes: number,
  secretPatterns: readonly string[],
  maxFileBytes = CHECKPOINT_MAX_FILE_BYTES,
  realPath = '',
): 'secret' | 'large' | 'path' | undefined {
  if (!isStorablePath(path)) return 'path';
  if (offLimitsPath([path, realPath], secretPatterns)) return 'secret';
  if (bytes > maxFileBytes) return 'large';
  return undefined;
}

/** `git ls-files -z` output as paths (nested repositories, listed as `dir/`, are skipped). */
export function parsePathList(text: string): string[] {
  const out = new Set<string>();
  for (const path of text.split('\0')) if (path && !path.endsWith('/')) out.add(path);
  return [...out];
}

/** A checkpoint as the store lists it. */
export interface StoredCheckpoint {
  id: string;
  /** Epoch ms it was taken. */
  createdAt: number;
}

/**
 * `git for-each-ref --format='%(refname) %(committerdate:unix)' refs/checkpoints/` output as
 * checkpoints; refs that are not ours are skipped.
 */
export function parseCheckpointRefs(text: string): StoredCheckpoint[] {
  const out: StoredCheckpoint[] = [];
  for (const line of text.split('\n')) {
    const [ref, seconds] = line.trim().split(' ');
    if (!ref?.startsWith(CHECKPOINT_REF_PREFIX)) continue;
    const id = ref.slice(CHECKPOINT_REF_PREFIX.length);
    const time = Number(seconds);
    if (isCheckpointId(id) && Number.isFinite(time)) out.push({ id, createdAt: time * 1000 });
  }
  return out;
}

export interface PruneLimits {
  maxAgeMs: number;
  maxStoreBytes: number;
  keepNewest: number;
}

export const DEFAULT_PRUNE_LIMITS: PruneLimits = {
  maxAgeMs: CHECKPOINT_MAX_AGE_MS,
  maxStoreBytes: CHECKPOINT_MAX_STORE_BYTES,
  keepNewest: CHECKPOINT_KEEP_NEWEST,
};

/**
 * Which checkpoints to drop: every one older than the age limit; and when the store is over its
 * size, the older half of the rest (never the newest `keepNewest`), so a store shrinks over a
 * few prunes without guessing what each checkpoint weighs. `keep` (checkpoints in use, such as
 * one a restore is about to read) always stays.
 */
export function checkpointsToDrop(
  checkpoints: readonly StoredCheckpoint[],
  now: number,
  storeBytes: number,
  limits: PruneLimits = DEFAULT_PRUNE_LIMITS,
  keep: ReadonlySet<string> = new Set(),
): string[] {
  const newestFirst = [...checkpoints].sort((a, b) => b.createdAt - a.createdAt);
  const drop = new Set(
    newestFirst.filter((c) => now - c.createdAt > limits.maxAgeMs && !keep.has(c.id)).map((c) => c.id),
  );
  if (storeBytes > limits.maxStoreBytes) {
    const rest = newestFirst.filter((c) => !drop.has(c.id));
    const droppable = rest.slice(limits.keepNewest).filter((c) => !keep.has(c.id));
    const count = Math.ceil(droppable.length / 2);
    for (const c of droppable.slice(droppable.length - count)) drop.add(c.id);
  }
  return newestFirst.filter((c) => drop.has(c.id)).map((c) => c.id);
}

/**
 * `git count-objects -v` output as bytes on disk (loose and packed; git prints KiB).
 */
export function parseCountObjects(text: string): number {
  let kib = 0;
  for (const line of text.split('\n')) {
    const match = /^(size|size-pack|size-garbage):\s*(\d+)\s*$/.exec(line.trim());
    if (match) kib += Number(match[2]);
  }
  return kib * 1024;
}

/** The lines of a restore's confirmation: each file with what happens to it, capped. */
export function describePlan(plan: RestorePlan, folderLabel: string | undefined, max = 40): string[] {
  const lines = [
    ...plan.changed.map((p) => `changed back: ${p}`),
    ...plan.recreated.map((p) => `brought back: ${p}`),
    ...plan.removed.map((p) => `removed: ${p}`),
  ].map((line) => (folderLabel ? `${folderLabel}: ${line}` : line));
  const kept = plan.kept.length
    ? [
        `${folderLabel ? `${folderLabel}: ` : ''}left as ${plan.kept.length === 1 ? 'it is' : 'they are'}: ${plan.kept.length} ${plan.kept.length === 1 ? 'file' : 'files'} this checkpoint did not hold (ignored, possible secrets or over ${CHECKPOINT_MAX_FILE_BYTES / 1024 / 1024} MB when it was taken)`,
      ]
    : [];
  if (lines.length <= max) return [...lines, ...kept];
  return [...lines.slice(0, max), `… and ${lines.length - max} more`, ...kept];
}
