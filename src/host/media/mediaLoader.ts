import * as vscode from 'vscode';
import { StorageKey, Tool, UiId, View } from '../../core/ids';
import type { GenerateMediaInput } from '../../core/mediaStudio/toolInput';
import { isFinalStatus } from '../../core/media/mediaJob';
import { encodeDraggedJobs } from '../../core/protocol/mediaDrag';
import type { MediaJob } from '../../core/media/mediaJob';
import { LazyFeature } from '../lazyFeature';
import { MEDIA_COMMANDS } from './mediaCommandIds';
import type { MediaJobsDeps, MediaJobsFeature } from './mediaBundle';

/**
 * Results dragged from the Media Jobs tree (or the gallery page) carry their job ids under the
 * tree's own MIME type; an editor's drop provider (loaded with the feature) turns them into a saved
 * file and a link.
 */
export const mediaJobDragController: vscode.TreeDragAndDropController<MediaJob> = {
  dragMimeTypes: [UiId.mediaJobDrag],
  dropMimeTypes: [],
  handleDrag(source, dataTransfer) {
    const ids = source.filter((job) => job.status === 'completed').map((job) => job.id);
    if (ids.length) dataTransfer.set(UiId.mediaJobDrag, new vscode.DataTransferItem(encodeDraggedJobs(ids)));
  },
};

/**
 * What activation registers for media jobs: the commands and the Media Jobs tree. The media
 * feature (`mediaBundle.ts`) is evaluated when the tree first asks for its items (the view became visible),
 * a media command first runs, or, just after activation and off its path, when stored jobs may
 * still be running and must resume polling.
 */
export function registerMedia(deps: Omit<MediaJobsDeps, 'treeView'>): LazyFeature<MediaJobsFeature> {
  const changed = new vscode.EventEmitter<MediaJob | undefined>();
  const media: LazyFeature<MediaJobsFeature> = new LazyFeature(
    'media jobs',
    () => {
      const feature = new (loadMediaBundle().MediaJobsFeature)({ ...deps, treeView });
      feature.tree.onDidChangeTreeData((job) => changed.fire(job));
      return feature;
    },
    deps.logger,
  );
  media.track(changed);
  media.registerCommands(MEDIA_COMMANDS);
  const tree: vscode.TreeDataProvider<MediaJob> = {
    onDidChangeTreeData: changed.event,
    getChildren: (job) => media.get().tree.getChildren(job),
    getTreeItem: (job) => media.get().tree.getTreeItem(job),
    getParent: () => undefined,
  };
  const treeView: vscode.TreeView<MediaJob> = media.track(
    vscode.window.createTreeView(View.mediaJobs, {
      treeDataProvider: tree,
      canSelectMany: true,
      dragAndDropController: mediaJobDragController,
    }),
  );

  // Agents see the tool from activation on; its code loads with the feature on first use.
  if (typeof vscode.lm?.registerTool === 'function') {
    const tool: vscode.LanguageModelTool<GenerateMediaInput> = {
      prepareInvocation: (options) => media.get().studio.tool.prepareInvocation(options),
      invoke: (options, token) => media.get().studio.tool.invoke(options, token),
    };
    media.track(vscode.lm.registerTool(Tool.generateMedia, tool));
  }

  // Off the activation path: jobs from an earlier session that may still be running resume now,
  // not when the view is first opened. Jobs live in a file other windows share (and, before it
  // existed, in globalState).
  const resume = setTimeout(() => {
    void storedJobsMayBeRunning(deps.context).then(
      (running) => {
        if (running && !disposed) media.get();
      },
      (error: unknown) => deps.logger.error('Reading the stored media jobs failed', error),
    );
  }, 0);
  let disposed = false;
  media.track({
    dispose: () => {
      disposed = true;
      clearTimeout(resume);
    },
  });
  return media;
}

async function storedJobsMayBeRunning(context: vscode.ExtensionContext): Promise<boolean> {
  if (mayHaveRunningJobs(context.globalState.get(StorageKey.mediaJobs))) return true;
  const file = vscode.Uri.joinPath(
    context.globalStorageUri,
    StorageKey.mediaJobsFolder,
    StorageKey.mediaJobsFile,
  );
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    return false;
  }
  try {
    return mayHaveRunningJobs(JSON.parse(text));
  } catch {
    // A file that does not parse is for the feature's own reader to keep aside and report.
    return true;
  }
}

/**
 * Whether stored media jobs may still be running, read without the media bundle: false only when
 * nothing is stored or every stored job has a final status. Anything unexpected says "may", and
 * the feature's own reader decides.
 */
export function mayHaveRunningJobs(stored: unknown): boolean {
  if (stored === undefined || stored === null) return false;
  const jobs: unknown = Array.isArray(stored) ? stored : (stored as { jobs?: unknown }).jobs;
  if (!Array.isArray(jobs)) return true;
  return jobs.some((job: unknown) => {
    const status = job && typeof job === 'object' ? (job as { status?: unknown }).status : undefined;
    return typeof status !== 'string' || !isFinalStatus(status);
  });
}

function loadMediaBundle(): typeof import('./mediaBundle') {
  // Bundled in, and evaluated only on this first `require` (esbuild keeps a required module's body
  // unrun until then), so activation does not run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./mediaBundle') as typeof import('./mediaBundle');
}
