import * as vscode from 'vscode';
import { originOf } from '../../core/config/keyOrigin';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { Settings } from '../config/settings';
import { environmentVariable } from '../platform';

/**
 * `npm run demo` starts VS Code with GATEWAY_AI_DEMO_KEY set, so the bundled gateway simulator
 * works without typing a key. Honoured only for an extension under development (never for an
 * installed one), and only when no key is stored yet. The key belongs to the gateway the user's
 * settings name then, as a key typed into Set API Key would.
 */
export function seedDemoKey(context: vscode.ExtensionContext, apiKey: ApiKeyStore, settings: Settings): void {
  const demoKey = environmentVariable('GATEWAY_AI_DEMO_KEY');
  if (!demoKey || context.extensionMode === vscode.ExtensionMode.Production) return;
  setTimeout(() => {
    const origin = originOf(settings.current.baseUrl);
    if (!origin) return;
    void apiKey.get().then(
      (existing) => (existing ? undefined : apiKey.set(demoKey, origin)),
      () => undefined,
    );
  }, 0);
}
