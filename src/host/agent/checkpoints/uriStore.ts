/**
 * A folder's checkpoints kept with `vscode.workspace.fs` alone, for the browser build (no git
 * process there): content-addressed blobs (`blobs/<aa>/<sha-256>`) and one bounded JSON manifest
 * per checkpoint (`manifests/<id>.json`, see `checkpointManifest`), in a folder of the extension's
 * storage. Files are reached only by `vscode.Uri` (never a path on disk), so this runs in the web
 * worker and, for the tests, in the desktop extension host.
 *
 * What a snapshot takes is what the desktop store takes: the folder's files that `.gitignore`
 * (and `.git/info/exclude`) and the secrets list leave, each up to the size cap, never through a
 * link, never `.git`. What was there and left out is listed in the manifest, so a restore leaves
 * it alone. A snapshot is bounded in files and bytes; past either bound files are left out too.
 */
import * as vscode from 'vscode';
import {
  CHECKPOINT_KEEP_NEWEST,
  CHECKPOINT_MAX_AGE_MS,
  CHECKPOINT_MAX_FILE_BYTES,
  checkpointsToDrop,
  isCheckpointId,
  leftOutBecause,
} from '../../../core/agent/checkpoints';
import type { LeftOutList, PruneLimits, StoredCheckpoint, TreeEntry } from '../../../core/agent/checkpoints';
import {
  isSha256,
  MANIFEST_MAX_BYTES,
  MANIFEST_MAX_FILES,
  manifestEntries,
  manifestText,
  parseManifest,
} from '../../../core/agent/checkpointManifest';
import type { CheckpointManifest, ManifestFile } from '../../../core/agent/checkpointManifest';
import { IgnoreMatcher, parseGitignore, sortIgnoreFiles } from '../../../core/agent/gitignore';
import type { IgnoreFile } from '../../../core/agent/gitignore';
import { inGitFolder } from '../../../core/agent/workspacePaths';
import { sha256Hex } from '../../../core/util/sha256';
import { CheckpointError } from './checkpointStore';
import type { CheckpointStore, FolderWriter, SnapshotSummary } from './checkpointStore';

/** The bytes of files one snapshot holds; files past it are left out (as over the size cap). */
export const URI_SNAPSHOT_MAX_BYTES = 200 * 1024 * 1024;
/** A store above this size drops its oldest checkpoints (browser storage is smaller than a disk). */
export const URI_STORE_MAX_BYTES = 300 * 1024 * 1024;
/** The largest `.gitignore` read; a larger one is not honoured (its folder is still walked). */
const MAX_IGNORE_BYTES = 256 * 1024;
/** Files read and hashed at once. */
const CONCURRENCY = 16;
/** A file changed this recently may change again within its timestamp's grain: hashed next time too. */
const RACY_MS = 3_000;
/** Blobs no checkpoint holds stay this long: another window may be snapshotting with them. */
const GRACE_MS = 60 * 60 * 1000;
/** Manifests parsed and kept in memory (a restore reads one three times). */
const MANIFEST_CACHE = 8;

export interface UriStoreOptions {
  /** The store's folder (created on first use). */
  dir: vscode.Uri;
  /** The workspace folder. */
  folder: vscode.Uri;
  /** Globs of files never stored (the secrets list). */
  secretPatterns: () => readonly string[];
  maxFileBytes?: number;
  maxSnapshotBytes?: number;
}

/** The store's folder name for a workspace folder: a hash of its URI. */
export function uriStoreNameFor(folder: vscode.Uri): string {
  return sha256Hex(folder.toString()).slice(0, 24);
}

export class UriCheckpointStore implements CheckpointStore {
  /** One operation at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** What each file was when last hashed (path → entry), so unchanged files are not read again. */
  private hashed: Map<string, ManifestFile> | undefined;
  /** Blobs known to be in the store. */
  private readonly blobs = new Set<string>();
  private readonly manifests = new Map<string, CheckpointManifest>();

  constructor(private readonly options: UriStoreOptions) {}

  get dir(): string {
    return this.options.dir.toString();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  snapshot(id: string, deadline: number): Promise<SnapshotSummary> {
    if (!isCheckpointId(id)) return Promise.reject(new CheckpointError('Not a checkpoint id.', 'failed'));
    return this.serial(() => this.snapshotNow(id, deadline));
  }

  private async snapshotNow(id: string, deadline: number): Promise<SnapshotSummary> {
    const started = Date.now();
    const root = this.options.folder;
    const rootStat = await stat(root);
    if (!rootStat || !(rootStat.type & vscode.FileType.Directory))
      throw new CheckpointError(`${root.toString()} could not be read.`, 'failed');
    if (rootStat.type & vscode.FileType.SymbolicLink)
      throw new CheckpointError(
        `${root.toString()} is a link, which checkpoints never follow; they copy none of its files.`,
        'refused',
      );
    const patterns = this.options.secretPatterns();
    const maxFile = this.options.maxFileBytes ?? CHECKPOINT_MAX_FILE_BYTES;
    const maxBytes = this.options.maxSnapshotBytes ?? URI_SNAPSHOT_MAX_BYTES;
    const { candidates, notCovered } = await this.walk(deadline, started);
    const hashed = (this.hashed ??= await this.newestHashes());
    const files: ManifestFile[] = [];
    const leftOut = { secret: 0, large: 0 };
    let bytes = 0;
    for (let at = 0; at < candidates.length; at += CONCURRENCY) {
      if (Date.now() > deadline) throw timedOut(started);
      const chunk = candidates.slice(at, at + CONCURRENCY);
      const got = await Promise.all(
        chunk.map((relative) => this.hashFile(relative, patterns, maxFile, hashed)),
      );
      chunk.forEach((relative, i) => {
        const file = got[i];
        if (file === 'secret' || file === 'large' || file === undefined) {
          if (file === 'secret') leftOut.secret++;
          if (file === 'large') leftOut.large++;
          notCovered.push(relative);
          return;
        }
        if (files.length >= MANIFEST_MAX_FILES || bytes + file.size > maxBytes) {
          leftOut.large++;
          notCovered.push(relative);
          return;
        }
        bytes += file.size;
        files.push(file);
      });
    }
    const manifest = { id, createdAt: Date.now(), files, notCovered };
    await vscode.workspace.fs.writeFile(
      this.manifestUri(id),
      new TextEncoder().encode(manifestText(manifest)),
    );
    // Files gone since are forgotten; the rest are known as hashed now.
    this.hashed = new Map(files.map((f) => [f.path, f]));
    return { files: files.length, leftOut, ms: Date.now() - started };
  }

  /**
   * The folder's files that `.gitignore` leaves (`candidates`, not yet judged by the secrets list
   * or size), and what is there and left out (`notCovered`: links, other kinds, ignored files, and
   * ignored or unreadable folders as `dir/`).
   */
  private async walk(
    deadline: number,
    started: number,
  ): Promise<{ candidates: string[]; notCovered: string[] }> {
    const candidates: string[] = [];
    const notCovered: string[] = [];
    const root = this.options.folder;
    const exclude = await this.ignoreFile(vscode.Uri.joinPath(root, '.git', 'info', 'exclude'), '');
    const pending: { relative: string; ignores: IgnoreFile[] }[] = [
      { relative: '', ignores: exclude ? [exclude] : [] },
    ];
    while (pending.length) {
      if (Date.now() > deadline) throw timedOut(started);
      const { relative, ignores: above } = pending.pop()!;
      const uri = relative ? vscode.Uri.joinPath(root, ...relative.split('/')) : root;
      let entries: [string, vscode.FileType][];
      try {
        entries = await vscode.workspace.fs.readDirectory(uri);
      } catch {
        if (relative) notCovered.push(`${relative}/`);
        continue;
      }
      const own = entries.some(([name, type]) => name === '.gitignore' && type === vscode.FileType.File)
        ? await this.ignoreFile(vscode.Uri.joinPath(uri, '.gitignore'), relative)
        : undefined;
      const ignores = own ? [...above, own] : above;
      const matcher = new IgnoreMatcher(sortIgnoreFiles([...ignores]));
      for (const [name, type] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const path = relative ? `${relative}/${name}` : name;
        // Git's own files are never a checkpoint's, nor listed as left out: no restore sees them.
        if (inGitFolder(path)) continue;
        if (type & vscode.FileType.SymbolicLink) notCovered.push(path);
        else if (type === vscode.FileType.Directory) {
          if (matcher.ignored(path, true)) notCovered.push(`${path}/`);
          else pending.push({ relative: path, ignores });
        } else if (type === vscode.FileType.File && !matcher.ignored(path)) candidates.push(path);
        else notCovered.push(path);
      }
    }
    return { candidates: candidates.sort(), notCovered };
  }

  /** A `.gitignore` (or `info/exclude`) as rules for `folder`; undefined when missing or too large. */
  private async ignoreFile(uri: vscode.Uri, folder: string): Promise<IgnoreFile | undefined> {
    const found = await stat(uri);
    if (!found || found.type !== vscode.FileType.File || found.size > MAX_IGNORE_BYTES) return undefined;
    const bytes = await readBytes(uri);
    if (!bytes || bytes.length > MAX_IGNORE_BYTES) return undefined;
    return parseGitignore(new TextDecoder().decode(bytes), folder);
  }

  /**
   * One file, hashed and stored (or found unchanged since it was last hashed), or why it is left
   * out; undefined when it is gone or no longer a plain file.
   */
  private async hashFile(
    relative: string,
    patterns: readonly string[],
    maxFile: number,
    hashed: Map<string, ManifestFile>,
  ): Promise<ManifestFile | 'secret' | 'large' | undefined> {
    const uri = vscode.Uri.joinPath(this.options.folder, ...relative.split('/'));
    const why = leftOutBecause(relative, 0, patterns, Infinity, uri.path);
    if (why === 'secret') return 'secret';
    if (why) return undefined;
    const found = await stat(uri);
    if (!found || found.type !== vscode.FileType.File) return undefined;
    if (found.size > maxFile) return 'large';
    const before = hashed.get(relative);
    if (
      before &&
      before.mtime >= 0 &&
      before.mtime === found.mtime &&
      before.size === found.size &&
      (await this.hasBlob(before.oid))
    )
      return before;
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(uri);
    } catch {
      return undefined;
    }
    if (bytes.length > maxFile) return 'large';
    const oid = await sha256OfBytes(bytes);
    if (!(await this.hasBlob(oid))) {
      await vscode.workspace.fs.writeFile(this.blobUri(oid), bytes);
      this.blobs.add(oid);
    }
    const racy = Date.now() - found.mtime < RACY_MS;
    const file = { path: relative, oid, size: bytes.length, mtime: racy ? -1 : found.mtime };
    // Kept at once: a snapshot that runs out of time leaves the next one less to hash.
    hashed.set(relative, file);
    return file;
  }

  private async hasBlob(oid: string): Promise<boolean> {
    if (this.blobs.has(oid)) return true;
    const found = await stat(this.blobUri(oid));
    if (found?.type !== vscode.FileType.File) return false;
    this.blobs.add(oid);
    return true;
  }

  /** The newest checkpoint's files, to start from (empty when there is none). */
  private async newestHashes(): Promise<Map<string, ManifestFile>> {
    const newest = (await this.listNow()).at(-1);
    const manifest = newest && (await this.manifest(newest.id));
    return new Map((manifest?.files ?? []).map((f) => [f.path, f]));
  }

  private manifestUri(id: string): vscode.Uri {
    return vscode.Uri.joinPath(this.options.dir, 'manifests', `${id}.json`);
  }

  private blobUri(oid: string): vscode.Uri {
    return vscode.Uri.joinPath(this.options.dir, 'blobs', oid.slice(0, 2), oid);
  }

  /** A checkpoint's manifest, read as outside data; undefined when missing or not one. */
  private async manifest(id: string): Promise<CheckpointManifest | undefined> {
    if (!isCheckpointId(id)) return undefined;
    const cached = this.manifests.get(id);
    if (cached) return cached;
    const uri = this.manifestUri(id);
    const found = await stat(uri);
    if (!found || found.type !== vscode.FileType.File || found.size > MANIFEST_MAX_BYTES) return undefined;
    const bytes = await readBytes(uri);
    if (!bytes || bytes.length > MANIFEST_MAX_BYTES) return undefined;
    const manifest = parseManifest(new TextDecoder('utf-8', { fatal: false }).decode(bytes), id);
    if (manifest) {
      if (this.manifests.size >= MANIFEST_CACHE) this.manifests.delete(this.manifests.keys().next().value!);
      this.manifests.set(id, manifest);
    }
    return manifest;
  }

  async has(id: string): Promise<boolean> {
    return (await this.serial(() => this.manifest(id))) !== undefined;
  }

  files(id: string): Promise<Map<string, TreeEntry>> {
    return this.serial(async () => {
      const manifest = await this.manifest(id);
      if (!manifest)
        throw new CheckpointError(`Checkpoint ${id} is not stored, or its record is damaged.`, 'failed');
      return manifestEntries(manifest);
    });
  }

  leftOut(id: string): Promise<LeftOutList> {
    return this.serial(async () => (await this.manifest(id))?.leftOut ?? { paths: [], complete: false });
  }

  /** A stored file's bytes, checked against their hash. */
  blob(oid: string): Promise<Uint8Array> {
    if (!isSha256(oid)) return Promise.reject(new CheckpointError('Bad object id', 'failed'));
    return this.serial(async () => {
      const uri = this.blobUri(oid);
      // No stored file is larger than the cap it was taken under: a larger blob is not read.
      const found = await stat(uri);
      if (found && found.size > (this.options.maxFileBytes ?? CHECKPOINT_MAX_FILE_BYTES))
        throw new CheckpointError('Its stored copy is larger than any file a checkpoint keeps.', 'failed');
      const bytes = await readBytes(uri);
      if (!bytes || (await sha256OfBytes(bytes)) !== oid)
        throw new CheckpointError('Its stored copy is missing or damaged.', 'failed');
      return bytes;
    });
  }

  /** The store's checkpoints, oldest first (a manifest's time is its file's). */
  list(): Promise<StoredCheckpoint[]> {
    return this.serial(() => this.listNow());
  }

  private async listNow(): Promise<StoredCheckpoint[]> {
    const dir = vscode.Uri.joinPath(this.options.dir, 'manifests');
    const entries = await listDir(dir);
    const out: StoredCheckpoint[] = [];
    for (const [name, type] of entries) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (type !== vscode.FileType.File || !isCheckpointId(id)) continue;
      const found = await stat(vscode.Uri.joinPath(dir, name));
      if (found) out.push({ id, createdAt: found.mtime });
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Drops checkpoints by age and the store's size (see `checkpointsToDrop`; the size is that of
   * the blobs the checkpoints hold), then deletes the blobs none holds (after a grace period).
   */
  prune(
    now: number,
    limits: PruneLimits = {
      maxAgeMs: CHECKPOINT_MAX_AGE_MS,
      maxStoreBytes: URI_STORE_MAX_BYTES,
      keepNewest: CHECKPOINT_KEEP_NEWEST,
    },
    keep?: ReadonlySet<string>,
  ): Promise<string[]> {
    return this.serial(async () => {
      const checkpoints = await this.listNow();
      const held = async (ids: readonly string[]) => {
        const sizes = new Map<string, number>();
        for (const id of ids)
          for (const f of (await this.manifest(id))?.files ?? []) sizes.set(f.oid, f.size);
        return sizes;
      };
      const before = await held(checkpoints.map((c) => c.id));
      const size = [...before.values()].reduce((sum, n) => sum + n, 0);
      const drop = checkpointsToDrop(checkpoints, now, size, limits, keep);
      for (const id of drop) {
        await deleteQuietly(this.manifestUri(id));
        this.manifests.delete(id);
      }
      if (drop.length || size > limits.maxStoreBytes) {
        const dropped = new Set(drop);
        const kept = await held(checkpoints.filter((c) => !dropped.has(c.id)).map((c) => c.id));
        await this.deleteBlobsOutside(kept, now);
      }
      return drop;
    });
  }

  private async deleteBlobsOutside(kept: ReadonlyMap<string, number>, now: number): Promise<void> {
    const root = vscode.Uri.joinPath(this.options.dir, 'blobs');
    const fans = await listDir(root);
    for (const [fan, type] of fans) {
      if (type !== vscode.FileType.Directory) continue;
      const dir = vscode.Uri.joinPath(root, fan);
      for (const [name] of await listDir(dir)) {
        if (kept.has(name)) continue;
        const uri = vscode.Uri.joinPath(dir, name);
        const found = await stat(uri);
        if (!found || now - found.mtime < GRACE_MS) continue;
        await deleteQuietly(uri);
        this.blobs.delete(name);
        if (this.hashed) for (const [path, f] of this.hashed) if (f.oid === name) this.hashed.delete(path);
      }
    }
  }
}

/**
 * A workspace folder as a restore writes it, through `workspace.fs`: a path is written only when
 * each folder on its way is a real folder (no link); a link in a file's place is replaced, never
 * written through. The browser's store keeps no modes or links: every file is written plain.
 */
export function uriWriter(folder: vscode.Uri): FolderWriter<vscode.Uri> {
  return {
    async locate(relative) {
      const parts = relative.split('/');
      if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\')) || inGitFolder(relative))
        return undefined;
      for (let i = 1; i < parts.length; i++) {
        const found = await stat(vscode.Uri.joinPath(folder, ...parts.slice(0, i)));
        if (!found) break;
        if (found.type !== vscode.FileType.Directory) return undefined;
      }
      return vscode.Uri.joinPath(folder, ...parts);
    },
    async kind(target) {
      const found = await stat(target);
      return found ? (found.type === vscode.FileType.Directory ? 'folder' : 'other') : undefined;
    },
    async write(target, _entry, bytes) {
      const found = await stat(target);
      if (found && found.type !== vscode.FileType.File) {
        // A folder that took a file's place goes only when nothing but empty folders is left in it.
        if (found.type === vscode.FileType.Directory) {
          if (!(await removeEmptyFolders(target)))
            throw new Error('it is a folder now, with files this checkpoint does not hold');
        } else await vscode.workspace.fs.delete(target, { useTrash: false });
      }
      await vscode.workspace.fs.writeFile(target, bytes);
    },
    async remove(target) {
      const found = await stat(target);
      if (found && found.type !== vscode.FileType.Directory)
        await vscode.workspace.fs.delete(target, { useTrash: false });
    },
  };
}

async function removeEmptyFolders(dir: vscode.Uri, depth = 0): Promise<boolean> {
  if (depth > 64) return false;
  const entries = await listDir(dir);
  if (entries.some(([, type]) => type !== vscode.FileType.Directory)) return false;
  for (const [name] of entries)
    if (!(await removeEmptyFolders(vscode.Uri.joinPath(dir, name), depth + 1))) return false;
  return vscode.workspace.fs.delete(dir, { recursive: false, useTrash: false }).then(
    () => true,
    () => false,
  );
}

async function readBytes(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
}

/** A folder's entries; empty when it cannot be read. */
async function listDir(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
  try {
    return await vscode.workspace.fs.readDirectory(uri);
  } catch {
    return [];
  }
}

async function deleteQuietly(uri: vscode.Uri): Promise<void> {
  try {
    await vscode.workspace.fs.delete(uri, { useTrash: false });
  } catch {
    // Gone already, or kept by another window: the next prune tries again.
  }
}

async function stat(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  try {
    return await vscode.workspace.fs.stat(uri);
  } catch {
    return undefined;
  }
}

/** The bytes' SHA-256 by the host's own (native) digest: files are up to the size cap. */
async function sha256OfBytes(bytes: Uint8Array): Promise<string> {
  // `workspace.fs` hands out plain ArrayBuffer-backed arrays, never shared memory. The web
  // worker's lib types ask for that; Node's do not, so the Node-typed lint finds this needless.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function timedOut(started: number): CheckpointError {
  return new CheckpointError(`The time budget ran out after ${Date.now() - started} ms.`, 'timeout');
}
