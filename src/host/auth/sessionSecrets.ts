import * as vscode from 'vscode';
import { Command, StorageKey } from '../../core/ids';
import type { IDisposable } from '../../core/util/lifecycle';
import { notify } from '../notify';
import { HOST_PLATFORM } from '../platform';
import type { HostPlatform } from '../platformKind';
import type { ApiKeyStore } from './apiKeyStore';

/**
 * VS Code for the Web keeps SecretStorage where the page's host decides; some keep it in memory
 * only, so a key typed in one session is gone in the next, silently. There is no API that says
 * which, so the browser build remembers, in the extension's (persistent) global state, only THAT a
 * key was stored. At the next start a key that is gone, with no Clear API Key in between, tells
 * the user that this browser keeps the key for a session only: once, with a way to set it again.
 * Desktop secret storage persists, so there this does nothing.
 */
export function watchSessionSecrets(
  state: vscode.Memento,
  apiKey: Pick<ApiKeyStore, 'get' | 'onDidChange'>,
  platform: HostPlatform = HOST_PLATFORM,
): SessionSecretsWatch | undefined {
  if (platform.kind !== 'web') return undefined;
  // Only a change seen after the first look counts: the look itself must find the old marker.
  const looked = apiKey.get().then(
    async (key) => {
      if (key || !state.get<boolean>(StorageKey.keyWasStored)) return;
      await state.update(StorageKey.keyWasStored, undefined);
      void notify
        .info(
          'Gateway AI: the API key you set in an earlier session is gone: VS Code in this browser keeps secrets only for a session. Set it again (it lasts until you close this window), or open a desktop or remote window to keep it.',
          'Set API Key',
        )
        .then((choice) => {
          if (choice === 'Set API Key') void vscode.commands.executeCommand(Command.setApiKey);
        });
    },
    () => undefined,
  );
  let last: Promise<unknown> = looked;
  const subscription = apiKey.onDidChange((key) => {
    last = last.then(() => state.update(StorageKey.keyWasStored, key ? true : undefined));
  });
  return {
    dispose: () => {
      subscription.dispose();
    },
    idle: () => last.then(() => undefined),
  };
}

/** The watch, and when what it has seen so far is written (for tests). */
export interface SessionSecretsWatch extends IDisposable {
  idle(): Promise<void>;
}
