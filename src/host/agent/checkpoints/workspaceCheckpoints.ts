/**
 * Checkpoints on desktop: one git repository of our own per workspace folder on this disk (named
 * by a hash of its real path) in the extension's storage. The browser build has
 * `workspaceCheckpoints.web.ts`; what both do is in `workspaceCheckpointsBase.ts`.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { judgeFolder } from '../paths/folderRules';
import type { CheckpointStore, FolderWriter } from './checkpointStore';
import { diskWriter, GitCheckpointStore, storeNameFor } from './gitStore';
import { WorkspaceCheckpointsBase } from './workspaceCheckpointsBase';

export type { CheckpointOutcome, RestoreOutcome, WorkspaceCheckpointsDeps } from './workspaceCheckpointsBase';

export class WorkspaceCheckpoints extends WorkspaceCheckpointsBase<string> {
  private readonly stores = new Map<string, GitCheckpointStore>();

  protected reachable(folder: vscode.WorkspaceFolder): boolean {
    return folder.uri.scheme === 'file';
  }

  /** By the path as written and the real path (see `judgeFolder`). */
  protected async whyLeftOut(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
    return (await judgeFolder(folder.uri.fsPath)).why;
  }

  protected async storeFor(folder: vscode.WorkspaceFolder): Promise<CheckpointStore | undefined> {
    if (this.deps.storage.scheme !== 'file') return undefined;
    let real: string;
    try {
      real = await fs.realpath(folder.uri.fsPath);
    } catch {
      return undefined;
    }
    let store = this.stores.get(real);
    if (!store) {
      store = new GitCheckpointStore({
        dir: path.join(this.deps.storage.fsPath, 'checkpoints', storeNameFor(real)),
        workTree: real,
        secretPatterns: this.deps.secretPatterns,
        git: this.deps.git,
      });
      this.stores.set(real, store);
    }
    return store;
  }

  protected writer(folder: vscode.WorkspaceFolder): FolderWriter<string> {
    return diskWriter(folder.uri.fsPath);
  }
}
