import * as vscode from 'vscode';
import { ApiKeyStore } from './host/auth/apiKeyStore';
import { CatalogFeature } from './host/catalog/catalogFeature';
import { registerKeyCommands } from './host/auth/keyCommands';
import { ChatFeature } from './host/chat/chatFeature';
import type { ChatSession } from './host/chat/chatSession';
import type { ChatViewProvider } from './host/chat/chatViewProvider';
import type { ChatViewRouter } from './host/chat/chatViewRouter';
import { seedDemoKey } from './host/dev/demoKey';
import { GatewayService } from './host/gateway/gatewayService';
import { Logger } from './host/log/logger';
import { MediaJobsFeature } from './host/media/mediaJobsFeature';
import { ModelStatusItem } from './host/modelStatusItem';

/**
 * The extension's internals, handed to its own tests as `exports`. Only for an extension under
 * development or test: an installed one exports nothing, so no other extension can reach the key.
 */
export interface GatewayTestApi {
  chat: ChatSession;
  chatView: ChatViewProvider;
  chatRouter: ChatViewRouter;
  media: MediaJobsFeature;
  catalog: CatalogFeature;
  apiKey: ApiKeyStore;
  context: vscode.ExtensionContext;
}

/** Wires the extension together: construct, register, subscribe. No I/O happens here. */
export function activate(context: vscode.ExtensionContext): GatewayTestApi | undefined {
  const apiKey = new ApiKeyStore(context.secrets);
  const logger = new Logger(() => [apiKey.peek()]);
  const gateway = new GatewayService(apiKey, logger);
  const catalog = new CatalogFeature({ context, gateway, logger });
  const chat = new ChatFeature({ context, gateway, apiKey, logger, catalog });
  const media = new MediaJobsFeature({
    context,
    gateway,
    apiKey,
    logger,
    pickMediaModel: (current) => catalog.pickMediaModel(current),
  });

  context.subscriptions.push(
    logger,
    apiKey,
    gateway,
    catalog,
    chat,
    media,
    ...registerKeyCommands(apiKey),
    new ModelStatusItem(apiKey, catalog.credits),
  );
  seedDemoKey(context, apiKey);
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return {
    chat: chat.session,
    chatView: chat.view,
    chatRouter: chat.router,
    media,
    catalog,
    apiKey,
    context,
  };
}

export function deactivate(): void {
  // Everything is released through context.subscriptions.
}
