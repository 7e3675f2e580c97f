import * as vscode from 'vscode';
import type { ApiKeyStore } from '../auth/apiKeyStore';

/**
 * `npm run demo` starts VS Code with GATEWAY_AI_DEMO_KEY set, so the bundled gateway simulator
 * works without typing a key. Honoured only for an extension under development (never for an
 * installed one), and only when no key is stored yet.
 */
export function seedDemoKey(context: vscode.ExtensionContext, apiKey: ApiKeyStore): void {
  const demoKey = process.env.GATEWAY_AI_DEMO_KEY;
  if (!demoKey || context.extensionMode === vscode.ExtensionMode.Production) return;
  setTimeout(() => {
    void apiKey.get().then(
      (existing) => (existing ? undefined : apiKey.set(demoKey)),
      () => undefined,
    );
  }, 0);
}
