/**
 * Checkpoints in the browser, where there is no git process: each workspace folder's snapshots
 * are kept with `vscode.workspace.fs` in the extension's storage (see `uriStore.ts`). What a
 * checkpoint takes, what a restore changes and asks are as on desktop (`workspaceCheckpointsBase`).
 */
import * as vscode from 'vscode';
import { broadFolderWhy } from '../../../core/agent/workspacePaths';
import type { CheckpointStore, FolderWriter } from './checkpointStore';
import { UriCheckpointStore, uriStoreNameFor, uriWriter } from './uriStore';
import { WorkspaceCheckpointsBase } from './workspaceCheckpointsBase';

export type { CheckpointOutcome, RestoreOutcome, WorkspaceCheckpointsDeps } from './workspaceCheckpointsBase';

export class WorkspaceCheckpoints extends WorkspaceCheckpointsBase<vscode.Uri> {
  private readonly stores = new Map<string, UriCheckpointStore>();

  /** Any folder the workspace's file system serves (`vscode-vfs`, `memfs`, a remote's `file`). */
  protected reachable(): boolean {
    return true;
  }

  /**
   * The tools' rule as far as a browser can judge it: a folder on a disk (`file`) that is its root
   * or a system folder is left out. There is no home folder to compare with, and no real path:
   * a folder that is a link is refused by the store when it snapshots.
   */
  protected whyLeftOut(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
    return Promise.resolve(
      folder.uri.scheme === 'file' ? broadFolderWhy([folder.uri.path], ['']) : undefined,
    );
  }

  protected storeFor(folder: vscode.WorkspaceFolder): Promise<CheckpointStore | undefined> {
    const key = folder.uri.toString();
    let store = this.stores.get(key);
    if (!store) {
      store = new UriCheckpointStore({
        dir: vscode.Uri.joinPath(this.deps.storage, 'checkpoint-files', uriStoreNameFor(folder.uri)),
        folder: folder.uri,
        secretPatterns: this.deps.secretPatterns,
      });
      this.stores.set(key, store);
    }
    return Promise.resolve(store);
  }

  protected writer(folder: vscode.WorkspaceFolder): FolderWriter<vscode.Uri> {
    return uriWriter(folder.uri);
  }
}
