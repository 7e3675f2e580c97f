import * as vscode from 'vscode';
import { Command, StorageKey, View } from '../../core/ids';
import { isFinalStatus } from '../../core/media/mediaJob';
import type { MediaJob } from '../../core/media/mediaJob';
import { LazyFeature } from '../lazyFeature';
import type { MediaJobsDeps, MediaJobsFeature } from './mediaBundle';

/** The commands the media feature handles; registered at activation, handled once it has loaded. */
export const MEDIA_COMMANDS = [
  Command.generateMedia,
  Command.refreshMediaJobs,
  Command.openMediaResult,
  Command.removeMediaJob,
  Command.copyMediaJobId,
  Command.clearFinishedMediaJobs,
] as const;
export type MediaCommand = (typeof MEDIA_COMMANDS)[number];

/**
 * What activation registers for media jobs: the commands and the Media Jobs tree. The media
 * bundle (`dist/media.js`) loads when the tree first asks for its items (the view became visible),
 * a media command first runs, or, just after activation and off its path, when stored jobs may
 * still be running and must resume polling.
 */
export function registerMedia(deps: MediaJobsDeps): LazyFeature<MediaJobsFeature> {
  const changed = new vscode.EventEmitter<MediaJob | undefined>();
  const media = new LazyFeature(
    'media jobs',
    () => {
      const feature = new (loadMediaBundle().MediaJobsFeature)(deps);
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
  media.track(vscode.window.registerTreeDataProvider(View.mediaJobs, tree));

  const resume = setTimeout(() => {
    if (mayHaveRunningJobs(deps.context.globalState.get(StorageKey.mediaJobs))) media.get();
  }, 0);
  media.track({ dispose: () => clearTimeout(resume) });
  return media;
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
  // esbuild points this `require` at the sibling bundle dist/media.js (see esbuild.mjs).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./mediaBundle') as typeof import('./mediaBundle');
}
