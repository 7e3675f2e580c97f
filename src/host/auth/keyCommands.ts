import * as vscode from 'vscode';
import { Command } from '../../core/ids';
import type { ApiKeyStore } from './apiKeyStore';
import { notify } from '../notify';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `gateway.setApiKey [key]`: asks with a password box (or takes the key), trims it, stores it. */
export async function setApiKey(store: ApiKeyStore, argument?: unknown): Promise<boolean> {
  let key = typeof argument === 'string' ? argument : undefined;
  if (key === undefined) {
    key = await vscode.window.showInputBox({
      title: 'Gateway AI: Set API Key',
      prompt: 'Your gateway API key. It is stored only in VS Code\u2019s secret storage.',
      placeHolder: 'sk-…',
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'The key cannot be empty.'),
    });
    if (key === undefined) return false;
  }
  if (!key.trim()) {
    void notify.error('Gateway AI: the API key cannot be empty; nothing was stored.');
    return false;
  }
  try {
    await store.set(key);
  } catch (error) {
    void notify.error(`Gateway AI: the key was not stored. ${errorText(error)}`);
    return false;
  }
  void notify.info('Gateway AI: API key saved in secret storage.');
  return true;
}

export async function clearApiKey(store: ApiKeyStore): Promise<void> {
  try {
    await store.clear();
    void notify.info('Gateway AI: API key removed.');
  } catch (error) {
    void notify.error(`Gateway AI: the key could not be removed. ${errorText(error)}`);
  }
}

/**
 * `gateway.manageApiKey`: set or change the key, or clear it, from one list. VS Code's Language
 * Models editor runs it (the provider's `managementCommand`) with the vendor's id as its argument,
 * which is not a key: arguments are ignored.
 */
export async function manageApiKey(store: ApiKeyStore): Promise<void> {
  const hasKey = Boolean(await store.get().catch(() => undefined));
  const set = hasKey ? 'Change API Key' : 'Set API Key';
  const clear = 'Clear API Key';
  const choice = await vscode.window.showQuickPick(hasKey ? [set, clear] : [set], {
    title: 'Gateway AI: Manage API Key',
    placeHolder: hasKey ? 'A key is set, kept in VS Code\u2019s secret storage' : 'No key is set yet',
  });
  if (choice === set) await setApiKey(store);
  else if (choice === clear) await clearApiKey(store);
}

/** Set API Key, Clear API Key and Manage API Key. */
export function registerKeyCommands(store: ApiKeyStore): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.setApiKey, (key?: unknown) => setApiKey(store, key)),
    vscode.commands.registerCommand(Command.clearApiKey, () => clearApiKey(store)),
    vscode.commands.registerCommand(Command.manageApiKey, () => manageApiKey(store)),
  ];
}
