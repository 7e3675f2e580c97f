import * as vscode from 'vscode';
import type { MediaOutput } from '../../../api/types';
import type { Logger } from '../../log/logger';
import type { MediaJob } from '../../../core/media/mediaJob';
import { isResultFileOf, legacyResultFileName, resultFileName } from '../../../core/media/mediaFiles';
import { MEDIA_JOBS_FILE, MediaJobFile, parseJobsFile } from '../../../core/media/mediaJobFile';
import type { MediaJobsState } from '../../../core/media/mediaJobFile';
import { loadReferences, storeReferences } from '../../../core/mediaStudio/referenceImage';
import { StorageKey } from '../../../core/ids';
import { fileExists, storageFolder, writeAtomically } from '../../storage/storageFolder';
import type { StorageFolder } from '../../storage/storageFolder';
import type { StorageReports } from '../../storage/storageReports';
import { base64Bytes } from '../../../api/base64';

const STATE_KEY = StorageKey.mediaJobs;

/**
 * Keeps media jobs in one file in the extension's global storage, shared by every window (see
 * MediaJobFile for the merge). Inline (base64) results and reference images are moved into files
 * of their own first, so the jobs file holds small records only. Jobs kept in globalState by
 * earlier versions are moved into the file once.
 */
export class MediaJobStore {
  /** Where results are kept, one file per output. */
  readonly folder: vscode.Uri;
  /** Where reference images are kept, one file per image (named by its bytes). */
  readonly referencesFolder: vscode.Uri;
  /** Where the jobs file is. */
  readonly jobsFolder: StorageFolder;
  readonly file: MediaJobFile;
  /** Result files being written, by URI: a second write of one joins the first. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly state: vscode.Memento,
    storageUri: vscode.Uri,
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
    reports?: StorageReports,
  ) {
    this.folder = vscode.Uri.joinPath(storageUri, StorageKey.mediaResultsFolder);
    this.referencesFolder = vscode.Uri.joinPath(storageUri, StorageKey.mediaReferencesFolder);
    this.jobsFolder = storageFolder(storageUri, StorageKey.mediaJobsFolder);
    this.file = new MediaJobFile(this.jobsFolder, {
      onProblem: (problem) => logger.warn(problem),
      onKept: (kept) => reports?.kept(kept, this.jobsFolder.fileUri(kept.keptAs)),
      onSaveFailed: (error) =>
        reports
          ? reports.saveFailed('media jobs', error)
          : logger.warn(`Saving media jobs failed: ${String(error)}`),
      onSaveRecovered: () => reports?.saveRecovered('media jobs'),
    });
  }

  /** The stored jobs (after moving an earlier version's globalState copy into the file, once). */
  async load(): Promise<MediaJobsState> {
    const old = this.state.get<unknown>(STATE_KEY);
    if (old !== undefined) {
      const parsed = parseJobsFile(old);
      if (parsed?.skipped)
        this.logger.warn(
          `Skipped ${parsed.skipped} unreadable media job(s) of an earlier version: ${parsed.problems.join('; ')}`,
        );
      if (parsed?.jobs.length) await this.file.save(parsed.jobs);
      await this.file.flush();
      if (!this.file.isFailing) {
        await this.state.update(STATE_KEY, undefined);
        this.logger.info(
          `Moved ${parsed?.jobs.length ?? 0} media job(s) from the extension state into storage.`,
        );
      }
    }
    return this.file.read();
  }

  save(jobs: readonly MediaJob[], onMerged?: (state: MediaJobsState) => void): Promise<void> {
    return this.file.save(jobs, onMerged);
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
    const file = this.fileFor(jobId, index, output.mimeType);
    await this.writeResult(file, base64Bytes(output.data, 'The media output'));
    return file;
  }

  /**
   * Writes a result file once: a job's result under its name is the same whenever it is written
   * (an inline result's bytes, or the download of its link), so a file that exists is kept, and a
   * write already under way is joined. Writing it again would replace the file while a save may
   * be copying it: the replacing rename leaves a moment with no file. Atomic, for other windows.
   */
  writeResult(file: vscode.Uri, bytes: Uint8Array): Promise<void> {
    const key = file.toString();
    const pending = this.writing.get(key);
    if (pending) return pending;
    const run = (async () => {
      if (await fileExists(file)) return;
      await vscode.workspace.fs.createDirectory(this.folder);
      await writeAtomically(file, bytes);
    })().finally(() => this.writing.delete(key));
    this.writing.set(key, run);
    return run;
  }

  /** The result file: named by the SHA-256 of the job id, so different ids never share one. */
  fileFor(jobId: string, index: number, mimeType: string | undefined): vscode.Uri {
    return vscode.Uri.joinPath(this.folder, resultFileName(jobId, index, mimeType));
  }

  /**
   * The name earlier versions used, still read if present. Only for ids it left unchanged: where
   * characters were replaced, different ids shared the name and the file may be another job's.
   */
  legacyFileFor(jobId: string, index: number, mimeType: string | undefined): vscode.Uri | undefined {
    const name = legacyResultFileName(jobId, index, mimeType);
    return name === undefined ? undefined : vscode.Uri.joinPath(this.folder, name);
  }

  /**
   * The parameters as the jobs file keeps them: reference images (base64 data URLs) written to
   * files of their own, with only their names in the parameters.
   */
  storeReferences(parameters: Record<string, unknown>): Promise<Record<string, unknown>> {
    return storeReferences(parameters, async (name, bytes) => {
      await vscode.workspace.fs.createDirectory(this.referencesFolder);
      await writeAtomically(vscode.Uri.joinPath(this.referencesFolder, name), bytes);
    });
  }

  /** The parameters to send: stored reference images read back into data URLs. */
  loadReferences(parameters: Record<string, unknown>): Promise<Record<string, unknown>> {
    return loadReferences(parameters, async (name) => {
      try {
        return await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.referencesFolder, name));
      } catch {
        return undefined;
      }
    });
  }

  /** Remembers a removal, so no window's merge brings the job back. */
  markRemoved(id: string): void {
    this.file.markRemoved(id);
  }

  /** When the job with this id was last removed, as far as this window knows. */
  removedAt(id: string): number | undefined {
    return this.file.removedAt(id);
  }

  /** Deletes a removed job's files (never another job's: see isResultFileOf). */
  async forget(jobId: string): Promise<void> {
    try {
      for (const [name] of await vscode.workspace.fs.readDirectory(this.folder)) {
        if (isResultFileOf(jobId, name))
          await vscode.workspace.fs.delete(vscode.Uri.joinPath(this.folder, name), { useTrash: false });
      }
    } catch {
      // No folder yet: nothing to delete.
    }
  }

  dispose(): void {
    this.file.dispose();
  }
}

export { MEDIA_JOBS_FILE };
