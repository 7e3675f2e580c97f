import type * as vscode from 'vscode';
import { StorageKey } from '../../core/ids';

/**
 * Which jobs' results were saved into the workspace (workspace-relative paths, by job id). The
 * storage budget never removes these. Kept in global state; what is read there is parsed, and
 * anything malformed is dropped.
 */
export class SavedResults {
  constructor(private readonly state: vscode.Memento) {}

  private read(): Record<string, string[]> {
    const raw: unknown = this.state.get(StorageKey.mediaSaved);
    const result: Record<string, string[]> = {};
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return result;
    for (const [id, paths] of Object.entries(raw)) {
      if (Array.isArray(paths)) result[id] = paths.filter((p): p is string => typeof p === 'string');
    }
    return result;
  }

  has(jobId: string): boolean {
    return Object.hasOwn(this.read(), jobId);
  }

  paths(jobId: string): readonly string[] {
    return this.read()[jobId] ?? [];
  }

  async add(jobId: string, paths: readonly string[]): Promise<void> {
    const all = this.read();
    all[jobId] = [...new Set([...(all[jobId] ?? []), ...paths])];
    await this.state.update(StorageKey.mediaSaved, all);
  }

  /** Forgets jobs that no longer exist. */
  async keepOnly(jobIds: ReadonlySet<string>): Promise<void> {
    const all = this.read();
    const kept = Object.fromEntries(Object.entries(all).filter(([id]) => jobIds.has(id)));
    if (Object.keys(kept).length !== Object.keys(all).length)
      await this.state.update(StorageKey.mediaSaved, kept);
  }
}
