import * as vscode from 'vscode';
import { ApiKeyStore } from './host/auth/apiKeyStore';
import { ChatController } from './host/chat/chatSession';
import { ChatViewProvider } from './host/chat/chatViewProvider';
import { ConversationStore } from './core/chat/conversationStore';
import { RecentModels } from './host/chat/modelPicker';
import { storageFolder } from './host/storage/storageFolder';
import { registerCommands } from './host/commands';
import { seedDemoKey } from './host/dev/demoKey';
import { GatewayService } from './host/gateway/gatewayService';
import { Logger } from './host/log/logger';
import { registerMediaJobs, type MediaJobsFeature } from './host/media/mediaJobsFeature';
import { ModelStatusItem } from './host/statusBar';

/**
 * The extension's internals, handed to its own tests as `exports`. Only for an extension under
 * development or test: an installed one exports nothing, so no other extension can reach the key.
 */
export interface GatewayTestApi {
  chat: ChatController;
  chatView: ChatViewProvider;
  media: MediaJobsFeature;
  apiKey: ApiKeyStore;
  context: vscode.ExtensionContext;
}

/** Wires the extension together: construct, register, subscribe. No I/O happens here. */
export function activate(context: vscode.ExtensionContext): GatewayTestApi | undefined {
  const apiKey = new ApiKeyStore(context.secrets);
  const logger = new Logger(() => [apiKey.peek()]);
  const gateway = new GatewayService(apiKey, logger);
  const store = new ConversationStore(storageFolder(context.globalStorageUri, 'conversations'), (problem) => logger.warn(problem));
  const chat = new ChatController({ gateway, store, apiKey, logger });
  const chatView = new ChatViewProvider(context.extensionUri, chat, logger);
  const media = registerMediaJobs({ context, gateway, apiKey, logger });

  context.subscriptions.push(
    logger,
    apiKey,
    gateway,
    chat,
    chatView,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chatView),
    ...registerCommands({ apiKey, controller: chat, view: chatView, recentModels: new RecentModels(context.globalState) }),
    media.disposable,
    new ModelStatusItem(apiKey),
  );
  seedDemoKey(context, apiKey);
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return { chat, chatView, media: media.feature, apiKey, context };
}

export function deactivate(): void {
  // Everything is released through context.subscriptions.
}
