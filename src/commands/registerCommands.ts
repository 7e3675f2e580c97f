import * as vscode from 'vscode';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import { ask, explainSelection, selectModel, type ChatCommandDeps } from './chatCommands';
import { clearApiKey, setApiKey } from './keyCommands';

export interface CommandDeps extends ChatCommandDeps {
  apiKey: ApiKeyStore;
}

/** The key and chat commands. Media commands are registered by the media-jobs feature. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const r = vscode.commands.registerCommand;
  return [
    r('gateway.setApiKey', (key?: unknown) => setApiKey(deps.apiKey, key)),
    r('gateway.clearApiKey', () => clearApiKey(deps.apiKey)),
    r('gateway.newChat', async () => {
      await deps.view.reveal();
      await deps.controller.newChat();
    }),
    r('gateway.ask', (prompt?: unknown) => ask(deps, prompt)),
    r('gateway.explainSelection', () => explainSelection(deps)),
    r('gateway.selectModel', (model?: unknown) => selectModel(deps, model)),
  ];
}
