import * as vscode from 'vscode';
import { ApiKeyStore } from './host/auth/apiKeyStore';
import { CatalogFeature } from './host/catalog/catalogFeature';
import { registerKeyCommands } from './host/auth/keyCommands';
import { OpenRouterSignIn, registerSignIn } from './host/auth/signIn';
import { GatewayConnector, registerConnect } from './host/gateway/connectGateway';
import { registerSecretHeaderCommands } from './host/auth/secretHeaderCommands';
import { SecretHeaderStore } from './host/auth/secretHeaderStore';
import { watchSessionSecrets } from './host/auth/sessionSecrets';
import { SettingsService } from './host/config/settingsService';
import { legacyKeyOrigin } from './core/config/keyOrigin';
import { loadChatBundle, registerChat } from './host/chat/chatLoader';
import type { ChatSession } from './host/chat/chatSession';
import type { ChatViewProvider } from './host/chat/chatViewProvider';
import type { ChatViewRouter } from './host/chat/chatViewRouter';
import type { ConversationStore } from './core/chat/conversationStore';
import { seedDemoKey } from './host/dev/demoKey';
import { GatewayService } from './host/gateway/gatewayService';
import { Logger } from './host/log/logger';
import type { MediaJobsFeature } from './host/media/mediaJobsFeature';
import { registerMedia } from './host/media/mediaLoader';
import { registerLanguageModels } from './host/lm/lmLoader';
import { InlineCompletions } from './host/inline/inlineLoader';
import { ModelStatusItem } from './host/modelStatusItem';
import { CostStatusItem } from './host/cost/costStatusItem';
import { CostTracker } from './host/cost/costTracker';
import { storageFolder } from './host/storage/storageFolder';
import { StorageReports } from './host/storage/storageReports';
import { Command, Setting, StorageKey } from './core/ids';
import type { McpHub } from './host/agent/mcp/mcpHub';

/**
 * The extension's internals, handed to its own tests as `exports`. Only for an extension under
 * development or test: an installed one exports nothing, so no other extension can reach the key.
 * Reading a feature's field loads that feature, as its view or a command would.
 */
export interface GatewayTestApi {
  readonly chat: ChatSession;
  readonly chatView: ChatViewProvider;
  readonly chatRouter: ChatViewRouter;
  readonly chatStore: ConversationStore;
  /** The MCP servers the chat's agent may use. */
  readonly agentMcp: McpHub;
  /** The chat feature's module as it ships, for tests that build a hub or a tool set of their own. */
  readonly chatModule: typeof import('./host/chat/chatBundle');
  readonly storageReports: StorageReports;
  readonly media: MediaJobsFeature;
  readonly catalog: CatalogFeature;
  readonly apiKey: ApiKeyStore;
  readonly signIn: OpenRouterSignIn;
  /** Every setting in force, each from where its policy allows. */
  readonly settings: SettingsService;
  readonly status: ModelStatusItem;
  readonly inline: InlineCompletions;
  readonly costs: CostTracker;
  readonly costStatus: CostStatusItem;
  readonly context: vscode.ExtensionContext;
}

/**
 * Wires the extension together: construct, register, subscribe. No I/O happens here, and only
 * what the first paint needs is loaded: the key store, the logger, the gateway service (its
 * client loads on the first request) and the model status item. The chat, media and language-model
 * features are evaluated when their view, a command or an event first needs them.
 */
export function activate(context: vscode.ExtensionContext): GatewayTestApi | undefined {
  // The logger asks the key store for the key to redact only when it writes a line.
  const logger: Logger = new Logger(() => [apiKey.peek(), ...secretHeaders.peekValues()]);
  const settings: SettingsService = new SettingsService(context.globalState, logger);
  // A key stored before keys had an origin belongs to the user's own gateway (never a workspace's).
  const apiKey: ApiKeyStore = new ApiKeyStore(context.secrets, () =>
    legacyKeyOrigin(settings.userValue(Setting.baseUrl)),
  );
  const secretHeaders = new SecretHeaderStore(context.secrets);
  const gateway = new GatewayService(apiKey, settings, logger, context.globalState, secretHeaders);
  const reports = new StorageReports(logger);
  const signIn = new OpenRouterSignIn(
    apiKey,
    settings,
    gateway,
    logger,
    (baseUrl) => gateway.isOpenRouterKind(baseUrl),
    // The new key's credit, read once it is stored (the catalog is made just below).
    async () => {
      await catalog.credits.update(true);
      return catalog.credits.describe();
    },
  );
  const catalog = new CatalogFeature({ context, gateway, apiKey, settings, logger });
  // Today's cost, shared by every window; nothing is read until the first cost or look.
  const costs = new CostTracker(
    storageFolder(context.globalStorageUri, StorageKey.costFolder),
    gateway,
    settings,
    logger,
  );
  const costStatus = new CostStatusItem(costs, catalog.credits);
  const media = registerMedia({
    context,
    gateway,
    apiKey,
    settings,
    logger,
    reports,
    pickMediaModel: (current) => catalog.pickMediaModel(current),
    onJobCost: (cost) => costs.record('media', cost),
  });
  const chat = registerChat({
    context,
    gateway,
    apiKey,
    settings,
    logger,
    catalog,
    reports,
    costs,
    media: () => media.get(),
    mediaTool: () => media.get().studio.tool,
  });

  const status = new ModelStatusItem(apiKey, settings, catalog.credits);
  // Only where VS Code has the provider API (1.104+); the provider loads on VS Code's first call.
  const languageModels = registerLanguageModels({
    gateway,
    apiKey,
    settings,
    catalog: catalog.catalog,
    logger,
    onUsage: (report) => status.addUsage(report.usage),
    costs,
  });

  // Registers its provider only while they are on; the provider is made on VS Code's first request.
  const inline = new InlineCompletions({
    context,
    gateway,
    apiKey,
    settings,
    catalog: catalog.catalog,
    favourites: catalog.favourites,
    logger,
  });

  context.subscriptions.push(
    settings,
    logger,
    reports,
    apiKey,
    gateway,
    catalog,
    costs,
    costStatus,
    vscode.commands.registerCommand(Command.showCost, () => costStatus.show()),
    chat,
    media,
    ...registerKeyCommands(apiKey, settings),
    signIn,
    ...registerSignIn(signIn),
    registerConnect(
      new GatewayConnector(
        settings,
        gateway,
        logger,
        async (origin) => (await apiKey.binding().catch(() => undefined))?.origin === origin,
      ),
    ),
    secretHeaders,
    ...registerSecretHeaderCommands(secretHeaders, settings),
    status,
    inline,
    // Every completion the gateway served, shown or not, is in today's cost.
    inline.onDidSpend(({ cost }) => costs.record('completions', cost)),
    ...(languageModels ? [languageModels] : []),
  );
  const sessionSecrets = watchSessionSecrets(context.globalState, apiKey);
  if (sessionSecrets) context.subscriptions.push(sessionSecrets);
  beforeExit = () => chat.loaded?.mcp.shutdown() ?? Promise.resolve();
  seedDemoKey(context, apiKey, settings);
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return {
    get chat() {
      return chat.get().session;
    },
    get chatView() {
      return chat.get().view;
    },
    get chatRouter() {
      return chat.get().router;
    },
    get chatStore() {
      return chat.get().store;
    },
    get agentMcp() {
      return chat.get().mcp;
    },
    get chatModule() {
      return loadChatBundle();
    },
    storageReports: reports,
    get media() {
      return media.get();
    },
    catalog,
    apiKey,
    signIn,
    settings,
    status,
    inline,
    costs,
    costStatus,
    context,
  };
}

/** What must finish before the extension host exits; set by `activate`. */
let beforeExit: (() => Promise<void>) | undefined;

export function deactivate(): Promise<void> | undefined {
  // Everything is released through context.subscriptions; MCP servers are awaited, with
  // everything they started, so no process outlives the window.
  return beforeExit?.();
}
