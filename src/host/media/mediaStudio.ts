import * as vscode from 'vscode';
import { Command } from '../../core/ids';
import type { MediaJob } from '../../core/media/mediaJob';
import { shorten } from '../../core/util/text';
import { notify } from '../notify';
import type { CommandHandler } from '../lazyFeature';
import { jobFrom } from './jobs/mediaJobs';
import { MediaResults } from './results/mediaResults';
import { GenerateMediaTool } from './tool/generateMediaTool';
import { MediaGalleryPanel } from './views/galleryPanel';
import type { MediaStudioCommand } from './mediaCommandIds';

/**
 * The media studio: what can be done with results (MediaResults: save, insert, drop, re-run,
 * vary, keep storage under its cap), with the gallery, the `gateway_generateMedia` tool for VS
 * Code's agents and the studio's commands on top. It stands above the parts it joins: the gallery
 * and the tool know only MediaStudioActions, never this class.
 */
export class MediaStudio extends MediaResults {
  readonly tool = new GenerateMediaTool(this, this.deps.settings);

  /** Its commands' handlers; activation registers the commands (mediaLoader.ts). */
  readonly commands: Readonly<Record<MediaStudioCommand, CommandHandler>> = this.commandHandlers();

  /** The job a command was given, or the one selected in the Media Jobs tree. */
  jobFor(arg: unknown): MediaJob | undefined {
    if (arg !== undefined) return jobFrom(this.media, arg);
    return this.media.treeView.selection.find((job) => job.status === 'completed');
  }

  private commandHandlers(): Record<MediaStudioCommand, CommandHandler> {
    /** Runs `action` on the command's job; failures are shown, and thrown to programmatic callers. */
    const onJob =
      <T>(action: (job: MediaJob) => Promise<T>, none: string) =>
      async (arg?: unknown): Promise<T | undefined> => {
        const job = this.jobFor(arg);
        if (!job) {
          void notify.info(`Gateway AI: ${none}`);
          return undefined;
        }
        try {
          return await action(job);
        } catch (error) {
          void notify.error(`Gateway AI: ${(error as Error).message}`);
          if (arg !== undefined) throw error;
          return undefined;
        }
      };
    const pick = 'select a completed job in the Media Jobs view first.';
    return {
      [Command.saveMediaResult]: onJob(async (job) => {
        const saved = await this.save(job);
        void notify.info(`Gateway AI: saved ${saved.map((f) => f.relativePath).join(', ')}.`);
        return saved.map((f) => f.relativePath);
      }, pick),
      [Command.insertMediaResult]: onJob(
        async (job) => (await this.insert(job)).map((f) => f.relativePath),
        pick,
      ),
      [Command.rerunMediaJob]: onJob((job) => this.rerun(job), 'pick a job to run again.'),
      [Command.mediaVariation]: onJob((job) => this.variation(job), pick),
      [Command.generateMediaFromImage]: async (file?: unknown, prompt?: unknown) => {
        const uri =
          file instanceof vscode.Uri
            ? file
            : (
                await vscode.window.showOpenDialog({
                  title: 'Reference Image',
                  filters: { Images: ['png', 'jpg', 'jpeg', 'webp', 'gif'] },
                })
              )?.[0];
        if (!uri) return undefined;
        const text =
          typeof prompt === 'string'
            ? prompt
            : await vscode.window.showInputBox({
                title: `Generate Media from ${shorten(uri.path.split('/').pop() ?? '', 40)}`,
                prompt: 'Describe what to make from the image',
                ignoreFocusOut: true,
                validateInput: (v) => (v.trim() ? undefined : 'Describe what to generate.'),
              });
        if (!text?.trim()) return undefined;
        try {
          return await this.fromImage(uri, text.trim());
        } catch (error) {
          void notify.error(`Gateway AI: the media job was not started. ${(error as Error).message}`);
          if (prompt !== undefined) throw error;
          return undefined;
        }
      },
      [Command.openMediaGallery]: () =>
        MediaGalleryPanel.show(this, this.deps.context.extensionUri, this.media.store.folder),
    };
  }
}
