import * as vscode from 'vscode';
import { ConversationStore, INDEX_FILE } from '../../core/chat/conversationStore';
import { Command, StorageKey } from '../../core/ids';
import { ModelChoicesStore } from './modelChoices';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { CostTracker } from '../cost/costTracker';
import type { GatewayService } from '../gateway/gatewayService';
import type { CommandHandler } from '../lazyFeature';
import type { Logger } from '../log/logger';
import { FolderWatch } from '../storage/folderWatch';
import { storageFolder } from '../storage/storageFolder';
import type { StorageReports } from '../storage/storageReports';
import { addFiles, addImage, addProblems, addSelection } from './attachmentCommands';
import { AttachmentTray } from './attachments';
import { ask, explainSelection, selectModel } from './chatCommands';
import type { ChatCommand } from './chatCommandIds';
import { ChatSession } from './chatSession';
import { WorkspaceCheckpoints } from '../agent/checkpoints/workspaceCheckpoints';
import { ChatAgent } from '../agent/chatAgent';
import { BUILTIN_SOURCE, BuiltinTools, toolSettings } from '../agent/builtinTools';
import type { MediaTool } from '../agent/builtinTools';
import { McpHub } from '../agent/mcp/mcpHub';
import { LmToolSet } from '../agent/lmTools';
import { InstructionFiles } from './instructionFiles';
import { ChatModes } from './agentModes';
import { ChatViewProvider } from './chatViewProvider';
import { ChatViewRouter } from './chatViewRouter';
import { RecentModels } from './modelPicker';
import type { ChatMediaJobs } from './chatMedia';

export interface ChatFeatureDeps {
  context: vscode.ExtensionContext;
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  settings: Settings;
  logger: Logger;
  catalog: CatalogFeature;
  reports: StorageReports;
  /** Today's cost: each reply's is recorded there (and found through it when the stream had none). */
  costs?: CostTracker;
  /** The media-jobs feature, loaded on first call: `/image …` in the chat starts its jobs. */
  media?: () => ChatMediaJobs;
  /** The media feature's `gateway_generateMedia` tool, for the agent's `generate_media`. */
  mediaTool?: () => MediaTool;
}

/**
 * The chat feature: the conversation session, the view and its router, the chat commands (New
 * Chat, Ask, Explain Selection, Select Chat Model) and the attachment commands. Activation
 * registers the view provider and the commands (chatLoader.ts); this is constructed when one of
 * them is first used.
 */
export class ChatFeature extends Disposable {
  readonly session: ChatSession;
  readonly view: ChatViewProvider;
  readonly router: ChatViewRouter;
  readonly store: ConversationStore;
  readonly commands: Readonly<Record<ChatCommand, CommandHandler>>;
  /** The MCP servers the agent may use (tests reach it through the extension's exports). */
  readonly mcp: McpHub;

  constructor(deps: ChatFeatureDeps) {
    super();
    const { context, gateway, apiKey, settings, logger, catalog, reports, media, costs } = deps;
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
    const tray = this.register(new AttachmentTray(vscode.Uri.joinPath(context.globalStorageUri, 'images')));
    // The agent's tools: our own first, then MCP servers' (started only when the user turns one
    // on), then other extensions' from vscode.lm.tools.
    const mediaTool = deps.mediaTool;
    const builtin = this.register(
      new BuiltinTools({
        folders: () => vscode.workspace.workspaceFolders ?? [],
        trusted: () => vscode.workspace.isTrusted,
        settings: () => toolSettings(settings),
        logger,
        generateMedia: mediaTool && (() => Promise.resolve(mediaTool())),
      }),
    );
    const mcp = this.register(
      new McpHub({
        logger,
        workspaceState: context.workspaceState,
        globalStorageUri: context.globalStorageUri,
        clientVersion: extensionVersion(context),
      }),
    );
    this.mcp = mcp;
    const lmTools = this.register(new LmToolSet());
    const instructions = new InstructionFiles(context.workspaceState, logger, settings);
    // Kept across reloads in the extension's storage; never the secrets list's files.
    const checkpoints = new WorkspaceCheckpoints({
      storage: context.globalStorageUri,
      secretPatterns: () => toolSettings(settings).secretPatterns,
      logger,
    });
    const agent = this.register(
      new ChatAgent({
        providers: [
          {
            sources: () => [{ source: BUILTIN_SOURCE, tools: builtin.specs() }],
            prepare: (name, args, signal) => builtin.prepare(name, args, signal),
          },
          mcp,
          lmTools,
        ],
        state: context.globalState,
        settings,
        logger,
        reveal: () => void this.view.reveal(),
        checkpoints,
      }),
    );
    const modes = this.register(
      new ChatModes({
        state: context.workspaceState,
        settings,
        logger,
        instructions,
        catalog,
        toolNames: () => agent.pickerState('', { available: true }).sources.flatMap((s) => s.tools),
        onToolsChange: agent.onDidChange,
        save: (conversation) => store.save(conversation, false),
      }),
    );
    this.session = this.register(
      new ChatSession({
        gateway,
        store,
        apiKey,
        settings,
        logger,
        catalog,
        tray,
        media,
        costs,
        webview: () => this.view.webviewView?.webview,
        visible: () => this.view.webviewView?.visible ?? false,
        choices: new ModelChoicesStore(context.globalState),
        agent,
        instructions,
        modes,
        checkpoints,
      }),
    );
    const attachmentDeps = {
      tray,
      reveal: () => this.view.reveal(),
      imagesAllowed: () => this.session.imagesAllowed(),
    };
    this.router = new ChatViewRouter(this.session, settings, logger, attachmentDeps, modes);
    // Media cards show result files from the media jobs' storage folder.
    const mediaResults = vscode.Uri.joinPath(context.globalStorageUri, StorageKey.mediaResultsFolder);
    this.view = this.register(
      new ChatViewProvider(context.extensionUri, this.session, this.router, logger, [mediaResults]),
    );

    const commandDeps = {
      session: this.session,
      view: this.view,
      recentModels: new RecentModels(context.globalState),
      catalog,
      settings,
    };
    this.commands = {
      [Command.newChat]: async () => {
        await this.view.reveal();
        await this.session.newChat();
      },
      [Command.ask]: (prompt?: unknown) => ask(commandDeps, prompt),
      [Command.explainSelection]: () => explainSelection(commandDeps),
      [Command.selectModel]: (model?: unknown) => selectModel(commandDeps, model),
      [Command.addSelectionToChat]: () => addSelection(attachmentDeps),
      [Command.addFileToChat]: (arg?: unknown, selection?: unknown) =>
        addFiles(attachmentDeps, arg, selection),
      [Command.addProblemsToChat]: (arg?: unknown) => addProblems(attachmentDeps, arg),
      [Command.addImageToChat]: (arg?: unknown) => addImage(attachmentDeps, arg),
      [Command.manageAllowedCommands]: () => agent.approvals.manageAllowedCommands(),
      [Command.instructionFiles]: () => instructions.pick(),
    };
  }
}

/** The extension's version, as its package says (the MCP client names itself with it). */
function extensionVersion(context: vscode.ExtensionContext): string {
  const version: unknown = (context.extension.packageJSON as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}
