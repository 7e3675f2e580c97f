import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { gatewayApi, TEST_KEY } from './helpers';

describe('API key in SecretStorage', () => {
  it('round-trips: set (trimmed) through the command, read back, cleared', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const changes: Array<string | undefined> = [];
    const listener = api.apiKey.onDidChange((k) => changes.push(k));
    try {
      await vscode.commands.executeCommand('gateway.setApiKey', `  ${TEST_KEY}  `);
      assert.equal(await api.apiKey.get(), TEST_KEY);
      assert.equal(await api.context.secrets.get('gateway.apiKey'), TEST_KEY);
      await vscode.commands.executeCommand('gateway.clearApiKey');
      assert.equal(await api.apiKey.get(), undefined);
      assert.equal(await api.context.secrets.get('gateway.apiKey'), undefined);
      // Events from SecretStorage arrive asynchronously; what matters is that listeners heard the
      // new key and end with the key removed.
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(changes.includes(TEST_KEY));
      assert.equal(changes.at(-1), undefined);
    } finally {
      listener.dispose();
    }
  });

  it('refuses an empty key and keeps the stored one', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const stored = await vscode.commands.executeCommand<boolean>('gateway.setApiKey', '   ');
    assert.equal(stored, false);
    assert.equal(await api.apiKey.get(), TEST_KEY);
  });

  it('follows a change made behind its back (another window)', async () => {
    const api = await gatewayApi();
    await api.context.secrets.store('gateway.apiKey', 'sk-from-another-window-123456');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await api.apiKey.get(), 'sk-from-another-window-123456');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });
});

describe('Settings', () => {
  it('selectModel takes a model id argument and refuses a malformed one', async () => {
    const before = vscode.workspace.getConfiguration('gateway').get<string>('chat.model');
    try {
      assert.equal(
        await vscode.commands.executeCommand('gateway.selectModel', 'vendor/model-x'),
        'vendor/model-x',
      );
      assert.equal(vscode.workspace.getConfiguration('gateway').get('chat.model'), 'vendor/model-x');
      assert.equal(await vscode.commands.executeCommand('gateway.selectModel', 'no-slash'), undefined);
      assert.equal(vscode.workspace.getConfiguration('gateway').get('chat.model'), 'vendor/model-x');
    } finally {
      await vscode.workspace
        .getConfiguration('gateway')
        .update(
          'chat.model',
          before === 'openai/gpt-4o-mini' ? undefined : before,
          vscode.ConfigurationTarget.Global,
        );
    }
  });

  it('declares every setting with a description and a default', () => {
    const manifest = vscode.extensions.getExtension('gateway-ai.gateway-ai')!.packageJSON as {
      contributes: {
        configuration: {
          properties: Record<
            string,
            { description?: string; markdownDescription?: string; default?: unknown }
          >;
        };
      };
    };
    const properties = manifest.contributes.configuration.properties;
    for (const [key, schema] of Object.entries(properties)) {
      assert.ok(schema.description || schema.markdownDescription, `${key} has a description`);
      assert.ok('default' in schema, `${key} has a default`);
    }
  });
});
