import * as vscode from 'vscode';
import { ConversationStore, INDEX_FILE } from '../../core/chat/conversationStore';
import { Command, View } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { FolderWatch } from '../storage/folderWatch';
import { storageFolder } from '../storage/storageFolder';
import type { StorageReports } from '../storage/storageReports';
import { ask, explainSelection, selectModel } from './chatCommands';
import { ChatSession } from './chatSession';
import { ChatViewProvider } from './chatViewProvider';
import { ChatViewRouter } from './chatViewRouter';
import { RecentModels } from './modelPicker';

export interface ChatFeatureDeps {
  context: vscode.ExtensionContext;
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  logger: Logger;
  reports: StorageReports;
}

/**
 * The chat feature: the conversation session, the view and its router, and the chat commands
 * (New Chat, Ask, Explain Selection, Select Chat Model).
 */
export class ChatFeature extends Disposable {
  readonly session: ChatSession;
  readonly view: ChatViewProvider;
  readonly router: ChatViewRouter;
  readonly store: ConversationStore;

  constructor(deps: ChatFeatureDeps) {
    super();
    const { context, gateway, apiKey, logger, reports } = deps;
    const folder = storageFolder(context.globalStorageUri, 'conversations');
    const store = new ConversationStore(folder, {
      onProblem: (problem) => logger.warn(problem),
      onKept: (kept) => reports.kept(kept, folder.fileUri(kept.keptAs)),
      onSaveFailed: (error) => reports.saveFailed('chats', error),
      onSaveRecovered: () => reports.saveRecovered('chats'),
    });
    this.store = store;
    this.register({ dispose: () => store.dispose() });
    // Other windows write to the same folder: follow them.
    this.register(new FolderWatch(folder.uri, [INDEX_FILE], () => void store.refresh()));
    this.session = this.register(new ChatSession({ gateway, store, apiKey, logger }));
    this.router = new ChatViewRouter(this.session, logger);
    this.view = this.register(new ChatViewProvider(context.extensionUri, this.session, this.router, logger));
    this.register(vscode.window.registerWebviewViewProvider(View.chat, this.view));

    const commandDeps = {
      session: this.session,
      view: this.view,
      recentModels: new RecentModels(context.globalState),
    };
    const r = vscode.commands.registerCommand;
    this.register(
      r(Command.newChat, async () => {
        await this.view.reveal();
        await this.session.newChat();
      }),
    );
    this.register(r(Command.ask, (prompt?: unknown) => ask(commandDeps, prompt)));
    this.register(r(Command.explainSelection, () => explainSelection(commandDeps)));
    this.register(r(Command.selectModel, (model?: unknown) => selectModel(commandDeps, model)));
  }
}
