import * as vscode from 'vscode';
import { Command, Setting, SettingSection } from '../../core/ids';
import { InlineEngine } from '../../core/inline/engine';
import type { InlineDocument, InlineTarget } from '../../core/inline/engine';
import { excludedBy } from '../../core/inline/exclude';
import type { AcceptedCompletion } from '../../core/inline/tally';
import { placements, untitledFilePath } from '../../core/inline/where';
import type { Pause } from '../../core/inline/pacing';
import { chooseInlineModel, chooseMode } from '../../core/inline/modelChoice';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { ModelCatalog } from '../catalog/modelCatalog';
import type { Settings } from '../config/settings';
import { realUriPath } from '../diskPaths';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { osPlatform } from '../platform';

/** Paths on Windows and macOS disks are compared without case, as those disks do. */
const IGNORE_CASE = osPlatform() !== 'linux';

export interface InlineFeatureDeps {
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  settings: Settings;
  catalog: ModelCatalog;
  logger: Logger;
}

/**
 * The inline completion provider: decides whether a document may be sent at all (enabled,
 * trusted workspace, inside it, language on, not excluded), then hands the cursor to the engine
 * and its suggestion to VS Code, with our command on the item to count acceptances. A pause
 * (401, 402, 403, no key) is announced once, with the way out.
 */
export class InlineCompletionsFeature extends Disposable implements vscode.InlineCompletionItemProvider {
  readonly engine: InlineEngine;
  /** Why the last document was not sent (for the log and the tests); undefined: it was. */
  lastRefusal: string | undefined;
  /** Real paths by document version and of workspace folders (links resolved). */
  private readonly realPaths = new Map<string, Promise<string | undefined>>();

  constructor(private readonly deps: InlineFeatureDeps) {
    super();
    this.engine = new InlineEngine({
      client: () => deps.gateway.client(),
      target: () => this.target(),
    });
    this.register({ dispose: () => this.engine.dispose() });
    this.register(
      deps.apiKey.onDidChange(() => {
        this.engine.cache.clear();
        this.engine.gate.resume();
      }),
    );
    this.register(
      deps.settings.onDidChange((change) => {
        if (change.affects(SettingSection.inline) || change.affects(Setting.baseUrl)) {
          this.engine.cache.clear();
          this.engine.gate.resume();
        }
      }),
    );
    this.register(this.engine.gate.onDidChangePause((pause) => pause && this.announce(pause)));
  }

  async provideInlineCompletionItems(
    document: vscode.TextDocument,
    position: vscode.Position,
    _context: vscode.InlineCompletionContext,
    token: vscode.CancellationToken,
  ): Promise<vscode.InlineCompletionItem[] | undefined> {
    const path = await this.refusal(document);
    if (typeof path !== 'string' || token.isCancellationRequested) return undefined;
    const controller = new AbortController();
    const cancel = token.onCancellationRequested(() => controller.abort());
    try {
      const doc: InlineDocument = {
        key: document.uri.toString(),
        lines: { lineCount: document.lineCount, lineAt: (line) => document.lineAt(line).text },
        position: { line: position.line, character: position.character },
        path,
        languageId: document.languageId,
      };
      const suggestion = await this.engine.complete(doc, controller.signal);
      if (!suggestion || token.isCancellationRequested) return undefined;
      const accepted: AcceptedCompletion = { model: suggestion.model, cached: suggestion.cached };
      return [
        new vscode.InlineCompletionItem(suggestion.text, new vscode.Range(position, position), {
          command: Command.inlineCompletionAccepted,
          title: 'Inline completion accepted',
          arguments: [accepted],
        }),
      ];
    } finally {
      cancel.dispose();
    }
  }

  /**
   * The path to send for the document (relative to the innermost workspace folder, '' when
   * untitled), or why nothing is sent: `{refused}`. A file counts by where it really is (a
   * symlink inside the workspace to a key outside it is outside), and exclude patterns see every
   * path it has: from each folder that contains it, through the link and to its target. An
   * untitled document named with a file path is checked as that file. Logged once per reason.
   */
  private async refusal(document: vscode.TextDocument): Promise<string | { refused: string }> {
    const settings = this.deps.settings.current.inlineCompletions;
    const refuse = (why: string): { refused: string } => {
      if (this.lastRefusal !== why) this.deps.logger.debug(`Inline completions: nothing sent, ${why}.`);
      this.lastRefusal = why;
      return { refused: why };
    };
    if (!settings.enabled) return refuse('they are off');
    if (!vscode.workspace.isTrusted) return refuse('the workspace is not trusted');
    if (settings.languages[document.languageId] === false)
      return refuse(`they are off for ${document.languageId}`);
    const { scheme, authority, path: uriPath } = document.uri;
    let path = '';
    const seen: string[] = [];
    const allFolders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri);
    // A virtual workspace (github.dev's `vscode-vfs`, a remote repository): its own documents
    // count as the workspace's files, placed among the folders of that file system only.
    const sameFileSystem =
      scheme === 'file' || scheme === 'untitled'
        ? []
        : allFolders.filter((folder) => folder.scheme === scheme && folder.authority === authority);
    if (sameFileSystem.length > 0) {
      const here = placements(
        uriPath,
        sameFileSystem.map((folder) => folder.path),
        IGNORE_CASE,
      );
      if (here.length === 0) return refuse('the file is outside the workspace');
      path = here[0].relative;
      seen.push(...here.map((place) => place.relative), uriPath);
    } else if (scheme === 'file' || (scheme === 'untitled' && untitledFilePath(uriPath))) {
      const file = scheme === 'file' ? document.uri : vscode.Uri.file(uriPath);
      const here = placements(
        file.path,
        allFolders.map((folder) => folder.path),
        IGNORE_CASE,
      );
      if (here.length === 0) return refuse('the file is outside the workspace');
      path = here[0].relative;
      seen.push(...here.map((place) => place.relative));
      if (scheme === 'file') {
        const real = await this.realPath(document);
        if (real === undefined) return refuse('the file’s real path cannot be read');
        const realFolders = await Promise.all(allFolders.map((folder) => this.realFolder(folder)));
        const there = placements(real, realFolders, IGNORE_CASE);
        if (there.length === 0) return refuse('the file is a link to outside the workspace');
        // And the absolute real path: in a folder that is itself `~/.aws`, the relative path is
        // only `credentials`.
        seen.push(...there.map((place) => place.relative), real);
      }
    } else if (scheme === 'untitled') seen.push(uriPath);
    else return refuse(`${scheme} documents are not sent`);
    for (const candidate of seen) {
      const pattern = excludedBy(candidate, settings.exclude);
      if (pattern) return refuse(`the file matches the exclude pattern ${pattern}`);
    }
    this.lastRefusal = undefined;
    return path;
  }

  /** The document's real path as a URI path, per version; undefined when it cannot be read. */
  private async realPath(document: vscode.TextDocument): Promise<string | undefined> {
    const key = `${document.version}@${document.uri.toString()}`;
    let real = this.realPaths.get(key);
    if (!real) {
      if (this.realPaths.size > 200) this.realPaths.clear();
      real = realUriPath(document.uri).catch(() => undefined);
      this.realPaths.set(key, real);
    }
    return real;
  }

  /** A workspace folder's real path (the folder itself may be a link). */
  private async realFolder(folder: vscode.Uri): Promise<string> {
    let real = this.realPaths.get(folder.toString());
    if (!real) {
      real = realUriPath(folder).catch(() => folder.path);
      this.realPaths.set(folder.toString(), real);
    }
    return (await real) ?? folder.path;
  }

  /** The model (the setting, else a fast code model from the catalog) and the way to ask it. */
  async target(): Promise<InlineTarget | undefined> {
    const settings = this.deps.settings.current;
    const model =
      chooseInlineModel(settings.inlineCompletions.model, []) ??
      chooseInlineModel('', await this.deps.catalog.models());
    if (!model) return undefined;
    const mode = chooseMode(
      settings.inlineCompletions.mode,
      model,
      this.deps.catalog.peek(model),
      settings.baseUrl,
    );
    return { model, mode };
  }

  private announce(pause: Pause): void {
    this.deps.logger.warn(`Inline completions paused: ${pause.message}`);
    const action = pause.reason === 'key' || pause.reason === 'config' ? 'Set API Key' : 'Resume';
    void notify
      .warn(`Gateway AI: inline completions are paused until this is fixed. ${pause.message}`, action)
      .then((choice) => {
        if (choice === 'Set API Key') void vscode.commands.executeCommand(Command.setApiKey);
        else if (choice === 'Resume') this.engine.gate.resume();
      });
  }
}
