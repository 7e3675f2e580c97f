import * as vscode from 'vscode';
import { Command, Setting, SettingSection } from '../../core/ids';
import { InlineEngine } from '../../core/inline/engine';
import type { InlineDocument, InlineTarget } from '../../core/inline/engine';
import { excludedBy } from '../../core/inline/exclude';
import type { Pause } from '../../core/inline/pacing';
import { chooseInlineModel, chooseMode } from '../../core/inline/modelChoice';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { ModelCatalog } from '../catalog/modelCatalog';
import { readSettings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { notify } from '../notify';

export interface InlineFeatureDeps {
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  catalog: ModelCatalog;
  logger: Logger;
}

/** What an accepted suggestion's command carries. */
export interface AcceptedCompletion {
  model?: string;
  cached: boolean;
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
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SettingSection.inline) || e.affectsConfiguration(Setting.baseUrl)) {
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
    const path = this.refusal(document);
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
   * The path to send for the document (workspace-relative, '' when untitled), or why nothing is
   * sent: `{refused}`. Logged once per reason and document, at debug level.
   */
  private refusal(document: vscode.TextDocument): string | { refused: string } {
    const settings = readSettings().inlineCompletions;
    const refuse = (why: string): { refused: string } => {
      if (this.lastRefusal !== why) this.deps.logger.debug(`Inline completions: nothing sent, ${why}.`);
      this.lastRefusal = why;
      return { refused: why };
    };
    if (!settings.enabled) return refuse('they are off');
    if (!vscode.workspace.isTrusted) return refuse('the workspace is not trusted');
    if (settings.languages[document.languageId] === false)
      return refuse(`they are off for ${document.languageId}`);
    let path = '';
    if (document.uri.scheme === 'file') {
      if (!vscode.workspace.getWorkspaceFolder(document.uri))
        return refuse('the file is outside the workspace');
      path = vscode.workspace.asRelativePath(document.uri, false).replace(/\\/g, '/');
    } else if (document.uri.scheme !== 'untitled')
      return refuse(`${document.uri.scheme} documents are not sent`);
    const pattern = excludedBy(path, settings.exclude);
    if (pattern) return refuse(`the file matches the exclude pattern ${pattern}`);
    this.lastRefusal = undefined;
    return path;
  }

  /** The model (the setting, else a fast code model from the catalog) and the way to ask it. */
  async target(): Promise<InlineTarget | undefined> {
    const settings = readSettings();
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
