import * as vscode from 'vscode';
import type { KeptFile } from '../../core/storage/storeFiles';
import { describeError } from '../../core/storage/storeFiles';
import type { Logger } from '../log/logger';
import { notify } from '../notify';

const BATCH_MS = 300;
const OPEN = 'Open Kept File';

/**
 * Tells the user about stored files that could not be read (each kept aside, never deleted) and
 * about saves that fail: one notification per burst, every detail in the log.
 */
export class StorageReports {
  private batch: Array<{ kept: KeptFile; uri: vscode.Uri }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** What was reported, for tests: one entry per notification shown. */
  readonly shown: string[] = [];

  constructor(private readonly logger: Logger) {}

  /** A file of `folder` was moved aside as `kept.keptAs`. */
  kept(kept: KeptFile, uri: vscode.Uri): void {
    this.logger.warn(
      `Stored file ${kept.name} could not be read (${kept.reason}); it was kept as ${kept.keptAs}.`,
    );
    this.batch.push({ kept, uri });
    this.timer ??= setTimeout(() => this.showKept(), BATCH_MS);
  }

  /** The first failure of a burst of failed saves of `what` ("chats", "media jobs"). */
  saveFailed(what: string, error: unknown): void {
    const reason = describeError(error);
    this.logger.warn(`Saving ${what} failed (${reason}); retrying with backoff.`);
    const message = `Gateway AI: your ${what} could not be saved (${reason}). Retrying in the background; nothing is lost while this window stays open.`;
    this.shown.push(message);
    void notify.warn(message);
  }

  saveRecovered(what: string): void {
    this.logger.info(`Saving ${what} works again.`);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private showKept(): void {
    this.timer = undefined;
    const batch = this.batch.splice(0);
    if (batch.length === 0) return;
    const [first] = batch;
    const message =
      batch.length === 1
        ? `Gateway AI: a stored file could not be read (${first.kept.reason}). It was kept as ${first.kept.keptAs}; everything else is intact.`
        : `Gateway AI: ${batch.length} stored files could not be read. They were kept aside (${first.kept.keptAs} and others); everything else is intact.`;
    this.shown.push(message);
    void notify.warn(message, OPEN).then((choice) => {
      if (choice === OPEN) void vscode.window.showTextDocument(first.uri, { preview: true });
    });
  }
}
