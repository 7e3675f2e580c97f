import * as vscode from 'vscode';
import { ConversationStore } from '../../core/chat/conversationStore';
import { Command, View } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { storageFolder } from '../storage/storageFolder';
import { ask, explainSelection, selectModel } from './chatCommands';
import { ChatSession } from './chatSession';
import { ChatViewProvider } from './chatViewProvider';
import { ChatViewRouter } from './chatViewRouter';
import { RecentModels } from './modelPicker';
import { AttachmentTray } from './attachments';
import { addFiles, addImage, addProblems, addSelection } from './attachmentCommands';

export interface ChatFeatureDeps {
  context: vscode.ExtensionContext;
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  logger: Logger;
  catalog: CatalogFeature;
}

/**
 * The chat feature: the conversation session, the view and its router, and the chat commands
 * (New Chat, Ask, Explain Selection, Select Chat Model).
 */
export class ChatFeature extends Disposable {
  readonly session: ChatSession;
  readonly view: ChatViewProvider;
  readonly router: ChatViewRouter;

  constructor(deps: ChatFeatureDeps) {
    super();
    const { context, gateway, apiKey, logger, catalog } = deps;
    const store = new ConversationStore(storageFolder(context.globalStorageUri, 'conversations'), (problem) =>
      logger.warn(problem),
    );
    const tray = this.register(new AttachmentTray(vscode.Uri.joinPath(context.globalStorageUri, 'images')));
    this.session = this.register(new ChatSession({ gateway, store, apiKey, logger, catalog, tray }));
    const attachmentDeps = {
      tray,
      reveal: () => this.view.reveal(),
      imagesAllowed: () => this.session.imagesAllowed(),
    };
    this.router = new ChatViewRouter(this.session, logger, attachmentDeps);
    this.view = this.register(new ChatViewProvider(context.extensionUri, this.session, this.router, logger));
    this.register(vscode.window.registerWebviewViewProvider(View.chat, this.view));

    const commandDeps = {
      session: this.session,
      view: this.view,
      recentModels: new RecentModels(context.globalState),
      catalog,
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
    this.register(r(Command.addSelectionToChat, () => addSelection(attachmentDeps)));
    this.register(
      r(Command.addFileToChat, (arg?: unknown, selection?: unknown) =>
        addFiles(attachmentDeps, arg, selection),
      ),
    );
    this.register(r(Command.addProblemsToChat, (arg?: unknown) => addProblems(attachmentDeps, arg)));
    this.register(r(Command.addImageToChat, (arg?: unknown) => addImage(attachmentDeps, arg)));
  }
}
