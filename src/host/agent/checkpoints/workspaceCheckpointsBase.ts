/**
 * Checkpoints of every workspace folder, whatever store keeps them: one store per folder, one id
 * across the folders of one moment; *Restore to here* shows which files change, asks, snapshots
 * the state of now first (its Redo), and writes back through the folder's `FolderWriter`. The
 * desktop build (`workspaceCheckpoints.ts`) keeps them in git, the browser build
 * (`workspaceCheckpoints.web.ts`) in files under the extension's storage; this file is shared.
 */
import * as vscode from 'vscode';
import {
  CHECKPOINT_BUDGET_MS,
  CHECKPOINT_MAX_FILE_BYTES,
  describePlan,
  newCheckpointId,
  planSize,
  restorePlan,
} from '../../../core/agent/checkpoints';
import type { RestorePlan, TreeEntry } from '../../../core/agent/checkpoints';
import type { Logger } from '../../log/logger';
import { notify } from '../../notify';
import { applyPlanWith, CheckpointError } from './checkpointStore';
import type { CheckpointStore, FolderWriter } from './checkpointStore';

/** What taking a checkpoint came to. */
export type CheckpointOutcome =
  | { ok: true; id: string; ms: number; files: number; leftOut: { secret: number; large: number } }
  | { ok: false; reason: string; kind: CheckpointError['kind'] | 'noFolder' };

export type RestoreOutcome =
  { done: true; redoId: string; conversation: boolean } | { done: false; reason?: string };

/** A store is pruned at most this often (ms). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** How long a restore waits for the snapshot of now (its Redo) before it gives up. */
const REDO_BUDGET_MS = 60_000;

export interface WorkspaceCheckpointsDeps {
  /** Where the stores live: a folder of the extension's storage (`globalStorageUri`). */
  storage: vscode.Uri;
  /** The secrets list in force (DEFAULT_EXCLUDE plus the user's additions): never stored. */
  secretPatterns: () => readonly string[];
  logger: Pick<Logger, 'info' | 'warn'>;
  /** The git executable (tests may point elsewhere; desktop only). */
  git?: string;
  budgetMs?: number;
  /** The workspace's folders (VS Code's by default; tests name others). */
  folders?: () => readonly vscode.WorkspaceFolder[];
}

/** The parts of checkpoints that differ by build: which folders, which store, how files are written. */
export abstract class WorkspaceCheckpointsBase<T> {
  private readonly prunedAt = new Map<string, number>();
  /** Folders already logged as left out, so each is said once. */
  private readonly toldLeftOut = new Set<string>();

  constructor(protected readonly deps: WorkspaceCheckpointsDeps) {}

  get budgetMs(): number {
    return this.deps.budgetMs ?? CHECKPOINT_BUDGET_MS;
  }

  /** Whether this build can keep checkpoints of the folder at all (a folder on its file system). */
  protected abstract reachable(folder: vscode.WorkspaceFolder): boolean;
  /** Why the agent's tools' rule leaves the folder out (the home folder, `~/.aws`, …), if it does. */
  protected abstract whyLeftOut(folder: vscode.WorkspaceFolder): Promise<string | undefined>;
  /** The folder's store, or undefined when it cannot be read. */
  protected abstract storeFor(folder: vscode.WorkspaceFolder): Promise<CheckpointStore | undefined>;
  /** How a restore writes the folder's files. */
  protected abstract writer(folder: vscode.WorkspaceFolder): FolderWriter<T>;

  /**
   * The folders checkpoints cover: those the agent's tools use. A folder too broad by the tools'
   * own rule is left out, so its files are never copied here.
   */
  private async folders(): Promise<vscode.WorkspaceFolder[]> {
    const all = (this.deps.folders?.() ?? vscode.workspace.workspaceFolders ?? []).filter((f) =>
      this.reachable(f),
    );
    const judged = await Promise.all(all.map((f) => this.whyLeftOut(f)));
    return all.filter((folder, i) => {
      const why = judged[i];
      const key = folder.uri.toString();
      if (why && !this.toldLeftOut.has(key)) {
        this.toldLeftOut.add(key);
        this.deps.logger.info(`Checkpoints leave out the workspace folder ${folder.name}: it is ${why}.`);
      }
      return !why;
    });
  }

  /**
   * Snapshots every folder under a new id, giving up after `budgetMs` (what was stored by then is
   * kept; the next snapshot starts from there).
   */
  async take(
    message: string,
    budgetMs = this.budgetMs,
    id = newCheckpointId(Date.now()),
  ): Promise<CheckpointOutcome> {
    const folders = await this.folders();
    if (!folders.length)
      return {
        ok: false,
        kind: 'noFolder',
        reason:
          'No workspace folder that checkpoints may copy is open (the home folder, settings folders like ~/.aws and system folders never are).',
      };
    const deadline = Date.now() + budgetMs;
    const started = Date.now();
    const leftOut = { secret: 0, large: 0 };
    let files = 0;
    for (const folder of folders) {
      const store = await this.storeFor(folder);
      if (!store) return { ok: false, kind: 'noFolder', reason: `${folder.name} could not be read.` };
      try {
        const result = await store.snapshot(id, deadline, message);
        files += result.files;
        leftOut.secret += result.leftOut.secret;
        leftOut.large += result.leftOut.large;
      } catch (error) {
        const kind = error instanceof CheckpointError ? error.kind : 'failed';
        const reason =
          kind === 'noGit'
            ? 'Git was not found on this computer, so there are no checkpoints; install Git to restore files to earlier messages.'
            : kind === 'refused'
              ? (error as Error).message
              : kind === 'timeout'
                ? `The snapshot of ${folder.name} took longer than its ${Math.round(budgetMs / 1000)} s budget, so this message has no checkpoint.`
                : `The snapshot of ${folder.name} failed: ${error instanceof Error ? error.message : String(error)}`;
        this.deps.logger.warn(`Checkpoint ${id}: ${reason}`);
        return { ok: false, kind, reason };
      }
      void this.pruneLater(store);
    }
    const ms = Date.now() - started;
    this.deps.logger.info(
      `Checkpoint ${id}: ${files} files in ${ms} ms (${leftOut.secret} possible secrets and ${leftOut.large} files over ${CHECKPOINT_MAX_FILE_BYTES / 1024 / 1024} MB left out).`,
    );
    return { ok: true, id, ms, files, leftOut };
  }

  private async pruneLater(store: CheckpointStore): Promise<void> {
    const last = this.prunedAt.get(store.dir) ?? 0;
    if (Date.now() - last < PRUNE_EVERY_MS) return;
    this.prunedAt.set(store.dir, Date.now());
    try {
      const dropped = await store.prune(Date.now());
      if (dropped.length) this.deps.logger.info(`Pruned ${dropped.length} old checkpoints of ${store.dir}.`);
    } catch (error) {
      this.deps.logger.warn(`Pruning checkpoints failed: ${String(error)}`);
    }
  }

  /**
   * Puts the workspace back to checkpoint `id`, after showing which files change and asking.
   * The state of now is snapshotted first (the returned `redoId`), so nothing is lost and Redo
   * can go forward again. The user's unsaved editors are never replaced without asking.
   */
  async restore(id: string, options: { offerConversation: boolean; redo: boolean }): Promise<RestoreOutcome> {
    const targets: { folder: vscode.WorkspaceFolder; store: CheckpointStore }[] = [];
    const folders = await this.folders();
    for (const folder of folders) {
      const store = await this.storeFor(folder);
      if (store && (await store.has(id))) targets.push({ folder, store });
    }
    if (!targets.length)
      return {
        done: false,
        reason:
          'This checkpoint is not stored for the folders open now (it was pruned, or the chat ran in another workspace).',
      };
    const redoId = newCheckpointId(Date.now());
    const now = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Gateway AI: snapshotting the workspace…' },
      () => this.take(options.redo ? 'before redo' : 'before restore', REDO_BUDGET_MS, redoId),
    );
    if (!now.ok)
      return {
        done: false,
        reason: `Nothing was changed: the current files could not be snapshotted first, so a restore could not be taken back. ${now.reason}`,
      };
    const plans: {
      folder: vscode.WorkspaceFolder;
      store: CheckpointStore;
      plan: RestorePlan;
      target: Map<string, TreeEntry>;
    }[] = [];
    for (const { folder, store } of targets) {
      const target = await store.files(id);
      const plan = restorePlan(target, await store.files(redoId), await store.leftOut(id));
      plans.push({ folder, store, target, plan });
    }
    const total = plans.reduce((sum, p) => sum + planSize(p.plan), 0);
    const several = folders.length > 1;
    const lines = plans.flatMap((p) => describePlan(p.plan, several ? p.folder.name : undefined));
    const restoreFiles = options.redo ? 'Redo' : 'Restore Files';
    const withChat = 'Restore Files and Conversation';
    const actions = options.offerConversation ? [restoreFiles, withChat] : [restoreFiles];
    const note = options.redo
      ? 'This puts back the files as they were before you restored.'
      : 'Redo puts them forward again. Files .gitignore leaves out, files over 5 MB and possible secrets are left as they are (never changed or removed), and what commands did outside the workspace (network, databases, other folders) is not restored.';
    const question =
      total === 0
        ? 'No file differs from this checkpoint.'
        : `${options.redo ? 'Redo' : 'Restore'} ${total} ${total === 1 ? 'file' : 'files'}${options.redo ? '' : ' to how they were before this message'}?`;
    if (total === 0 && !options.offerConversation)
      return { done: false, reason: 'No file differs from this checkpoint.' };
    const answer = await notify.choose(
      `Gateway AI: ${question}`,
      [...lines, '', note].join('\n'),
      ...(total === 0 ? [withChat] : actions),
    );
    if (answer === undefined) return { done: false };
    const conversation = answer === withChat;

    const skip = await this.askAboutUnsaved(plans);
    if (skip === undefined) return { done: false };
    const failures: string[] = [];
    for (const { folder, store, plan, target } of plans)
      failures.push(
        ...(await applyPlanWith(this.writer(folder), {
          folderName: folder.name,
          plan,
          target,
          blob: (oid) => store.blob(oid),
          skip: (relative) => skip.has(documentUri(folder, relative).toString()),
          written: (relative, _located, entry, bytes) =>
            entry.mode === '120000'
              ? Promise.resolve()
              : this.syncOpenEditor(documentUri(folder, relative), bytes),
        })),
      );
    if (failures.length)
      void notify.warn(
        `Gateway AI: ${failures.length} ${failures.length === 1 ? 'file was' : 'files were'} not restored: ${failures.slice(0, 10).join(', ')}. Redo puts the rest forward again.`,
      );
    return { done: true, redoId, conversation };
  }

  /**
   * Files of the plan with unsaved changes in an editor: the user says whether to replace them.
   * Returns the documents (URI strings) to leave alone, or undefined when the user cancelled.
   */
  private async askAboutUnsaved(
    plans: { folder: vscode.WorkspaceFolder; plan: RestorePlan }[],
  ): Promise<Set<string> | undefined> {
    const dirty = new Map<string, string>();
    for (const { folder, plan } of plans)
      for (const relative of [...plan.changed, ...plan.recreated, ...plan.removed]) {
        const uri = documentUri(folder, relative).toString();
        if (vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.toString() === uri))
          dirty.set(uri, relative);
      }
    if (!dirty.size) return new Set();
    const replace = 'Replace Unsaved Changes';
    const keep = 'Keep Them (Skip Those Files)';
    const answer = await notify.choose(
      `Gateway AI: ${dirty.size === 1 ? 'a file has' : `${dirty.size} files have`} unsaved changes in the editor.`,
      [...dirty.values()].join('\n'),
      replace,
      keep,
    );
    if (answer === replace) return new Set();
    if (answer === keep) return new Set(dirty.keys());
    return undefined;
  }

  /** An editor with unsaved changes the user agreed to replace takes the restored text. */
  private async syncOpenEditor(uri: vscode.Uri, bytes: Uint8Array): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc?.isDirty) return;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(
      doc.uri,
      new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
      new TextDecoder().decode(bytes),
    );
    if (await vscode.workspace.applyEdit(edit)) await doc.save();
  }
}

/** The URI an editor shows a folder's file under. */
function documentUri(folder: vscode.WorkspaceFolder, relative: string): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, ...relative.split('/'));
}
