import * as vscode from 'vscode';
import { UiId } from '../../../core/ids';
import type { MediaJob } from '../../../core/media/mediaJob';
import { thumbnailFileName } from '../../../core/media/mediaFiles';
import { kindOf, textPreview } from '../../../core/mediaStudio/resultItems';
import { isStoredReference } from '../../../core/mediaStudio/referenceImage';
import { MAX_EXCERPT, parseGalleryMessage } from '../../../core/protocol/galleryProtocol';
import { readStart } from '../../storage/readStart';
import type { GalleryAction, GalleryHostMessage, GalleryItem } from '../../../core/protocol/galleryProtocol';
import { Disposable } from '../../../core/util/lifecycle';
import { shorten } from '../../../core/util/text';
import { notify } from '../../notify';
import { GALLERY_PAGE, showPage, webviewOptions } from '../../webview/webviewShell';
import type { MediaStudioActions } from '../results/studioActions';
import { base64Bytes } from '../../../api/base64';

/** `key: value` pairs for a card; long values (a reference image's data URL) shortened. */
export function describeParameters(parameters: Record<string, unknown> | undefined): string {
  return Object.entries(parameters ?? {})
    .map(
      ([key, value]) =>
        `${key}: ${
          isStoredReference(value)
            ? 'reference image'
            : shorten(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 40)
        }`,
    )
    .join(', ');
}

/**
 * The media gallery: an editor-area webview with every result. One panel at a time; it follows
 * the job model. Thumbnails are drawn once by the page and cached by the host as files.
 */
export class MediaGalleryPanel extends Disposable {
  private static current: MediaGalleryPanel | undefined;
  private readonly cachedThumbnails = new Set<string>();
  /**
   * Completed jobs whose first result is an image the gateway serves by URL: the local file it was
   * downloaded to (once, by the client, which sends the key only to the gateway's own origin), or
   * the download under way. The page draws the thumbnail from that file and the host caches it.
   */
  private readonly remoteImages = new Map<string, vscode.Uri | Promise<void>>();
  private pending: ReturnType<typeof setTimeout> | undefined;
  private ready = false;

  static async show(
    studio: MediaStudioActions,
    extensionUri: vscode.Uri,
    storageFolder: vscode.Uri,
  ): Promise<MediaGalleryPanel> {
    const existing = MediaGalleryPanel.current;
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      UiId.mediaGallery,
      'Media Gallery',
      vscode.ViewColumn.Active,
      {
        ...webviewOptions(extensionUri, [storageFolder, studio.thumbnailFolder]),
        retainContextWhenHidden: false,
      },
    );
    const gallery = new MediaGalleryPanel(panel, studio);
    await gallery.loadThumbnailIndex();
    showPage(panel.webview, extensionUri, GALLERY_PAGE);
    return gallery;
  }

  /** The open gallery, for tests. */
  static get open(): MediaGalleryPanel | undefined {
    return MediaGalleryPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly studio: MediaStudioActions,
  ) {
    super();
    MediaGalleryPanel.current = this;
    this.register(
      panel.onDidDispose(() => {
        if (MediaGalleryPanel.current === this) MediaGalleryPanel.current = undefined;
        this.dispose();
      }),
    );
    this.register({ dispose: () => this.pending && clearTimeout(this.pending) });
    this.register(
      studio.media.model.onDidChange((change) => {
        // A removed job's thumbnail is gone, or is about to be; an id the gateway gives again
        // must not show the old job's.
        for (const id of change.removed) {
          this.cachedThumbnails.delete(thumbnailFileName(id));
          this.remoteImages.delete(id);
        }
        this.schedulePost();
      }),
    );
    this.register(
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        const message = parseGalleryMessage(raw);
        if (!message) return;
        if (message.type === 'ready') {
          this.ready = true;
          void this.post();
        } else if (message.type === 'thumbnail') void this.cacheThumbnail(message.id, message.dataUrl);
        else void this.act(message.action, message.ids);
      }),
    );
  }

  private async loadThumbnailIndex(): Promise<void> {
    try {
      for (const [name] of await vscode.workspace.fs.readDirectory(this.studio.thumbnailFolder))
        this.cachedThumbnails.add(name);
    } catch {
      // No thumbnails yet.
    }
  }

  private schedulePost(): void {
    if (!this.ready) return;
    this.pending ??= setTimeout(() => {
      this.pending = undefined;
      void this.post();
    }, 150);
  }

  /** Posts every result; what the page shows is always the model's current state. */
  async post(): Promise<void> {
    const message: GalleryHostMessage = { type: 'items', items: await this.items() };
    await this.panel.webview.postMessage(message);
  }

  /** The cards the page is sent: one per job, newest first. */
  items(): Promise<GalleryItem[]> {
    return Promise.all(this.studio.media.model.all().map((job) => this.withExcerpt(job, this.item(job))));
  }

  private item(job: MediaJob): GalleryItem {
    const webview = this.panel.webview;
    const first = job.outputs[0];
    const kind: GalleryItem['kind'] = !first
      ? 'none'
      : first.kind === 'text'
        ? 'text'
        : kindOf(first.mimeType, first.kind === 'url' ? first.url : '');
    const item: GalleryItem = {
      id: job.id,
      prompt: job.prompt,
      model: job.model,
      status: job.status,
      parameters: describeParameters(job.parameters),
      createdAt: job.createdAt,
      kind,
      saved: this.studio.saved.has(job.id),
      ...(job.error ? { error: job.error } : {}),
      ...(job.cost !== undefined ? { cost: job.cost } : {}),
      ...(job.progress !== undefined ? { progress: job.progress } : {}),
    };
    if ((kind === 'video' || kind === 'audio') && first?.kind === 'url' && job.status === 'completed') {
      // A video shows its cached first frame, else its first frame once loaded (then cached);
      // audio a tile of its own. A remote file is downloaded once, as an image is.
      const thumbnail = this.studio.thumbnailFile(job.id);
      if (kind === 'video' && this.cachedThumbnails.has(thumbnail.path.split('/').pop() ?? ''))
        item.poster = webview.asWebviewUri(thumbnail).toString();
      const local = first.url.startsWith('file:')
        ? vscode.Uri.parse(first.url)
        : this.remoteImages.get(job.id);
      if (local instanceof vscode.Uri) {
        item.src = webview.asWebviewUri(local).toString();
        if (kind === 'video' && !item.poster) item.needsThumbnail = true;
      } else if (!local) this.remoteImages.set(job.id, this.downloadResult(job, kind));
    } else if (kind === 'image' && first?.kind === 'url') {
      const thumbnail = this.studio.thumbnailFile(job.id);
      const name = thumbnail.path.split('/').pop() ?? '';
      if (this.cachedThumbnails.has(name)) item.src = webview.asWebviewUri(thumbnail).toString();
      else if (first.url.startsWith('file:')) {
        item.src = webview.asWebviewUri(vscode.Uri.parse(first.url)).toString();
        item.needsThumbnail = true;
      } else if (job.status === 'completed') {
        // Served by URL: shown from the local file once the host has downloaded it.
        const local = this.remoteImages.get(job.id);
        if (local instanceof vscode.Uri) {
          item.src = webview.asWebviewUri(local).toString();
          item.needsThumbnail = true;
        } else if (!local) this.remoteImages.set(job.id, this.downloadResult(job, 'image'));
      }
    }
    return item;
  }

  /**
   * Downloads a completed job's remote image (or video, or audio) into the job's result file (a file kept from an
   * earlier download is used as it is), then shows the gallery again. A failed download leaves the
   * placeholder; it is tried again when the gallery next opens.
   */
  private async downloadResult(job: MediaJob, kind: 'image' | 'video' | 'audio'): Promise<void> {
    try {
      const [first] = await this.studio.media.resultItems(job);
      if (this.isDisposed || !this.studio.media.model.get(job.id)) return;
      if (first?.kind === kind && first.file) {
        this.remoteImages.set(job.id, first.file);
        this.schedulePost();
      }
    } catch {
      // Stays a placeholder: Open shows why.
    }
  }

  /** A completed text result's item with the beginning of its text (a local file read in part). */
  private async withExcerpt(job: MediaJob, item: GalleryItem): Promise<GalleryItem> {
    const first = job.outputs[0];
    if (item.kind !== 'text' || job.status !== 'completed' || !first) return item;
    let text: string | undefined;
    if (first.kind === 'text') text = first.text;
    else if (first.kind === 'url' && first.url.startsWith('file:')) {
      try {
        const { bytes, size } = await readStart(vscode.Uri.parse(first.url), MAX_EXCERPT * 4);
        text = textPreview(bytes, size);
      } catch {
        return item; // Gone, or not readable: the card says "text".
      }
    }
    return text ? { ...item, excerpt: text.slice(0, MAX_EXCERPT) } : item;
  }

  private async cacheThumbnail(id: string, dataUrl: string): Promise<void> {
    if (!this.studio.media.model.get(id)) return;
    const file = this.studio.thumbnailFile(id);
    const base64 = dataUrl.slice(dataUrl.indexOf(',') + 1);
    await vscode.workspace.fs.createDirectory(this.studio.thumbnailFolder);
    await vscode.workspace.fs.writeFile(file, base64Bytes(base64, 'The thumbnail'));
    this.cachedThumbnails.add(file.path.split('/').pop() ?? '');
  }

  private async act(action: GalleryAction, ids: readonly string[]): Promise<void> {
    const jobs = ids.map((id) => this.studio.media.model.get(id)).filter((job): job is MediaJob => !!job);
    try {
      switch (action) {
        case 'open':
          if (jobs[0]) await this.studio.media.open(jobs[0]);
          break;
        case 'insert':
          if (jobs[0]) await this.studio.insert(jobs[0]);
          break;
        case 'rerun':
          for (const job of jobs) await this.studio.rerun(job);
          break;
        case 'variation':
          if (jobs[0]) await this.studio.variation(jobs[0]);
          break;
        case 'save': {
          const saved = [];
          for (const job of jobs.filter((j) => j.status === 'completed'))
            saved.push(...(await this.studio.save(job)));
          void notify.info(`Gateway AI: saved ${saved.length} file(s) into the workspace.`);
          break;
        }
        case 'delete': {
          const choice = await notify.warn(
            `Gateway AI: delete ${jobs.length} result(s) from the gallery and the extension's storage? Copies saved in the workspace stay.`,
            'Delete',
          );
          if (choice !== 'Delete') return;
          await this.deleteJobs(jobs);
          break;
        }
      }
    } catch (error) {
      void notify.error(`Gateway AI: ${(error as Error).message}`);
    }
  }

  /** Removes jobs and their stored files and thumbnails (never files saved in the workspace). */
  async deleteJobs(jobs: readonly MediaJob[]): Promise<void> {
    for (const job of jobs) {
      await this.studio.media.remove(job.id);
      const thumbnail = this.studio.thumbnailFile(job.id);
      await vscode.workspace.fs.delete(thumbnail).then(undefined, () => undefined);
      this.cachedThumbnails.delete(thumbnail.path.split('/').pop() ?? '');
    }
  }
}
