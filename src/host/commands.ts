import * as vscode from 'vscode';
import type { ApiKeyStore } from './auth/apiKeyStore';
import { ask, explainSelection, selectModel, type ChatCommandDeps } from './chat/chatCommands';
import { clearApiKey, setApiKey } from './auth/keyCommands';
import { Command } from '../core/ids';

export interface CommandDeps extends ChatCommandDeps {
  apiKey: ApiKeyStore;
}

/** The key and chat commands. Media commands are registered by the media-jobs feature. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const r = vscode.commands.registerCommand;
  return [
    r(Command.setApiKey, (key?: unknown) => setApiKey(deps.apiKey, key)),
    r(Command.clearApiKey, () => clearApiKey(deps.apiKey)),
    r(Command.newChat, async () => {
      await deps.view.reveal();
      await deps.controller.newChat();
    }),
    r(Command.ask, (prompt?: unknown) => ask(deps, prompt)),
    r(Command.explainSelection, () => explainSelection(deps)),
    r(Command.selectModel, (model?: unknown) => selectModel(deps, model)),
  ];
}
