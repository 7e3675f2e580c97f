import * as vscode from 'vscode';
import { ApiKeyStore } from './host/auth/apiKeyStore';
import { registerKeyCommands } from './host/auth/keyCommands';
import { ChatFeature } from './host/chat/chatFeature';
import type { ChatSession } from './host/chat/chatSession';
import type { ChatViewProvider } from './host/chat/chatViewProvider';
import type { ChatViewRouter } from './host/chat/chatViewRouter';
import type { ConversationStore } from './core/chat/conversationStore';
import { seedDemoKey } from './host/dev/demoKey';
import { GatewayService } from './host/gateway/gatewayService';
import { Logger } from './host/log/logger';
import { MediaJobsFeature } from './host/media/mediaJobsFeature';
import { ModelStatusItem } from './host/modelStatusItem';
import { StorageReports } from './host/storage/storageReports';

/**
 * The extension's internals, handed to its own tests as `exports`. Only for an extension under
 * development or test: an installed one exports nothing, so no other extension can reach the key.
 */
export interface GatewayTestApi {
  chat: ChatSession;
  chatView: ChatViewProvider;
  chatRouter: ChatViewRouter;
  chatStore: ConversationStore;
  storageReports: StorageReports;
  media: MediaJobsFeature;
  apiKey: ApiKeyStore;
  context: vscode.ExtensionContext;
}

/** Wires the extension together: construct, register, subscribe. No I/O happens here. */
export function activate(context: vscode.ExtensionContext): GatewayTestApi | undefined {
  const apiKey = new ApiKeyStore(context.secrets);
  const logger = new Logger(() => [apiKey.peek()]);
  const gateway = new GatewayService(apiKey, logger);
  const reports = new StorageReports(logger);
  const chat = new ChatFeature({ context, gateway, apiKey, logger, reports });
  const media = new MediaJobsFeature({ context, gateway, apiKey, logger, reports });

  context.subscriptions.push(
    logger,
    reports,
    apiKey,
    gateway,
    chat,
    media,
    ...registerKeyCommands(apiKey),
    new ModelStatusItem(apiKey),
  );
  seedDemoKey(context, apiKey);
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return {
    chat: chat.session,
    chatView: chat.view,
    chatRouter: chat.router,
    chatStore: chat.store,
    storageReports: reports,
    media,
    apiKey,
    context,
  };
}

export function deactivate(): void {
  // Everything is released through context.subscriptions.
}
