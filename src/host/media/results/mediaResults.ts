import * as vscode from 'vscode';
import { mimeFromUrl } from '../../../api/media';
import { Setting, SettingSection, UiId } from '../../../core/ids';
import type { MediaJob } from '../../../core/media/mediaJob';
import { parseDraggedJobs } from '../../../core/protocol/mediaDrag';
import {
  dataUrl,
  referenceFilesOf,
  referenceParameterFor,
  withReference,
} from '../../../core/mediaStudio/referenceImage';
import {
  candidateNames,
  cleanRelativeFolder,
  insertionText,
  relativePosix,
  symlinkOnTheWay,
} from '../../../core/mediaStudio/resultNames';
import type { PathKind } from '../../../core/mediaStudio/resultNames';
import {
  BudgetNotice,
  budgetWarning,
  formatBytes,
  planCleanup,
} from '../../../core/mediaStudio/storageBudget';
import type { CleanupPlan } from '../../../core/mediaStudio/storageBudget';
import { kindOf } from '../../../core/mediaStudio/resultItems';
import { thumbnailFileName } from '../../../core/media/mediaFiles';
import { Disposable } from '../../../core/util/lifecycle';
import { fileExists } from '../../storage/storageFolder';
import type { MediaJobs, MediaJobsDeps, PreviewItem } from '../jobs/mediaJobs';
import { notify } from '../../notify';
import { SavedResults } from './savedResults';
import type { MediaStudioActions, SavedFile } from './studioActions';
import { bytesToBase64 } from '../../../api/base64';

const MB = 1024 * 1024;
/**
 * How long a thumbnail or reference image without a job is left alone before it is deleted
 * (removeOrphans): another window may have made it for a job this window has not heard of yet.
 */
const ORPHAN_AGE_MS = 60 * 60_000;

/**
 * Using results: save them into the workspace (never overwriting), insert a reference at the
 * cursor, drag them into an editor, re-run and vary jobs, keep extension storage under its cap.
 * The studio (../mediaStudio.ts) adds the gallery, the agents' tool and the commands on top.
 */
export class MediaResults extends Disposable implements MediaStudioActions {
  readonly saved: SavedResults;
  private lastTextEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private budgetTimer: ReturnType<typeof setTimeout> | undefined;
  private budgetRun: Promise<unknown> = Promise.resolve();
  private saving: Promise<unknown> = Promise.resolve();
  /** Files that drops will create once VS Code applies their edit, by URI. */
  private readonly dropped = new Map<string, { jobId: string; relativePath: string }>();
  /** "The limit cannot be met" is said once, not after every cleanup. */
  private readonly budgetNotice = new BudgetNotice();

  constructor(
    readonly media: MediaJobs,
    protected readonly deps: MediaJobsDeps,
  ) {
    super();
    this.saved = new SavedResults(deps.context.globalState);
    // A command run from the gallery (a webview) has no active text editor: use the last one.
    this.register(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastTextEditor = editor;
      }),
    );
    this.register(
      media.model.onDidChange((change) => {
        if (change.finished.length) this.scheduleBudget();
      }),
    );
    this.register(
      deps.settings.onDidChange((change) => {
        if (change.affects(SettingSection.media)) this.scheduleBudget();
      }),
    );
    this.register({ dispose: () => this.budgetTimer && clearTimeout(this.budgetTimer) });
    this.register(
      vscode.workspace.onDidCreateFiles((e) => {
        if (this.dropped.size) void this.droppedFilesCreated(e.files);
      }),
    );
    this.register(
      vscode.languages.registerDocumentDropEditProvider(
        [{ scheme: 'file' }, { scheme: 'untitled' }],
        {
          provideDocumentDropEdits: (document, _position, dataTransfer, token) =>
            this.dropEdit(document, dataTransfer, token),
        },
        {
          dropMimeTypes: [UiId.mediaJobDrag],
          providedDropEditKinds: [vscode.DocumentDropOrPasteEditKind.Empty.append('gateway', 'media')],
        },
      ),
    );
  }

  /** The workspace folder results are saved under, or undefined without a workspace. */
  private workspaceRoot(): vscode.Uri | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri;
  }

  /**
   * Copies a completed job's results into the workspace folder from settings (or `folder`),
   * under names from the prompt that exist nowhere yet: nothing is ever overwritten.
   */
  async save(job: MediaJob, folder?: string, token?: vscode.CancellationToken): Promise<SavedFile[]> {
    if (job.status !== 'completed') throw new Error(`This job is ${job.status}; there is no result to save.`);
    const root = this.workspaceRoot();
    if (!root) throw new Error('Open a folder first: results are saved into the workspace.');
    // Downloads first, each save on its own: a slow one holds up no other save.
    const items = await this.media.resultItems(job, token);
    if (token?.isCancellationRequested) throw new vscode.CancellationError();
    // Then naming and writing, one save at a time in this window: two saves of one prompt (a
    // drop while Insert runs) would otherwise both find one name free, and the second write
    // would replace the first.
    const run = this.saving.then(() => this.write(job, items, root, folder));
    this.saving = run.catch(() => undefined);
    return run;
  }

  private async write(
    job: MediaJob,
    items: readonly PreviewItem[],
    root: vscode.Uri,
    folder: string | undefined,
  ): Promise<SavedFile[]> {
    const target = await this.saveFolder(root, folder);
    await vscode.workspace.fs.createDirectory(target);
    const saved: SavedFile[] = [];
    const problems: string[] = [];
    for (const [index, item] of items.entries()) {
      const suffix = items.length > 1 ? String(index + 1) : '';
      if (item.file) {
        const uri = await copyUnique(
          item.file,
          target,
          candidateNames(job.prompt, extensionOf(item.file), suffix),
        );
        saved.push({ uri, relativePath: relative(root, uri), kind: item.kind });
      } else if (item.kind === 'text' && item.text !== undefined) {
        const uri = await writeUnique(item.text, target, candidateNames(job.prompt, 'txt', suffix));
        saved.push({ uri, relativePath: relative(root, uri), kind: 'text' });
      } else if (item.problem) {
        problems.push(item.problem);
      }
    }
    if (!saved.length) throw new Error(problems[0] ?? 'This job has no result to save.');
    await this.saved.add(
      job.id,
      saved.map((file) => file.relativePath),
    );
    return saved;
  }

  /** The folder results go into, refused when it is, or passes through, a symbolic link. */
  private async saveFolder(root: vscode.Uri, folder: string | undefined): Promise<vscode.Uri> {
    const relativeFolder = cleanRelativeFolder(folder ?? this.deps.settings.current.media.saveFolder);
    const link = await symlinkOnTheWay(relativeFolder, (path) => pathKind(vscode.Uri.joinPath(root, path)));
    if (link)
      throw new Error(
        `The save folder "${link}" is a symbolic link; results are saved only into folders of the workspace itself.`,
      );
    return relativeFolder ? vscode.Uri.joinPath(root, relativeFolder) : root;
  }

  /**
   * The files a drop would create, named as a save names them, with their bytes, and nothing
   * written: the drop's edit creates them when VS Code applies it, so a drop that is cancelled,
   * replaced by another drop option or undone leaves nothing behind.
   */
  private async planDrop(
    job: MediaJob,
    token: vscode.CancellationToken | undefined,
    taken: Set<string>,
  ): Promise<Array<SavedFile & { contents: Uint8Array }>> {
    if (job.status !== 'completed') throw new Error(`This job is ${job.status}; there is no result to save.`);
    const root = this.workspaceRoot();
    if (!root) throw new Error('Open a folder first: results are saved into the workspace.');
    const items = await this.media.resultItems(job, token);
    if (token?.isCancellationRequested) throw new vscode.CancellationError();
    const target = await this.saveFolder(root, undefined);
    const planned: Array<SavedFile & { contents: Uint8Array }> = [];
    const problems: string[] = [];
    for (const [index, item] of items.entries()) {
      const suffix = items.length > 1 ? String(index + 1) : '';
      let contents: Uint8Array | undefined;
      let names: Iterator<string> | undefined;
      if (item.file) {
        contents = await vscode.workspace.fs.readFile(item.file);
        names = candidateNames(job.prompt, extensionOf(item.file), suffix);
      } else if (item.kind === 'text' && item.text !== undefined) {
        contents = new TextEncoder().encode(item.text);
        names = candidateNames(job.prompt, 'txt', suffix);
      } else if (item.problem) problems.push(item.problem);
      if (!contents || !names) continue;
      const uri = await freeUri(target, names, taken);
      taken.add(uri.toString());
      planned.push({
        uri,
        relativePath: relative(root, uri),
        kind: item.file ? item.kind : 'text',
        contents,
      });
    }
    if (!planned.length) throw new Error(problems[0] ?? 'This job has no result to save.');
    return planned;
  }

  /**
   * Saves the job's results and inserts a reference at the cursor of the last text editor: a
   * Markdown image or link in Markdown, the relative path in other languages.
   */
  async insert(job: MediaJob): Promise<SavedFile[]> {
    const editor = this.targetEditor();
    if (!editor) throw new Error('Open a text editor to insert the result into.');
    const saved = await this.save(job);
    const text = this.referenceText(editor.document, job, saved);
    await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    const done = await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, text);
    });
    if (!done) throw new Error('The editor did not accept the insertion.');
    return saved;
  }

  private targetEditor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active) return active;
    const last = this.lastTextEditor;
    return last && vscode.window.visibleTextEditors.includes(last)
      ? last
      : vscode.window.visibleTextEditors[0];
  }

  private referenceText(document: vscode.TextDocument, job: MediaJob, saved: readonly SavedFile[]): string {
    const root = this.workspaceRoot();
    const fromDir =
      document.uri.scheme === 'file' || document.uri.scheme === root?.scheme
        ? document.uri.path.slice(0, document.uri.path.lastIndexOf('/'))
        : (root?.path ?? '/');
    return saved
      .map((file) =>
        insertionText({
          languageId: document.languageId,
          relativePath: document.isUntitled ? file.relativePath : relativePosix(fromDir, file.uri.path),
          kind: file.kind,
          prompt: job.prompt,
        }),
      )
      .join('\n');
  }

  /**
   * A drop of results into an editor, from the Media Jobs tree or the gallery: insert their
   * references, and create their files with the same edit. Nothing is written until VS Code
   * applies the edit (then the editor's undo takes the files back too); the job counts as saved
   * once its files are created.
   */
  async dropEdit(
    document: vscode.TextDocument,
    dataTransfer: vscode.DataTransfer,
    token?: vscode.CancellationToken,
  ): Promise<vscode.DocumentDropEdit | undefined> {
    const ids = parseDraggedJobs(await dataTransfer.get(UiId.mediaJobDrag)?.asString());
    const parts: string[] = [];
    const files = new vscode.WorkspaceEdit();
    const taken = new Set<string>();
    // One message per reason, not one per result: a drop of many results without a workspace
    // folder says so once.
    const problems = new Set<string>();
    for (const id of ids) {
      // A drop VS Code gave up on (the user moved on) creates nothing.
      if (token?.isCancellationRequested) return undefined;
      const job = this.media.model.get(id);
      if (job?.status !== 'completed') continue;
      try {
        const planned = await this.planDrop(job, token, taken);
        for (const file of planned) {
          files.createFile(file.uri, { contents: file.contents, overwrite: false, ignoreIfExists: false });
          this.dropped.set(file.uri.toString(), { jobId: job.id, relativePath: file.relativePath });
        }
        parts.push(this.referenceText(document, job, planned));
      } catch (error) {
        if (error instanceof vscode.CancellationError) return undefined;
        problems.add((error as Error).message);
      }
    }
    for (const problem of problems) void notify.error(`Gateway AI: could not save the result: ${problem}`);
    if (!parts.length) return undefined;
    const edit = new vscode.DocumentDropEdit(parts.join('\n'));
    edit.additionalEdit = files;
    return edit;
  }

  /** A dropped result's file was created by the applied drop: the job counts as saved. */
  private async droppedFilesCreated(uris: readonly vscode.Uri[]): Promise<void> {
    for (const uri of uris) {
      const drop = this.dropped.get(uri.toString());
      if (!drop) continue;
      this.dropped.delete(uri.toString());
      await this.saved.add(drop.jobId, [drop.relativePath]);
    }
  }

  /** Starts the same job again: same prompt, model and parameters. */
  rerun(job: MediaJob): Promise<string> {
    return this.media.generate(
      { prompt: job.prompt, model: job.model, parameters: job.parameters ?? {} },
      { storedParameters: true },
    );
  }

  /** Starts a job with the same prompt and this job's (first image) result as reference image. */
  async variation(job: MediaJob, prompt = job.prompt): Promise<string> {
    const items = await this.media.resultItems(job);
    const image = items.find((item) => item.kind === 'image' && item.file);
    if (!image?.file) throw new Error('Only a completed image result can be the reference of a variation.');
    const settings = this.deps.settings.current.media;
    const reference =
      settings.referenceImageAs === 'url' && image.sourceUrl && /^https?:/i.test(image.sourceUrl)
        ? image.sourceUrl
        : await fileDataUrl(image.file, image.mimeType);
    return this.generateWithReference(job.model, prompt, job.parameters, reference, true);
  }

  /** Starts a job with a workspace image as reference, with the media model from settings. */
  async fromImage(file: vscode.Uri, prompt: string): Promise<string> {
    const settings = this.deps.settings.current.media;
    return this.generateWithReference(settings.model, prompt, settings.parameters, await fileDataUrl(file));
  }

  private generateWithReference(
    model: string,
    prompt: string,
    parameters: Record<string, unknown> | undefined,
    reference: string,
    storedParameters = false,
  ): Promise<string> {
    const name = referenceParameterFor(model, this.deps.settings.current.media.referenceImageParameter);
    return this.media.generate(
      { prompt, model, parameters: withReference(parameters, name, reference) },
      { storedParameters },
    );
  }

  /** The files a job's results (and thumbnail) take in extension storage. */
  storedFiles(job: MediaJob): vscode.Uri[] {
    const files: vscode.Uri[] = [];
    job.outputs.forEach((output, index) => {
      if (output.kind !== 'url') return;
      if (output.url.startsWith('file:')) files.push(vscode.Uri.parse(output.url));
      else files.push(this.media.store.fileFor(job.id, index, output.mimeType ?? mimeFromUrl(output.url)));
    });
    files.push(this.thumbnailFile(job.id));
    return files;
  }

  /** One thumbnail per job and one job per thumbnail: named by the id's hash, like results. */
  thumbnailFile(jobId: string): vscode.Uri {
    return vscode.Uri.joinPath(this.thumbnailFolder, thumbnailFileName(jobId));
  }

  /**
   * Forgets what a job id held here besides its results: its thumbnail and its saved mark. For
   * an id the gateway gave again (MediaJobsFeature.generate): the new job has neither yet.
   */
  async forgetStart(jobId: string): Promise<void> {
    await vscode.workspace.fs.delete(this.thumbnailFile(jobId)).then(undefined, () => undefined);
    await this.saved.forget(jobId);
  }

  get thumbnailFolder(): vscode.Uri {
    return vscode.Uri.joinPath(this.deps.context.globalStorageUri, 'media-thumbnails');
  }

  private scheduleBudget(): void {
    if (this.budgetTimer) clearTimeout(this.budgetTimer);
    // After a finished job's result has been moved into a file.
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = undefined;
      void this.enforceBudget().catch((error: unknown) =>
        this.deps.logger.warn(`Media storage cleanup failed: ${(error as Error).message}`),
      );
    }, 1000);
  }

  /**
   * Keeps the results in extension storage under `gateway.media.storageLimitMB`: the oldest
   * results not saved to the workspace go first, and the user is told. Saved ones stay, and so
   * does the newest result (planCleanup); when that leaves storage over the limit, the user is
   * told once.
   */
  enforceBudget(): Promise<CleanupPlan> {
    // One pass at a time: two passes measuring at once would each remove what the other freed.
    const run = this.budgetRun.then(() => this.cleanUp());
    this.budgetRun = run.catch(() => undefined);
    return run;
  }

  private async cleanUp(): Promise<CleanupPlan> {
    // Before the stored jobs are in the model, a file without a job there may well have one.
    const loaded = await this.media.whenLoaded();
    const limitMB = this.deps.settings.current.media.storageLimitMB;
    const jobs = this.media.model.all().filter((job) => job.status === 'completed');
    const results = await Promise.all(
      jobs.map(async (job) => ({
        jobId: job.id,
        bytes: (await Promise.all(this.storedFiles(job).map(sizeOf))).reduce((a, b) => a + b, 0),
        finishedAt: job.finishedAt ?? job.createdAt,
        saved: this.saved.has(job.id),
      })),
    );
    const plan = planCleanup(results, limitMB * MB);
    for (const id of plan.remove) {
      await this.media.remove(id);
      await vscode.workspace.fs.delete(this.thumbnailFile(id)).then(undefined, () => undefined);
    }
    if (plan.remove.length) {
      this.deps.logger.info(
        `Media storage over ${limitMB} MB: removed ${plan.remove.length} unsaved result(s)`,
      );
    }
    const warning = this.budgetNotice.shouldWarn(plan, limitMB * MB)
      ? budgetWarning(plan, limitMB)
      : undefined;
    if (warning) {
      this.deps.logger.warn(warning);
      this.offerLimitChange(notify.warn(`Gateway AI: ${warning}`, 'Change Limit'));
    } else if (plan.remove.length && !plan.stillOver) {
      this.offerLimitChange(
        notify.info(
          `Gateway AI: media results took more than the ${limitMB} MB allowed, so the ${plan.remove.length} oldest not saved to the workspace were removed (${formatBytes(plan.freedBytes)}).`,
          'Change Limit',
        ),
      );
    }
    // Only the marks of jobs known to be removed: a job this window does not hold (yet) keeps its.
    await this.saved.forgetRemoved((id) => this.media.store.removedAt(id));
    if (loaded) await this.removeOrphans();
    return plan;
  }

  private offerLimitChange(choice: Thenable<string | undefined>): void {
    void choice.then((picked) => {
      if (picked)
        void vscode.commands.executeCommand('workbench.action.openSettings', Setting.mediaStorageLimitMB);
    });
  }

  /**
   * Deletes cached thumbnails and reference images no job has any more: those of jobs removed in
   * another window, and thumbnails named the way before they were named by the job id's hash.
   * Only files untouched for an hour: another window may have made one a moment ago for a job
   * this window has not heard of yet. Thumbnails are a cache (the gallery draws a missing one
   * again); a reference image is needed only to start its job again.
   */
  private async removeOrphans(now = Date.now()): Promise<void> {
    const jobs = this.media.model.all();
    const thumbnails = new Set(jobs.map((job) => thumbnailFileName(job.id)));
    const references = new Set(jobs.flatMap((job) => referenceFilesOf(job.parameters)));
    const removed =
      (await removeOldFilesExcept(this.thumbnailFolder, thumbnails, now)) +
      (await removeOldFilesExcept(this.media.store.referencesFolder, references, now));
    if (removed)
      this.deps.logger.info(`Removed ${removed} thumbnail(s) and reference image(s) no media job has`);
  }
}

function relative(root: vscode.Uri, uri: vscode.Uri): string {
  return relativePosix(root.path, uri.path);
}

/** Deletes the files of `folder` not in `kept` and untouched for ORPHAN_AGE_MS; how many went. */
async function removeOldFilesExcept(
  folder: vscode.Uri,
  kept: ReadonlySet<string>,
  now: number,
): Promise<number> {
  let entries: [string, vscode.FileType][];
  try {
    entries = await vscode.workspace.fs.readDirectory(folder);
  } catch {
    return 0; // No such folder yet.
  }
  let removed = 0;
  for (const [name, type] of entries) {
    if (type !== vscode.FileType.File || kept.has(name)) continue;
    const file = vscode.Uri.joinPath(folder, name);
    try {
      if (now - (await vscode.workspace.fs.stat(file)).mtime < ORPHAN_AGE_MS) continue;
      await vscode.workspace.fs.delete(file);
      removed++;
    } catch {
      // Gone already, or busy: the next pass tries again.
    }
  }
  return removed;
}

/** What is at `uri`, without following a link there. */
async function pathKind(uri: vscode.Uri): Promise<PathKind> {
  try {
    const { type } = await vscode.workspace.fs.stat(uri);
    if (type & vscode.FileType.SymbolicLink) return 'symlink';
    return type & vscode.FileType.Directory ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

async function sizeOf(uri: vscode.Uri): Promise<number> {
  try {
    return (await vscode.workspace.fs.stat(uri)).size;
  } catch {
    return 0;
  }
}

function isFileExists(error: unknown): boolean {
  return error instanceof vscode.FileSystemError && error.code === 'FileExists';
}

/** Copies `source` into `folder` under the first free name; never overwrites. */
async function copyUnique(
  source: vscode.Uri,
  folder: vscode.Uri,
  names: Iterator<string>,
): Promise<vscode.Uri> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const target = vscode.Uri.joinPath(folder, names.next().value as string);
    try {
      await vscode.workspace.fs.copy(source, target, { overwrite: false });
      return target;
    } catch (error) {
      if (!isFileExists(error)) throw error;
    }
  }
  throw new Error('No free file name was found for the result.');
}

/** The first name in `folder` that no file has and no other file of this drop takes. */
async function freeUri(folder: vscode.Uri, names: Iterator<string>, taken: Set<string>): Promise<vscode.Uri> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const target = vscode.Uri.joinPath(folder, names.next().value as string);
    if (!taken.has(target.toString()) && !(await fileExists(target))) return target;
  }
  throw new Error('No free file name was found for the result.');
}

/** A cached result's extension, from its file name. */
function extensionOf(file: vscode.Uri): string {
  return file.path.split('/').pop()?.split('.').pop() ?? 'bin';
}

/** Writes text into `folder` under the first free name; never overwrites. */
async function writeUnique(text: string, folder: vscode.Uri, names: Iterator<string>): Promise<vscode.Uri> {
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const target = vscode.Uri.joinPath(folder, names.next().value as string);
    if (await fileExists(target)) continue;
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
    return target;
  }
  throw new Error('No free file name was found for the result.');
}

/** A local image as a data URL; its type from `mimeType` or the file's extension. */
async function fileDataUrl(file: vscode.Uri, mimeType?: string): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(file);
  if (bytes.byteLength > 20 * MB) throw new Error('The reference image is larger than 20 MB.');
  const type = mimeType ?? mimeFromUrl(`file:///x.${file.path.split('.').pop() ?? ''}`) ?? 'image/png';
  if (kindOf(type) !== 'image') throw new Error('The reference must be an image.');
  return dataUrl(type, bytesToBase64(bytes));
}
