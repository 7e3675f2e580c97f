/**
 * A checkpoint as the browser build's store keeps it (no git there): one JSON manifest per
 * checkpoint naming each file's content by its SHA-256, beside the content-addressed blobs. Read
 * back as outside data: anything not exactly as written (a wrong type, a path that could leave
 * the folder, a repeated path, too many entries) rejects the whole manifest, since a checkpoint
 * missing one file would have a restore remove it.
 */
import { isCheckpointId, isStorablePath, leftOutText, parseLeftOut } from './checkpoints';
import type { LeftOutList, TreeEntry } from './checkpoints';

export const MANIFEST_FORMAT = 'gateway-checkpoint v1';
/** Most files one manifest holds; a snapshot leaves out (and lists as left out) the rest. */
export const MANIFEST_MAX_FILES = 50_000;
/** The largest manifest read, in bytes. */
export const MANIFEST_MAX_BYTES = 32 * 1024 * 1024;

/** One file of a manifest: its path, content hash, and what the disk said of it when hashed. */
export interface ManifestFile {
  path: string;
  /** SHA-256 of the bytes, lowercase hex. */
  oid: string;
  size: number;
  /** Modification time (epoch ms) when hashed; -1 when it must not be trusted to skip hashing. */
  mtime: number;
}

export interface CheckpointManifest {
  id: string;
  createdAt: number;
  files: ManifestFile[];
  leftOut: LeftOutList;
}

export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

/** The manifest's text. */
export function manifestText(manifest: {
  id: string;
  createdAt: number;
  files: readonly ManifestFile[];
  notCovered: readonly string[];
}): string {
  return JSON.stringify({
    format: MANIFEST_FORMAT,
    id: manifest.id,
    createdAt: manifest.createdAt,
    files: manifest.files.map((f) => [f.path, f.oid, f.size, f.mtime]),
    leftOut: leftOutText(manifest.notCovered),
  });
}

/**
 * A stored manifest's text, parsed as outside data; undefined for anything but a manifest of
 * checkpoint `id` exactly as `manifestText` writes it. Never throws.
 */
export function parseManifest(text: unknown, id: string): CheckpointManifest | undefined {
  if (typeof text !== 'string' || text.length > MANIFEST_MAX_BYTES || !isCheckpointId(id)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = value as Record<string, unknown>;
  if (raw.format !== MANIFEST_FORMAT || raw.id !== id) return undefined;
  const createdAt = raw.createdAt;
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt) || createdAt < 0) return undefined;
  if (!Array.isArray(raw.files) || raw.files.length > MANIFEST_MAX_FILES) return undefined;
  const files: ManifestFile[] = [];
  const seen = new Set<string>();
  for (const entry of raw.files as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 4) return undefined;
    const [path, oid, size, mtime] = entry as unknown[];
    if (typeof path !== 'string' || !isStorablePath(path) || seen.has(path) || !isSha256(oid))
      return undefined;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return undefined;
    if (typeof mtime !== 'number' || !Number.isFinite(mtime)) return undefined;
    seen.add(path);
    files.push({ path, oid, size, mtime });
  }
  const leftOut = parseLeftOut(raw.leftOut) ?? { paths: [], complete: false };
  return { id, createdAt, files, leftOut };
}

/** A manifest's files as a restore plan reads them (the browser's store keeps no modes). */
export function manifestEntries(manifest: CheckpointManifest): Map<string, TreeEntry> {
  return new Map(manifest.files.map((f) => [f.path, { mode: '100644', oid: f.oid }]));
}
