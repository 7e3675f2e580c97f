import * as vscode from 'vscode';
import { Disposable } from '../../../core/util/lifecycle';
import { formatCost, inertText, relativeTime, shorten } from '../../../core/util/text';
import { isFinalStatus, UNKNOWN_STATUS } from '../../../core/media/mediaJob';
import type { MediaJob } from '../../../core/media/mediaJob';
import type { MediaJobModel } from '../../../core/media/mediaJobModel';
import { Command } from '../../../core/ids';

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
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash');
    case 'expired':
      return new vscode.ThemeIcon('history');
    case UNKNOWN_STATUS:
      return new vscode.ThemeIcon('question');
    default:
      return new vscode.ThemeIcon('circle-outline');
  }
}

function statusText(job: MediaJob): string {
  return job.status === UNKNOWN_STATUS ? 'unknown to the gateway' : job.status;
}

/** The status with where a running job stands: `processing 45%`, `queued (3 ahead)`. */
export function statusWithProgress(job: Pick<MediaJob, 'status' | 'progress' | 'queuePosition'>): string {
  const status = job.status === UNKNOWN_STATUS ? 'unknown to the gateway' : job.status;
  if (isFinalStatus(job.status)) return status;
  const parts = [status];
  if (job.progress !== undefined) parts.push(`${Math.round(job.progress * 100)}%`);
  if (job.queuePosition !== undefined) parts.push(`(${job.queuePosition} ahead)`);
  return parts.join(' ');
}

/**
 * A plain-text tooltip: the prompt, the model and above all the failure reason come from outside,
 * and a Markdown tooltip would render their links and remote images.
 */
function tooltip(job: MediaJob): string {
  const lines = [`${statusWithProgress(job)} · ${job.model}`, job.prompt, `Id: ${job.id}`];
  lines.push(`Started ${new Date(job.createdAt).toLocaleString()}`);
  if (job.finishedAt) lines.push(`Finished ${new Date(job.finishedAt).toLocaleString()}`);
  if (job.status === 'completed')
    lines.push(`${job.outputs.length} output${job.outputs.length === 1 ? '' : 's'}`);
  if (job.cost !== undefined) lines.push(`Cost: ${formatCost(job.cost)}`);
  else if (job.status === 'completed') lines.push('Cost: not reported by the gateway');
  if (job.error) lines.push(`${job.status === 'failed' ? 'Failed' : 'Gateway said'}: ${job.error}`);
  if (job.status === 'cancelled') lines.push('The job was cancelled at the gateway.');
  if (job.status === 'expired') lines.push('The job expired at the gateway before its result was kept.');
  if (job.status === UNKNOWN_STATUS)
    lines.push(job.lastProblem ?? 'The gateway no longer knows this job (404); it may have expired.');
  else if (job.lastProblem) lines.push(`Warning: ${job.lastProblem}`);
  return lines.map((line) => inertText(line)).join('\n\n');
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
    item.description = `${statusWithProgress(job)} · ${job.model} · ${relativeTime(job.createdAt)}`;
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
