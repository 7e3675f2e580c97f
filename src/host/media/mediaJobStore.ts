import * as vscode from 'vscode';
import { extensionForMime } from '../../api/media';
import type { MediaOutput } from '../../api/types';
import type { Logger } from '../log/logger';
import type { MediaJob } from '../../core/media/mediaJob';
import { deserializeJobs, serializeJobs } from '../../core/media/mediaJobCodec';
import { StorageKey } from '../../core/ids';
import { notify } from '../notify';

const STATE_KEY = StorageKey.mediaJobs;

/**
 * Keeps media jobs in the extension's global state. Inline (base64) results are moved into files
 * in the extension's storage first, so the state holds small records only.
 */
export class MediaJobStore {
  readonly folder: vscode.Uri;

  constructor(
    private readonly state: vscode.Memento,
    storageUri: vscode.Uri,
    private readonly logger: Logger,
  ) {
    this.folder = vscode.Uri.joinPath(storageUri, 'media');
  }

  /** The stored jobs; unreadable entries are reported once in the log and a notification, and skipped. */
  load(): MediaJob[] {
    const { jobs, skipped, problems } = deserializeJobs(this.state.get(STATE_KEY));
    if (skipped > 0) {
      this.logger.warn(`Skipped ${skipped} unreadable stored media job(s): ${problems.join('; ')}`);
      void notify.warn(`Gateway AI: ${skipped} stored media job(s) could not be read and were skipped.`);
      void this.state.update(STATE_KEY, serializeJobs(jobs));
    }
    return jobs;
  }

  save(jobs: readonly MediaJob[]): Thenable<void> {
    return this.state.update(STATE_KEY, serializeJobs(jobs));
  }

  /** Writes base64 outputs to files and returns the outputs with file URLs in their place. */
  async externalize(job: MediaJob): Promise<MediaOutput[] | undefined> {
    if (!job.outputs.some((o) => o.kind === 'data')) return undefined;
    const outputs: MediaOutput[] = [];
    for (const [index, output] of job.outputs.entries()) {
      outputs.push(
        output.kind === 'data'
          ? {
              kind: 'url',
              url: (await this.writeData(job.id, index, output)).toString(),
              mimeType: output.mimeType,
            }
          : output,
      );
    }
    return outputs;
  }

  /** Writes one base64 output as the job's file number `index + 1`. */
  async writeData(
    jobId: string,
    index: number,
    output: { data: string; mimeType: string },
  ): Promise<vscode.Uri> {
    await vscode.workspace.fs.createDirectory(this.folder);
    const file = this.fileFor(jobId, index, output.mimeType);
    await vscode.workspace.fs.writeFile(file, Buffer.from(output.data, 'base64'));
    return file;
  }

  fileFor(jobId: string, index: number, mimeType: string | undefined): vscode.Uri {
    const safe = jobId.replace(/[^\w.-]/g, '_').slice(0, 80);
    return vscode.Uri.joinPath(this.folder, `${safe}-${index + 1}.${extensionForMime(mimeType)}`);
  }

  /** Deletes a removed job's files. */
  async forget(jobId: string): Promise<void> {
    const safe = jobId.replace(/[^\w.-]/g, '_').slice(0, 80);
    try {
      for (const [name] of await vscode.workspace.fs.readDirectory(this.folder)) {
        if (name.startsWith(`${safe}-`))
          await vscode.workspace.fs.delete(vscode.Uri.joinPath(this.folder, name));
      }
    } catch {
      // No folder yet: nothing to delete.
    }
  }
}
