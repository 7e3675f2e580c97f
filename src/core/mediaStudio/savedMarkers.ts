/**
 * Which jobs' results were saved into the workspace (workspace-relative paths, by job id). The
 * storage budget never removes these. Kept in the extension's global state, which every window
 * shares: each window has its own copy of it, and a write replaces a key as a whole in every
 * window once it arrives there.
 *
 * So each job has a key of its own (`<prefix><sha256 of the id>`). With one key for all jobs,
 * a window that wrote its copy of the whole list (saving a result, forgetting a removed job)
 * dropped whatever another window had just added and this one had not heard of yet. And a
 * marker is forgotten only for a job known to be removed (after it was saved): never because a
 * window does not hold the job (yet), as before its jobs are loaded or while another window's
 * new job is on its way.
 *
 * Pure: the state comes in as a Memento-like `KeyValueState`; what is read there is parsed, and
 * anything malformed is ignored.
 */
import { isRecord } from '../../api/json';
import { StorageKey } from '../ids';
import { hashName } from '../storage/storeFiles';

/** The part of vscode.Memento this uses. */
export interface KeyValueState {
  keys(): readonly string[];
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

interface Marker {
  id: string;
  paths: string[];
  /** When the job was last saved (epoch ms); a removal after that forgets the marker. */
  at: number;
}

export class SavedResults {
  constructor(
    private readonly state: KeyValueState,
    private readonly now: () => number = Date.now,
  ) {}

  has(jobId: string): boolean {
    return this.marker(jobId) !== undefined;
  }

  paths(jobId: string): readonly string[] {
    return this.marker(jobId)?.paths ?? [];
  }

  async add(jobId: string, paths: readonly string[]): Promise<void> {
    const all = [...new Set([...this.paths(jobId), ...paths])];
    const marker: Marker = { id: jobId, paths: all, at: this.now() };
    await this.state.update(keyOf(jobId), marker);
  }

  /** Forgets one job's marker (its id now names another start, see MediaJobsFeature.generate). */
  async forget(jobId: string): Promise<void> {
    if (this.state.get(keyOf(jobId)) !== undefined) await this.state.update(keyOf(jobId), undefined);
    const legacy = this.legacy();
    if (legacy.has(jobId)) {
      legacy.delete(jobId);
      await this.writeLegacy(legacy);
    }
  }

  /**
   * Forgets the markers of jobs removed after they were saved. `removedAt` says when a job was
   * removed, if this window knows of it; a job it does not know of keeps its marker. Markers
   * earlier versions kept under one key are moved to keys of their own on the way.
   */
  async forgetRemoved(removedAt: (jobId: string) => number | undefined): Promise<void> {
    const isGone = (marker: Marker) => {
      const at = removedAt(marker.id);
      return at !== undefined && at >= marker.at;
    };
    const legacy = this.legacy();
    if (this.state.get(StorageKey.mediaSaved) !== undefined) {
      for (const [id, paths] of legacy) {
        const marker: Marker = { id, paths: [...new Set([...this.paths(id), ...paths])], at: 0 };
        if (!isGone(marker)) await this.state.update(keyOf(id), marker);
      }
      await this.state.update(StorageKey.mediaSaved, undefined);
    }
    for (const key of this.state.keys()) {
      if (!key.startsWith(StorageKey.mediaSavedPrefix)) continue;
      const marker = parseMarker(this.state.get(key));
      if (!marker || keyOf(marker.id) !== key || isGone(marker)) await this.state.update(key, undefined);
    }
  }

  private marker(jobId: string): Marker | undefined {
    const marker = parseMarker(this.state.get(keyOf(jobId)));
    if (marker?.id === jobId) return marker;
    const paths = this.legacy().get(jobId);
    return paths ? { id: jobId, paths, at: 0 } : undefined;
  }

  /** What earlier versions kept: one object of id → paths under one key. */
  private legacy(): Map<string, string[]> {
    const raw: unknown = this.state.get(StorageKey.mediaSaved);
    const result = new Map<string, string[]>();
    if (!isRecord(raw)) return result;
    for (const [id, paths] of Object.entries(raw)) if (Array.isArray(paths)) result.set(id, strings(paths));
    return result;
  }

  private async writeLegacy(legacy: Map<string, string[]>): Promise<void> {
    await this.state.update(StorageKey.mediaSaved, legacy.size ? Object.fromEntries(legacy) : undefined);
  }
}

function keyOf(jobId: string): string {
  return `${StorageKey.mediaSavedPrefix}${hashName(jobId)}`;
}

function parseMarker(value: unknown): Marker | undefined {
  if (!isRecord(value)) return undefined;
  const { id, paths, at } = value;
  if (typeof id !== 'string' || id === '' || !Array.isArray(paths)) return undefined;
  return { id, paths: strings(paths), at: typeof at === 'number' && Number.isFinite(at) ? at : 0 };
}

function strings(values: readonly unknown[]): string[] {
  return values.filter((p): p is string => typeof p === 'string');
}
