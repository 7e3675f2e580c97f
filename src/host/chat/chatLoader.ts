import * as vscode from 'vscode';
import { View } from '../../core/ids';
import { LazyFeature } from '../lazyFeature';
import type { ChatFeature, ChatFeatureDeps } from './chatBundle';
import { CHAT_COMMANDS } from './chatCommandIds';

/**
 * What activation registers for the chat: its commands and its view provider. The chat feature
 * (`chatBundle.ts`) is evaluated when the view resolves or a chat command first runs.
 */
export function registerChat(deps: ChatFeatureDeps): LazyFeature<ChatFeature> {
  const chat = new LazyFeature('chat', () => new (loadChatBundle().ChatFeature)(deps), deps.logger);
  chat.registerCommands(CHAT_COMMANDS);
  const view: vscode.WebviewViewProvider = {
    resolveWebviewView: (webviewView) => chat.get().view.resolveWebviewView(webviewView),
  };
  chat.track(vscode.window.registerWebviewViewProvider(View.chat, view));
  return chat;
}

/** The chat feature's module, evaluated on the first call. */
export function loadChatBundle(): typeof import('./chatBundle') {
  // Bundled in, and evaluated only on this first `require` (esbuild keeps a required module's body
  // unrun until then), so activation does not run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./chatBundle') as typeof import('./chatBundle');
}
