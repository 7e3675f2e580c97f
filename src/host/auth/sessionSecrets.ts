import * as vscode from 'vscode';
import { Command, StorageKey } from '../../core/ids';
import type { IDisposable } from '../../core/util/lifecycle';
import { notify } from '../notify';
import { HOST_PLATFORM } from '../platform';
import type { ApiKeyStore } from './apiKeyStore';

/**
 * VS Code for the Web keeps SecretStorage where the page's host decides; some keep it in memory
 * only, so a key typed in one session is gone in the next, silently. There is no API that says
 * which, so the browser build remembers, in the extension's (persistent) global state, only THAT a
 * key was stored. At the next start a key that is gone, with no Clear API Key in between, tells
 * the user that this browser keeps the key for a session only: once, with a way to set it again.
 * Desktop secret storage persists, so there this does nothing.
 */
export function watchSessionSecrets(state: vscode.Memento, apiKey: ApiKeyStore): IDisposable | undefined {
  if (HOST_PLATFORM.kind !== 'web') return undefined;
  void apiKey.get().then(
    async (key) => {
      if (key || !state.get<boolean>(StorageKey.keyWasStored)) return;
      await state.update(StorageKey.keyWasStored, undefined);
      const choice = await notify.info(
        'Gateway AI: the API key you set in an earlier session is gone: VS Code in this browser keeps secrets only for a session. Set it again (it lasts until you close this window), or open a desktop or remote window to keep it.',
        'Set API Key',
      );
      if (choice === 'Set API Key') await vscode.commands.executeCommand(Command.setApiKey);
    },
    () => undefined,
  );
  return apiKey.onDidChange((key) => void state.update(StorageKey.keyWasStored, key ? true : undefined));
}
