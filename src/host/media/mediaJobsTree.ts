import * as vscode from 'vscode';
import { Disposable } from '../../core/util/lifecycle';
import { relativeTime, shorten } from '../../core/util/text';
import { UNKNOWN_STATUS } from '../../core/media/mediaJob';
import type { MediaJob } from '../../core/media/mediaJob';
import type { MediaJobModel } from '../../core/media/mediaJobModel';
import { Command } from '../../core/ids';

const PROMPT_CHARS = 48;

function statusIcon(job: MediaJob): vscode.ThemeIcon {
  switch (job.status) {
    case 'queued':
      return new vscode.ThemeIcon('clock');
    case 'processing':
      return new vscode.ThemeIcon('loading~spin');
    case 'completed':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case UNKNOWN_STATUS:
      return new vscode.ThemeIcon('question');
    default:
      return new vscode.ThemeIcon('circle-outline');
  }
}

function statusText(job: MediaJob): string {
  return job.status === UNKNOWN_STATUS ? 'unknown to the gateway' : job.status;
}

function tooltip(job: MediaJob): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`**${statusText(job)}** · `).appendText(job.model);
  md.appendMarkdown('\n\n').appendText(job.prompt);
  md.appendMarkdown('\n\n').appendText(`Id: ${job.id}`);
  md.appendMarkdown('\n\n').appendText(`Started ${new Date(job.createdAt).toLocaleString()}`);
  if (job.finishedAt)
    md.appendMarkdown('\n\n').appendText(`Finished ${new Date(job.finishedAt).toLocaleString()}`);
  if (job.status === 'completed')
    md.appendMarkdown('\n\n').appendText(
      `${job.outputs.length} output${job.outputs.length === 1 ? '' : 's'}`,
    );
  if (job.error) md.appendMarkdown('\n\n**Failed:** ').appendText(job.error);
  if (job.status === UNKNOWN_STATUS)
    md.appendMarkdown('\n\n').appendText('The gateway no longer knows this job (404); it may have expired.');
  if (job.lastProblem) md.appendMarkdown('\n\n$(warning) ').appendText(job.lastProblem);
  return md;
}

/** Reads the job model; knows nothing of timing or storage. */
export class MediaJobsTreeProvider extends Disposable implements vscode.TreeDataProvider<MediaJob> {
  private readonly changed = this.register(new vscode.EventEmitter<MediaJob | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly model: MediaJobModel,
    private readonly ready: () => void,
  ) {
    super();
    // Every status check changes a job; one redraw per burst keeps a long list cheap.
    let pending: ReturnType<typeof setTimeout> | undefined;
    this.register(
      model.onDidChange(() => {
        pending ??= setTimeout(() => {
          pending = undefined;
          this.changed.fire(undefined);
        }, 100);
      }),
    );
    this.register({ dispose: () => pending && clearTimeout(pending) });
  }

  getTreeItem(job: MediaJob): vscode.TreeItem {
    const item = new vscode.TreeItem(
      shorten(job.prompt, PROMPT_CHARS) || '(no prompt)',
      vscode.TreeItemCollapsibleState.None,
    );
    item.id = job.id;
    item.description = `${statusText(job)} · ${job.model} · ${relativeTime(job.createdAt)}`;
    item.iconPath = statusIcon(job);
    item.tooltip = tooltip(job);
    item.contextValue = `mediaJob.${job.status}`;
    item.accessibilityInformation = { label: `${job.prompt}, ${statusText(job)}, ${job.model}` };
    if (job.status === 'completed') {
      item.command = { command: Command.openMediaResult, title: 'Open Result', arguments: [job] };
    }
    return item;
  }

  getChildren(element?: MediaJob): MediaJob[] {
    if (element) return [];
    this.ready();
    return this.model.all();
  }

  getParent(): undefined {
    return undefined;
  }

  /** Ages in descriptions go stale; a refresh now and then keeps them honest. */
  refresh(): void {
    this.changed.fire(undefined);
  }
}
