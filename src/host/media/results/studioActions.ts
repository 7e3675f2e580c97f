import type * as vscode from 'vscode';
import type { MediaJob } from '../../../core/media/mediaJob';
import type { ResultKind } from '../../../core/mediaStudio/resultNames';
import type { MediaJobs } from '../jobs/mediaJobs';

/** One result file saved into the workspace. */
export interface SavedFile {
  uri: vscode.Uri;
  /** Relative to the workspace folder, with forward slashes. */
  relativePath: string;
  kind: ResultKind;
}

/**
 * What the gallery and the agents' tool use of the media studio. MediaResults implements it, and
 * the studio (MediaStudio, above them) owns them; they depend on this, so no import runs back from
 * them to the studio.
 */
export interface MediaStudioActions {
  readonly media: MediaJobs;
  /** Which results were saved into the workspace (those are never cleaned up). */
  readonly saved: { has(jobId: string): boolean };
  /** Where thumbnails are cached, one file per job. */
  readonly thumbnailFolder: vscode.Uri;
  thumbnailFile(jobId: string): vscode.Uri;
  /** Saves the job's results into the workspace folder (or `folder` under it), never overwriting. */
  save(job: MediaJob, folder?: string, token?: vscode.CancellationToken): Promise<SavedFile[]>;
  /** Saves the results and inserts a reference to them at the cursor. */
  insert(job: MediaJob): Promise<SavedFile[]>;
  rerun(job: MediaJob): Promise<string>;
  variation(job: MediaJob, prompt?: string): Promise<string>;
}
