import * as vscode from 'vscode';
import { originOf } from '../../core/config/keyOrigin';
import { Command, Setting } from '../../core/ids';
import type { ApiKeyStore } from './apiKeyStore';
import type { Settings } from '../config/settings';
import { notify } from '../notify';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The origin of the gateway the settings name now, or undefined (with the user told) when there is none. */
function currentOrigin(settings: Settings): string | undefined {
  const origin = originOf(settings.current.baseUrl);
  if (!origin)
    void notify.error(
      `Gateway AI: "${Setting.baseUrl}" is not an http(s) URL, so a key would have no gateway to go to; nothing was stored. Fix the base URL first.`,
    );
  return origin;
}

/**
 * `gateway.setApiKey [key]`: asks with a password box (or takes the key), trims it, and stores it
 * for the origin of the gateway the settings name now: it goes nowhere else.
 */
export async function setApiKey(
  store: ApiKeyStore,
  settings: Settings,
  argument?: unknown,
): Promise<boolean> {
  const origin = currentOrigin(settings);
  if (!origin) return false;
  let key = typeof argument === 'string' ? argument : undefined;
  if (key === undefined) {
    key = await vscode.window.showInputBox({
      title: `Gateway AI: Set API Key for ${origin}`,
      prompt: `Your API key for ${origin}. It is stored only in VS Code\u2019s secret storage and sent only to ${origin}.`,
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
    await store.set(key, origin);
  } catch (error) {
    void notify.error(`Gateway AI: the key was not stored. ${errorText(error)}`);
    return false;
  }
  void notify.info(`Gateway AI: API key saved in secret storage, for ${origin}.`);
  return true;
}

/** Lets the stored key go to the gateway the settings name now (the user chose so). */
export async function useKeyHere(store: ApiKeyStore, settings: Settings): Promise<boolean> {
  const origin = currentOrigin(settings);
  if (!origin) return false;
  try {
    await store.bind(origin);
  } catch (error) {
    void notify.error(`Gateway AI: the key was not moved to ${origin}. ${errorText(error)}`);
    return false;
  }
  void notify.info(`Gateway AI: your API key now goes to ${origin}, and only there.`);
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
 * The gateway is on another origin than the stored key's: the user chooses, having seen both,
 * whether the key goes there too or a key for it is entered. Nothing is sent before.
 */
export async function offerKeyFor(
  store: ApiKeyStore,
  settings: Settings,
  origin: string,
  boundOrigin: string,
): Promise<void> {
  const use = `Use My Key for ${origin}`;
  const enter = `Enter a Key for ${origin}`;
  const choice = await notify.warn(
    `Gateway AI: your API key was entered for ${boundOrigin}, and the gateway base URL is now on ${origin}. ` +
      'Nothing was sent there. Let your key go there instead, or enter the key that belongs to it?',
    use,
    enter,
  );
  if (choice === use) await useKeyHere(store, settings);
  else if (choice === enter) await setApiKey(store, settings);
}

/**
 * `gateway.manageApiKey`: set or change the key, let it go to the gateway now configured, or
 * clear it, from one list. VS Code's Language Models editor runs it (the provider's
 * `managementCommand`) with the vendor's id as its argument, which is not a key: arguments are
 * ignored.
 */
export async function manageApiKey(store: ApiKeyStore, settings: Settings): Promise<void> {
  const stored = await store.binding().catch(() => undefined);
  const origin = originOf(settings.current.baseUrl);
  const set = stored ? 'Change API Key' : 'Set API Key';
  const move = origin && stored && stored.origin !== origin ? `Use My Key for ${origin}` : undefined;
  const clear = 'Clear API Key';
  const items = [set, ...(move ? [move] : []), ...(stored ? [clear] : [])];
  const choice = await vscode.window.showQuickPick(items, {
    title: 'Gateway AI: Manage API Key',
    placeHolder: stored
      ? `A key is set for ${stored.origin}, kept in VS Code\u2019s secret storage`
      : 'No key is set yet',
  });
  if (choice === set) await setApiKey(store, settings);
  else if (choice === move) await useKeyHere(store, settings);
  else if (choice === clear) await clearApiKey(store);
}

/** Set API Key, Clear API Key and Manage API Key. */
export function registerKeyCommands(store: ApiKeyStore, settings: Settings): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.setApiKey, (key?: unknown) => setApiKey(store, settings, key)),
    vscode.commands.registerCommand(Command.clearApiKey, () => clearApiKey(store)),
    vscode.commands.registerCommand(Command.manageApiKey, () => manageApiKey(store, settings)),
  ];
}
