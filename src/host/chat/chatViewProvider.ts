import * as vscode from 'vscode';
import { Disposable } from '../../core/util/lifecycle';
import type { Logger } from '../log/logger';
import { parseWebviewMessage } from '../../core/protocol/chatProtocol';
import type { ChatSession } from './chatSession';
import type { ChatViewRouter } from './chatViewRouter';
import { CHAT_PAGE, showPage, webviewOptions } from '../webview/webviewShell';
import { View } from '../../core/ids';
import { notify } from '../notify';

/**
 * The `gateway.chat` webview view. It builds the page (strict CSP, scripts by nonce, only the
 * extension's own files), validates every message from the webview, and hands them to the
 * router. The webview asks for its state with `ready` whenever it (re)loads.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = View.chat;
  private view: vscode.WebviewView | undefined;
  private readonly resolved = this.register(new vscode.EventEmitter<vscode.WebviewView>());
  readonly onDidResolve = this.resolved.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly session: ChatSession,
    private readonly router: ChatViewRouter,
    private readonly logger: Logger,
    /** Folders besides the extension's own the page may load files from (media results). */
    private readonly resourceRoots: readonly vscode.Uri[] = [],
  ) {
    super();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = webviewOptions(this.extensionUri, this.resourceRoots);
    const webview = view.webview;
    showPage(webview, this.extensionUri, CHAT_PAGE);
    // Connected once the page says it is ready: its first message from the host is then the
    // whole state (`init`), never a delta for text it has not seen.
    let attached: vscode.Disposable | undefined;
    const received = webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        this.logger.warn(
          `Ignored a malformed message from the chat view: ${JSON.stringify(raw)?.slice(0, 120)}`,
        );
        return;
      }
      if (message.type === 'ready') attached ??= this.session.attach((m) => void webview.postMessage(m));
      this.router.handle(message).catch((error: unknown) => {
        this.logger.error(`Chat action "${message.type}" failed`, error);
        void notify.error(`Gateway AI: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    view.onDidDispose(() => {
      attached?.dispose();
      received.dispose();
      if (this.view === view) this.view = undefined;
    });
    this.resolved.fire(view);
  }

  /** Shows the chat view (resolving it if needed). */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  get webviewView(): vscode.WebviewView | undefined {
    return this.view;
  }
}
