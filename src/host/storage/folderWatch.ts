import * as vscode from 'vscode';
import { Disposable } from '../../core/util/lifecycle';

/** How often the fallback looks at the watched files when no watcher event came. */
export const FALLBACK_POLL_MS = 2000;
const DEBOUNCE_MS = 100;

/**
 * Tells when other windows changed files in a storage folder: a FileSystemWatcher on the folder,
 * plus a light fallback (a stat of the few files that matter every couple of seconds) for file
 * systems where the watcher stays silent. Bursts of events become one call.
 */
export class FolderWatch extends Disposable {
  private readonly stamps = new Map<string, string>();
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private lastEventAt = 0;

  constructor(
    private readonly folder: vscode.Uri,
    /** The files whose change matters (e.g. the index); the fallback stats only these. */
    private readonly files: readonly string[],
    private readonly onChange: () => void,
  ) {
    super();
    try {
      const watcher = this.register(
        vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '*.json')),
      );
      const fire = (uri: vscode.Uri) => {
        if (/\.tmp-/.test(uri.path)) return;
        this.lastEventAt = Date.now();
        this.schedule();
      };
      this.register(watcher.onDidChange(fire));
      this.register(watcher.onDidCreate(fire));
      this.register(watcher.onDidDelete(fire));
    } catch {
      // No watcher for this file system: the fallback does the work.
    }
    const timer = setInterval(() => void this.poll(), FALLBACK_POLL_MS);
    this.register({ dispose: () => clearInterval(timer) });
    this.register({ dispose: () => this.debounce && clearTimeout(this.debounce) });
  }

  private schedule(): void {
    if (this.isDisposed) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      if (!this.isDisposed) this.onChange();
    }, DEBOUNCE_MS);
  }

  private async poll(): Promise<void> {
    let changed = false;
    for (const name of this.files) {
      let stamp = 'missing';
      try {
        const stat = await vscode.workspace.fs.stat(vscode.Uri.joinPath(this.folder, name));
        stamp = `${stat.mtime}:${stat.size}`;
      } catch {
        // Missing.
      }
      if (this.stamps.get(name) !== stamp) {
        if (this.stamps.has(name)) changed = true;
        this.stamps.set(name, stamp);
      }
    }
    // The watcher already told us about this one.
    if (changed && Date.now() - this.lastEventAt > FALLBACK_POLL_MS) this.schedule();
  }
}
