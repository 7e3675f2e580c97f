import * as vscode from 'vscode';
import { originOf } from '../../core/config/keyOrigin';
import { headerNameRefusal, headerValueRefusal } from '../../core/config/requestHeaders';
import { Command, Setting } from '../../core/ids';
import type { Settings } from '../config/settings';
import { notify } from '../notify';
import type { SecretHeaderStore } from './secretHeaderStore';

/**
 * `gateway.setSecretHeader [name] [value]`: a request header whose value is a secret (Helicone's
 * `Helicone-Auth`, Portkey's `x-portkey-api-key`, Cloudflare's `cf-aig-authorization`), asked for
 * with a password box and stored in secret storage for the origin of the gateway the settings name
 * now: it is sent there and nowhere else. An empty value removes the header.
 */
export async function setSecretHeader(
  store: SecretHeaderStore,
  settings: Settings,
  nameArgument?: unknown,
  valueArgument?: unknown,
): Promise<boolean> {
  const origin = originOf(settings.current.baseUrl);
  if (!origin) {
    void notify.error(
      `Gateway AI: "${Setting.baseUrl}" is not an http(s) URL, so a header would have no gateway to go to; nothing was stored.`,
    );
    return false;
  }
  const auth = settings.current.request.authHeader;
  const stored = await store.forOrigin(origin).catch(() => ({}));
  let name = typeof nameArgument === 'string' ? nameArgument.trim() : undefined;
  if (name === undefined) {
    const known = Object.keys(stored);
    name = (
      await vscode.window.showInputBox({
        title: `Gateway AI: Set Secret Header for ${origin}`,
        prompt: `The header's name.${known.length > 0 ? ` Stored for ${origin}: ${known.join(', ')}.` : ''}`,
        placeHolder: 'Helicone-Auth, x-portkey-api-key, cf-aig-authorization…',
        ignoreFocusOut: true,
        validateInput: (value) => headerNameRefusal(value.trim(), auth),
      })
    )?.trim();
    if (name === undefined) return false;
  }
  const nameProblem = headerNameRefusal(name, auth);
  if (nameProblem) {
    void notify.error(`Gateway AI: nothing was stored: ${nameProblem}.`);
    return false;
  }
  let value = typeof valueArgument === 'string' ? valueArgument : undefined;
  if (value === undefined) {
    value = await vscode.window.showInputBox({
      title: `Gateway AI: ${name} for ${origin}`,
      prompt: `The value of ${name}. It is stored only in VS Code\u2019s secret storage and sent only to ${origin}. Leave it empty to remove the header.`,
      password: true,
      ignoreFocusOut: true,
      validateInput: (text) => headerValueRefusal(text.trim()),
    });
    if (value === undefined) return false;
  }
  const valueProblem = headerValueRefusal(value.trim());
  if (valueProblem) {
    void notify.error(`Gateway AI: nothing was stored: ${valueProblem}.`);
    return false;
  }
  try {
    await store.set(origin, name, value);
  } catch (error) {
    void notify.error(
      `Gateway AI: the header was not stored. ${error instanceof Error ? error.message : String(error)}`,
    );
    return false;
  }
  void notify.info(
    value.trim()
      ? `Gateway AI: ${name} saved in secret storage, sent only to ${origin}.`
      : `Gateway AI: ${name} removed for ${origin}.`,
  );
  return true;
}

export function registerSecretHeaderCommands(
  store: SecretHeaderStore,
  settings: Settings,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.setSecretHeader, (name?: unknown, value?: unknown) =>
      setSecretHeader(store, settings, name, value),
    ),
  ];
}
