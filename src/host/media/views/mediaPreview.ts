import * as vscode from 'vscode';
import { shownText } from '../../../core/mediaStudio/resultItems';
import { parsePreviewMessage } from '../../../core/protocol/mediaPreviewProtocol';
import { showPage, webviewOptions } from '../../webview/webviewShell';
import type { MediaJob } from '../../../core/media/mediaJob';
import { escapeHtml } from '../../../core/util/text';
import { UiId } from '../../../core/ids';
import { notify } from '../../notify';
import type { PreviewItem } from '../jobs/mediaJobs';

/**
 * A webview panel that previews a completed job's outputs: images shown, video and audio playable,
 * text shown. It loads only local files from the extension's storage (remote results are
 * downloaded by the host first), under a strict CSP.
 */
export class MediaPreviewPanel {
  private static readonly panels = new Map<string, MediaPreviewPanel>();
  static readonly viewType = UiId.mediaPreview;

  static show(
    job: MediaJob,
    items: PreviewItem[],
    storageFolder: vscode.Uri,
    extensionUri: vscode.Uri,
  ): MediaPreviewPanel {
    const existing = MediaPreviewPanel.panels.get(job.id);
    if (existing) {
      existing.panel.reveal();
      existing.render(job, items);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      MediaPreviewPanel.viewType,
      `Media: ${job.prompt.slice(0, 30)}`,
      vscode.ViewColumn.Active,
      webviewOptions(extensionUri, [storageFolder]),
    );
    const preview = new MediaPreviewPanel(panel, job.id, extensionUri);
    preview.render(job, items);
    return preview;
  }

  /** Open previews, for tests. */
  static get open(): ReadonlyMap<string, MediaPreviewPanel> {
    return MediaPreviewPanel.panels;
  }

  private items: PreviewItem[] = [];

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly jobId: string,
    private readonly extensionUri: vscode.Uri,
  ) {
    MediaPreviewPanel.panels.set(jobId, this);
    panel.onDidDispose(() => MediaPreviewPanel.panels.delete(jobId));
    panel.webview.onDidReceiveMessage((raw: unknown) => {
      const message = parsePreviewMessage(raw);
      const item = message && this.items[message.index];
      if (!message || !item) return;
      if (message.type === 'save') void saveToWorkspace(item, this.jobId, message.index);
      else if (item.sourceUrl && /^https?:/i.test(item.sourceUrl))
        void vscode.env.openExternal(vscode.Uri.parse(item.sourceUrl, true));
    });
  }

  private render(job: MediaJob, items: PreviewItem[]): void {
    this.items = items;
    const webview = this.panel.webview;
    const body = items
      .map((item, index) => {
        const src = item.file ? escapeHtml(webview.asWebviewUri(item.file).toString()) : '';
        let media: string;
        switch (item.kind) {
          case 'image':
            media = `<img class="media-output" src="${src}" alt="Result ${index + 1}">`;
            break;
          case 'video':
            media = `<video class="media-output" src="${src}" controls></video>`;
            break;
          case 'audio':
            media = `<audio class="media-output" src="${src}" controls></audio>`;
            break;
          case 'text':
            // Text from the gateway is text: escaped, never markup; long text is cut, and says so.
            media = `<pre class="media-output">${escapeHtml(shownText(item.text ?? ''))}</pre>${
              item.problem ? `<p>${escapeHtml(item.problem)}</p>` : ''
            }`;
            break;
          default:
            media = `<p>${item.problem ? escapeHtml(item.problem) : 'This result cannot be previewed; save it to open it elsewhere.'}</p>`;
        }
        const actions = [
          item.file || item.kind === 'text'
            ? `<button data-action="save" data-index="${index}">Save to Workspace…</button>`
            : '',
          item.sourceUrl && /^https?:/i.test(item.sourceUrl)
            ? `<button data-action="openSource" data-index="${index}" class="secondary">Open in Browser</button>`
            : '',
        ].join('');
        return `<section>${media}<div class="actions">${actions}</div></section>`;
      })
      .join('\n');
    showPage(webview, this.extensionUri, {
      title: `Media: ${job.prompt.slice(0, 30)}`,
      scripts: ['dist/mediaPreview.js'],
      styles: ['media/mediaPreview.css'],
      media: true,
      body: `<h1>${escapeHtml(job.prompt)}</h1>
<p class="meta">${escapeHtml(job.model)} · ${escapeHtml(job.id)}</p>
${body || '<p>This job has no output.</p>'}`,
    });
  }
}

async function saveToWorkspace(item: PreviewItem, jobId: string, index: number): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const extension = item.file ? item.file.path.split('.').pop() : 'txt';
  const name = `media-${jobId.replace(/[^\w-]/g, '').slice(0, 24)}-${index + 1}.${extension}`;
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    title: 'Save Media Result',
  });
  if (!target) return;
  try {
    if (item.file) await vscode.workspace.fs.copy(item.file, target, { overwrite: true });
    else await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(item.text ?? ''));
    void notify.info(`Gateway AI: saved ${vscode.workspace.asRelativePath(target)}.`);
  } catch (error) {
    void notify.error(`Gateway AI: could not save the result: ${(error as Error).message}`);
  }
}
