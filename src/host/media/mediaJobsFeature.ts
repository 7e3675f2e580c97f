import * as vscode from 'vscode';
import { syncJobId, withoutReservedKeys } from '../../api/media';
import type { MediaModelInfo } from '../../api/mediaRoutes';
import type { MediaRecord, MediaStarted } from '../../api/types';
import { Disposable } from '../../core/util/lifecycle';
import { fileExists } from '../storage/storageFolder';
import { askGenerateArgs, parseGenerateArgs, reportStartFailure } from './mediaCommands';
import { createMediaJob } from '../../core/media/mediaJob';
import type { MediaJob } from '../../core/media/mediaJob';
import { MediaJobModel } from '../../core/media/mediaJobModel';
import type { MediaJobsChange } from '../../core/media/mediaJobModel';
import { MediaJobPoller } from '../../core/media/mediaJobPoller';
import { MEDIA_JOBS_FILE, MediaJobStore } from './jobs/mediaJobStore';
import type { MediaJobsState } from '../../core/media/mediaJobFile';
import { isRemovedCopy, lacksAny, pickJob } from '../../core/media/mediaJobFile';
import { hasInlineReferences } from '../../core/mediaStudio/referenceImage';
import { isFinal } from '../../core/media/mediaJob';
import { FolderWatch } from '../storage/folderWatch';
import { MediaJobsTreeProvider } from './jobs/mediaJobsTree';
import { MediaPreviewPanel } from './views/mediaPreview';
import { resultItems } from '../../core/mediaStudio/resultItems';
import type { ResultFiles } from '../../core/mediaStudio/resultItems';
import { readStart } from '../storage/readStart';
import { Command, SettingSection, UiId, View, focusCommand } from '../../core/ids';
import { notify } from '../notify';
import type { CommandHandler } from '../lazyFeature';
import type { MediaCommand, MediaStudioCommand } from './mediaCommandIds';
import { MediaStudio } from './mediaStudio';
import { jobFrom } from './jobs/mediaJobs';
import type { GenerateArgs, GenerateOptions, MediaJobs, MediaJobsDeps, PreviewItem } from './jobs/mediaJobs';
import { allowListeners } from '../platform';

/**
 * The media-jobs feature: the model (state), the poller (timing), the tree (view), the store
 * (persistence), its commands, notifications and a status bar count. Activation registers the
 * tree and the commands (mediaLoader.ts); this is constructed when one of them is first used, or
 * just after activation, off its path, when stored jobs may still be running. Stored jobs load
 * and polling resumes then.
 */
export class MediaJobsFeature extends Disposable implements MediaJobs {
  readonly model = this.register(new MediaJobModel());
  readonly store: MediaJobStore;
  readonly tree: MediaJobsTreeProvider;
  readonly commands: Readonly<Record<MediaCommand, CommandHandler>>;
  /** The Media Jobs tree, created at activation (mediaLoader.ts) with its selection and drag. */
  readonly treeView: vscode.TreeView<MediaJob>;
  /** Saving, inserting, the gallery, variations, the storage budget and the agents' tool. */
  readonly studio: MediaStudio;
  private poller: MediaJobPoller | undefined;
  /** Jobs whose starter decides, when they end, whether the end is announced (GenerateOptions). */
  private readonly announceWhen = new Map<string, () => boolean>();
  private loading: Promise<void> | undefined;
  /** Set once the stored jobs were read: until then the model may lack jobs that exist. */
  private loaded = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Aborted on dispose: every download of a result listens to it. */
  private readonly downloads = new AbortController();
  private readonly status = this.register(
    vscode.window.createStatusBarItem(UiId.mediaStatus, vscode.StatusBarAlignment.Right, 99),
  );

  /** The settings in force (Generate Media's steps start from the media defaults). */
  get settings(): MediaJobsDeps['settings'] {
    return this.deps.settings;
  }

  /** Step 2 of Generate Media: a picker of media models, when the catalog is wired in. */
  get pickMediaModel(): MediaJobsDeps['pickMediaModel'] {
    return this.deps.pickMediaModel;
  }

  constructor(private readonly deps: MediaJobsDeps) {
    super();
    this.store = new MediaJobStore(
      deps.context.globalState,
      deps.context.globalStorageUri,
      deps.logger,
      deps.reports,
    );
    this.register({ dispose: () => this.store.dispose() });
    this.tree = this.register(new MediaJobsTreeProvider(this.model, () => void this.load()));
    this.status.name = 'Gateway AI Media Jobs';
    this.status.command = focusCommand(View.mediaJobs);
    this.treeView = deps.treeView;
    this.register(this.model.onDidChange((change) => this.onChange(change)));
    // Other windows keep their jobs in the same file: follow them.
    this.register(
      new FolderWatch(this.store.jobsFolder.uri, [MEDIA_JOBS_FILE], () => void this.followOtherWindows()),
    );
    this.register(vscode.window.onDidChangeWindowState((state) => this.poller?.setFocused(state.focused)));
    this.register(
      deps.settings.onDidChange((change) => {
        if (change.affects(SettingSection.media)) this.restartPoller();
      }),
    );
    this.register(deps.apiKey.onDidChange((key) => key && this.poller?.resume()));
    // Ages in the tree go stale; refresh them while it matters.
    const ticker = setInterval(() => this.model.all().length && this.tree.refresh(), 30_000);
    this.register({ dispose: () => clearInterval(ticker) });
    this.register({
      dispose: () => {
        if (this.saveTimer) void this.flush();
        this.poller?.dispose();
        this.downloads.abort();
      },
    });
    this.studio = this.register(new MediaStudio(this, deps));
    this.commands = { ...mediaJobCommands(this), ...this.studio.commands };
    setTimeout(() => void this.load(), 0);
  }

  /**
   * The gateway's media models from its catalogs, with kind, price and parameters (none when it
   * has none): the one list Generate Media's picker, the chat's media commands and the agents'
   * tool offer and check against. `reuse`: a list read in the last half minute will do.
   */
  listMediaModels(reuse = false): Promise<MediaModelInfo[]> {
    return this.deps.gateway.client().listMediaModels({}, reuse);
  }

  /** Loads stored jobs once and resumes polling those still running; resolves when done. */
  load(): Promise<void> {
    if (this.isDisposed) return Promise.resolve();
    this.loading ??= (async () => {
      try {
        this.takeStored(await this.store.load());
        this.loaded = true;
      } catch (error) {
        this.deps.logger.warn(`Stored media jobs could not be read: ${(error as Error).message}`);
      }
      if (this.isDisposed) return;
      void this.moveInlineReferences();
      this.ensurePoller().resume();
      this.updateStatus();
    })();
    return this.loading;
  }

  /**
   * Resolves once the stored jobs were loaded: true when they were read, false when they could
   * not be (then the model holds only this window's jobs, and nothing may be deleted for lacking
   * a job).
   */
  async whenLoaded(): Promise<boolean> {
    await this.load();
    return this.loaded;
  }

  /**
   * Moves reference images that jobs carry inline (written so by earlier versions) into files,
   * keeping only their names in the jobs file. A job whose images cannot be written stays as it
   * is, to be tried again at the next load.
   */
  private async moveInlineReferences(): Promise<void> {
    for (const job of this.model.all()) {
      if (!job.parameters || !hasInlineReferences(job.parameters)) continue;
      try {
        const parameters = await this.store.storeReferences(job.parameters);
        const current = this.model.get(job.id);
        if (current?.createdAt === job.createdAt && current.parameters === job.parameters)
          this.model.update(job.id, { parameters });
      } catch (error) {
        this.deps.logger.warn(
          `Could not store the reference image of media job ${job.id}: ${(error as Error).message}`,
        );
      }
    }
  }

  /** Re-reads the jobs file after another window wrote it. */
  private async followOtherWindows(): Promise<void> {
    if (!this.loading || this.isDisposed) return;
    await this.loading;
    try {
      const stored = await this.store.file.read();
      this.takeStored(stored);
      if (lacksAny(stored, this.model.all())) this.scheduleSave();
      // An earlier version in another window may have written a reference image inline.
      if (stored.jobs.some((job) => job.parameters && hasInlineReferences(job.parameters)))
        void this.moveInlineReferences();
    } catch (error) {
      this.deps.logger.warn(`Stored media jobs could not be re-read: ${(error as Error).message}`);
    }
  }

  /**
   * Takes the stored jobs into the model: jobs other windows added, newer states of ours (a
   * result another window got first), removals. What this window knows better stays.
   */
  private takeStored(stored: MediaJobsState): void {
    if (this.isDisposed) return;
    const jobs: MediaJob[] = [];
    for (const job of stored.jobs) {
      const local = this.model.get(job.id);
      if (!local) {
        if (!this.store.file.isRemoved(job)) jobs.push(job);
        continue;
      }
      const picked = pickJob(local, job);
      if (picked !== local) jobs.push(picked);
    }
    // Removed there; but a job started after the removal under the same id stays (see generate).
    const removed = Object.keys(stored.removed).filter((id) => {
      const local = this.model.get(id);
      return local !== undefined && isRemovedCopy(local, stored.removed);
    });
    this.model.sync(jobs, removed);
  }

  private ensurePoller(): MediaJobPoller {
    if (this.poller) return this.poller;
    const settings = this.deps.settings.current.media;
    this.poller = new MediaJobPoller({
      model: this.model,
      // At the job's own polling URL when the gateway named one (kept with the job across reloads).
      getStatus: (id, signal) =>
        this.deps.gateway.client().getMedia(id, { signal, pollingUrl: this.model.get(id)?.pollingUrl }),
      maxConcurrent: settings.maxConcurrentPolls,
      maxIntervalMs: settings.maxPollIntervalSeconds * 1000,
      onError: (id, error) =>
        this.deps.logger.warn(
          `Status check of media job ${id} failed: ${(error as Error)?.message ?? error}`,
        ),
    });
    this.poller.setFocused(vscode.window.state.focused);
    return this.poller;
  }

  private restartPoller(): void {
    if (!this.poller) return;
    this.poller.dispose();
    this.poller = undefined;
    this.ensurePoller().resume();
  }

  /**
   * Starts a generation; returns the new job's id. POST /v1/media is never retried blindly.
   *
   * Reference images (base64 data URLs in the parameters) are sent inline, as the gateway needs
   * them, but kept as files: the job's record holds only their names (storeReferences). A re-run
   * reads them back first.
   *
   * The gateway may answer with an id we already hold a job under: it reused an old id. The job
   * it just accepted (and charges for) is the one that id names now, so the new start replaces
   * the old record, whatever state that was in, and the old record's files (results, thumbnail)
   * and saved mark go with it, so the new job never shows the old result. The old result cannot
   * be asked for by that id any more anyway. Nothing throws here after the POST succeeded: the
   * job is always kept. A removal of the old job (here or in another window) does not drop the
   * new one either: removals apply to copies created before them (isRemovedCopy), and pickJob
   * lets the later start win every merge.
   */
  async generate(args: GenerateArgs, options: GenerateOptions = {}): Promise<string> {
    void this.load();
    const settings = this.deps.settings.current.media;
    const model = args.model ?? settings.model;
    // A stored job's reference images, kept as files, are read back into its request; only a
    // stored job's (a tool's or a setting's look-alike is sent as written, as the tool showed it).
    const given =
      options.storedParameters && args.parameters
        ? await this.store.loadReferences(args.parameters)
        : args.parameters;
    // What is sent: a parameter never replaces the model or the prompt (see mediaRequestBody).
    const parameters = withoutReservedKeys(options.asGiven ? given : { ...settings.parameters, ...given });
    const kept = await this.keptParameters(parameters);
    const started = await this.deps.gateway.client().startMedia({ model, prompt: args.prompt, parameters });
    return this.track(started, { prompt: args.prompt, model, parameters: kept }, options);
  }

  /**
   * Pictures a chat reply brought (streamed `delta.images`) as a completed job: kept as files,
   * shown in the tree, the gallery and the chat's card like any result. Its cost is the reply's,
   * counted there, so none is set here. Resolves with the job's id.
   */
  async adopt(args: { prompt: string; model: string }, record: MediaRecord): Promise<string> {
    const id = syncJobId('chat-images', Date.now());
    return this.track(
      { id, status: 'completed', record: { ...record, id }, route: 'chat-images' },
      { ...args, parameters: {} },
      { announce: () => false },
    );
  }

  /** Puts a started job into the model: polled, or completed at once with its record. */
  private async track(
    started: MediaStarted,
    args: { prompt: string; model: string; parameters: Record<string, unknown> },
    options: GenerateOptions,
  ): Promise<string> {
    const { model } = args;
    const kept = args.parameters;
    // Stored jobs are in the model before the id is looked up there.
    await this.load();
    const old = this.model.get(started.id);
    if (old) await this.replaceStart(old);
    // Created after the old start and any removal of the id, so that no merge takes the new start
    // for the old one (pickJob, isRemovedCopy), even with a clock that went back.
    const after = Math.max(old?.createdAt ?? -1, this.store.removedAt(started.id) ?? -1) + 1;
    const job = createMediaJob(
      {
        id: started.id,
        prompt: args.prompt,
        model,
        parameters: kept,
        // A synchronous route's result is taken below, as if a first status check brought it.
        status: started.record ? undefined : started.status,
        pollingUrl: started.pollingUrl,
      },
      Math.max(Date.now(), after),
    );
    if (options.announce) this.announceWhen.set(job.id, options.announce);
    try {
      // The old record may have come back from the jobs file meanwhile: the new start replaces it too.
      this.model.start(job);
    } catch (error) {
      // A listener failed; the job is in the model all the same, and the caller gets its id.
      this.deps.logger.warn(`A view failed to take media job ${job.id}: ${(error as Error).message}`);
    }
    if (started.record) {
      // The gateway answered with the result itself: the job completes now (its results are moved
      // into files, its cost counted and its end announced like any other job's), and nothing is polled.
      try {
        this.model.applyRecord(job.id, started.record);
      } catch (error) {
        this.deps.logger.warn(`A view failed to take media job ${job.id}: ${(error as Error).message}`);
      }
    } else this.ensurePoller().track(job.id);
    this.deps.logger.info(
      `Media job ${job.id} started with ${model}${started.route ? ` (${started.route} route)` : ''}`,
    );
    return job.id;
  }

  /** The parameters with reference images in files; as given when they cannot be written. */
  private async keptParameters(parameters: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.store.storeReferences(parameters);
    } catch (error) {
      this.deps.logger.warn(`Could not store a reference image: ${(error as Error).message}`);
      return parameters;
    }
  }

  /** Drops the old record a reused id named, with its files (see generate); never throws. */
  private async replaceStart(old: MediaJob): Promise<void> {
    this.deps.logger.info(`The gateway gave media job id ${old.id} again; the new job replaces the old one`);
    this.announceWhen.delete(old.id);
    // Out of the model first (its previews close, its polling stops), then its files go.
    this.model.remove(old.id);
    try {
      await this.store.forget(old.id);
      await this.studio.forgetStart(old.id);
    } catch (error) {
      this.deps.logger.warn(`Could not delete the files of media job ${old.id}: ${(error as Error).message}`);
    }
  }

  refresh(): void {
    void this.load();
    this.ensurePoller().pollNow();
    this.tree.refresh();
  }

  /** Removes a job (in every window) and deletes its stored files; resolves once they are gone. */
  async remove(id: string): Promise<void> {
    this.announceWhen.delete(id);
    this.store.markRemoved(id);
    if (this.model.remove(id)) await this.store.forget(id);
  }

  clearFinished(): number {
    const finished = this.model.all().filter(isFinal);
    for (const job of finished) this.store.markRemoved(job.id);
    const removed = this.model.clearFinished();
    for (const id of removed) void this.store.forget(id);
    return removed.length;
  }

  /** Opens the preview of a completed job; remote results are downloaded by the host first. */
  async open(job: MediaJob): Promise<MediaPreviewPanel | undefined> {
    if (job.status !== 'completed') {
      void notify.info(`Gateway AI: this job is ${job.status}; there is no result to open yet.`);
      return undefined;
    }
    const items = await vscode.window.withProgress(
      { location: { viewId: View.mediaJobs }, title: 'Preparing the result', cancellable: true },
      (_progress, token) => this.resultItems(job, token),
    );
    return MediaPreviewPanel.show(job, items, this.store.folder, this.deps.context.extensionUri);
  }

  /**
   * A completed job's outputs as local files (remote ones downloaded once) or text; a text file
   * carries the beginning of its text. Downloads stop when `token` is cancelled or the extension
   * goes away.
   */
  async resultItems(job: MediaJob, token?: vscode.CancellationToken): Promise<PreviewItem[]> {
    const abort = new AbortController();
    // Every download of the job listens to it (16 at most, see MAX_MEDIA_OUTPUTS).
    allowListeners(abort.signal, 64);
    const onCancel = token?.onCancellationRequested(() => abort.abort());
    const onDispose = () => abort.abort();
    this.downloads.signal.addEventListener('abort', onDispose, { once: true });
    try {
      return await resultItems(job.outputs, this.resultFiles(job), abort.signal);
    } finally {
      onCancel?.dispose();
      this.downloads.signal.removeEventListener('abort', onDispose);
    }
  }

  private resultFiles(job: MediaJob): ResultFiles<vscode.Uri> {
    return {
      fileFor: (index, mimeType) => this.store.fileFor(job.id, index, mimeType),
      legacyFileFor: (index, mimeType) => this.store.legacyFileFor(job.id, index, mimeType),
      exists: fileExists,
      fromFileUrl: (url) => vscode.Uri.parse(url),
      write: (file, bytes) => this.store.writeResult(file, bytes),
      writeData: (index, output) => this.store.writeData(job.id, index, output),
      // Size, time, place and downloads at once are capped by the client.
      download: (url, signal) => this.deps.gateway.client().download(url, { signal }),
      readStart,
      learned: (index, mimeType) => this.learnType(job.id, index, mimeType),
    };
  }

  /** A result link without a type: its download told the type; the job keeps it for next time. */
  private learnType(id: string, index: number, mimeType: string): void {
    const job = this.model.get(id);
    const output = job?.outputs[index];
    if (!job || output?.kind !== 'url' || output.mimeType) return;
    const outputs = job.outputs.map((o, i) => (i === index ? { ...output, mimeType } : o));
    this.model.update(id, { outputs });
  }

  private onChange({ changed, finished, removed, external }: MediaJobsChange): void {
    this.updateStatus();
    for (const id of removed) MediaPreviewPanel.open.get(id)?.panel.dispose();
    if (external) {
      // Another window's job, or its newer state: show it and follow it too (if that window
      // closes, the job still finishes here). No save (it is on disk) and no announcement.
      for (const id of changed) {
        const job = this.model.get(id);
        if (job && !isFinal(job)) this.poller?.track(id);
      }
      return;
    }
    this.scheduleSave();
    for (const job of finished) {
      void this.moveInlineOutputs(job);
      if (job.cost !== undefined) this.deps.onJobCost?.(job.cost);
      this.announce(job);
    }
  }

  private async moveInlineOutputs(job: MediaJob): Promise<void> {
    try {
      const outputs = await this.store.externalize(job);
      if (outputs && this.model.get(job.id)) this.model.update(job.id, { outputs });
    } catch (error) {
      this.deps.logger.warn(`Could not store the result of media job ${job.id}: ${(error as Error).message}`);
    }
  }

  private announce(job: MediaJob): void {
    const when = this.announceWhen.get(job.id);
    this.announceWhen.delete(job.id);
    if (when && !when()) return;
    const prompt = job.prompt.length > 40 ? `${job.prompt.slice(0, 39)}…` : job.prompt;
    if (job.status === 'completed') {
      void notify.info(`Gateway AI: media job completed: "${prompt}"`, 'Open').then((choice) => {
        const current = this.model.get(job.id);
        if (choice === 'Open' && current) void this.open(current);
      });
    } else if (job.status === 'failed' || job.status === 'cancelled' || job.status === 'expired') {
      const ended = job.status === 'failed' ? 'failed' : `was ${job.status} at the gateway`;
      void notify
        .warn(`Gateway AI: media job ${ended}: "${prompt}". ${job.error ?? ''}`.trim(), 'Show')
        .then((choice) => {
          if (choice === 'Show') void vscode.commands.executeCommand(focusCommand(View.mediaJobs));
        });
    }
  }

  private updateStatus(): void {
    const running = this.model.running().length;
    if (running === 0) {
      this.status.hide();
      return;
    }
    this.status.text = `$(loading~spin) ${running} media job${running === 1 ? '' : 's'}`;
    this.status.tooltip = 'Gateway AI media jobs running. Click to show them.';
    this.status.show();
  }

  private scheduleSave(): void {
    this.saveTimer ??= setTimeout(() => void this.flush(), 250);
  }

  /** Writes the jobs now (tests and shutdown). */
  async flush(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    await this.store.save(this.model.all(), (merged) => this.takeStored(merged));
  }
}

/** The media commands' handlers, each acting on the feature. */
function mediaJobCommands(
  feature: MediaJobsFeature,
): Record<Exclude<MediaCommand, MediaStudioCommand>, CommandHandler> {
  return {
    [Command.generateMedia]: async (arg?: unknown) => {
      let args: GenerateArgs | undefined;
      try {
        args =
          arg === undefined
            ? await askGenerateArgs(feature.settings.current.media, feature.pickMediaModel, () =>
                feature.listMediaModels(),
              )
            : parseGenerateArgs(arg);
      } catch (error) {
        void notify.error(`Gateway AI: ${(error as Error).message}`);
        if (arg !== undefined) throw error;
        return undefined;
      }
      if (!args) return undefined;
      try {
        const id = await feature.generate(args);
        if (arg === undefined) void vscode.commands.executeCommand(focusCommand(View.mediaJobs));
        return id;
      } catch (error) {
        void reportStartFailure(error);
        if (arg !== undefined) throw error;
        return undefined;
      }
    },
    [Command.refreshMediaJobs]: () => feature.refresh(),
    [Command.openMediaResult]: async (arg?: unknown) => {
      const job = jobFrom(feature, arg);
      if (!job) {
        void notify.info('Gateway AI: pick a completed job in the Media Jobs view to open its result.');
        return undefined;
      }
      return feature.open(job);
    },
    [Command.removeMediaJob]: (arg?: unknown) => {
      const job = jobFrom(feature, arg);
      if (job) return feature.remove(job.id);
    },
    [Command.copyMediaJobId]: async (arg?: unknown) => {
      const job = jobFrom(feature, arg);
      if (job) await vscode.env.clipboard.writeText(job.id);
    },
    [Command.clearFinishedMediaJobs]: () => feature.clearFinished(),
  };
}
