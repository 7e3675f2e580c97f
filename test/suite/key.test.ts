import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/** What SecretStorage holds: the key with the origin it belongs to, as one JSON value. */
const BOUND = 'gateway.apiKey.bound';
/** Where earlier versions kept the bare key. */
const LEGACY = 'gateway.apiKey';

function stored(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}

describe('API key in SecretStorage', () => {
  let previousBaseUrl: string | undefined;
  before(() => {
    previousBaseUrl = vscode.workspace.getConfiguration('gateway').inspect<string>('baseUrl')?.globalValue;
  });
  after(async () => {
    await setSetting('baseUrl', previousBaseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  it('round-trips: set (trimmed) through the command, bound to the current origin, read back, cleared', async () => {
    const api = await gatewayApi();
    await setSetting('baseUrl', 'https://gateway.example:8443/api');
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const changes: Array<string | undefined> = [];
    const listener = api.apiKey.onDidChange((k) => changes.push(k));
    try {
      await vscode.commands.executeCommand('gateway.setApiKey', `  ${TEST_KEY}  `);
      assert.equal(await api.apiKey.get(), TEST_KEY);
      assert.deepEqual(await api.apiKey.binding(), { key: TEST_KEY, origin: 'https://gateway.example:8443' });
      assert.deepEqual(stored(await api.context.secrets.get(BOUND)), {
        key: TEST_KEY,
        origin: 'https://gateway.example:8443',
      });
      assert.equal(await api.context.secrets.get(LEGACY), undefined);
      await vscode.commands.executeCommand('gateway.clearApiKey');
      assert.equal(await api.apiKey.get(), undefined);
      assert.equal(await api.context.secrets.get(BOUND), undefined);
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

  it('a bare key an earlier version stored (here: behind its back) moves, bound to the user base URL’s origin', async () => {
    const api = await gatewayApi();
    await setSetting('baseUrl', 'http://127.0.0.1:9/api');
    await api.context.secrets.store(LEGACY, 'sk-from-another-window-123456');
    await waitFor(
      async () => (await api.apiKey.get()) === 'sk-from-another-window-123456',
      'the key stored elsewhere to be read',
    );
    assert.deepEqual(await api.apiKey.binding(), {
      key: 'sk-from-another-window-123456',
      origin: 'http://127.0.0.1:9',
    });
    await waitFor(
      async () => (await api.context.secrets.get(LEGACY)) === undefined,
      'the bare key to be moved',
    );
    assert.deepEqual(stored(await api.context.secrets.get(BOUND)), {
      key: 'sk-from-another-window-123456',
      origin: 'http://127.0.0.1:9',
    });
  });
});

describe('API key: one origin', function () {
  this.timeout(60_000);
  let home: GatewaySimulator;
  let other: GatewaySimulator;
  let previousBaseUrl: string | undefined;

  before(async () => {
    previousBaseUrl = vscode.workspace.getConfiguration('gateway').inspect<string>('baseUrl')?.globalValue;
    home = await startGatewaySimulator({ chunkDelayMs: 1 });
    other = await startGatewaySimulator({ chunkDelayMs: 1 });
    await setSetting('baseUrl', home.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('request.maxRetries', 0);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await vscode.commands.executeCommand('gateway.newChat');
  });

  after(async () => {
    await setSetting('request.maxRetries', undefined);
    await setSetting('chat.model', undefined);
    await setSetting('baseUrl', previousBaseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await home.close();
    await other.close();
  });

  it('a base URL on another origin: nothing is sent there, the reply says why, and the user is offered a choice', async () => {
    const api = await gatewayApi();
    const before = observed.notifications.length;
    await setSetting('baseUrl', other.baseUrl);
    await api.chat.send('does my key go there?');
    const reply = (await api.chat.current()).turns.at(-1);
    assert.equal(reply?.role, 'assistant');
    assert.equal(reply.status, 'error');
    assert.match(reply.error?.message ?? '', new RegExp(`entered for ${home.origin}.*${other.origin}`));
    assert.deepEqual(reply.error?.actions, ['setApiKey', 'retry']);
    // The catalog and the credit, asked now, get nothing from there either.
    await api.catalog.catalog.refresh();
    assert.equal(api.catalog.catalog.source, 'settings');
    await api.catalog.credits.update(true);
    assert.equal(api.catalog.credits.current, undefined);
    assert.deepEqual(other.requests, [], 'the other gateway was asked nothing');
    const offer = await waitFor(
      () =>
        observed.notifications.slice(before).find((n) => n.items.includes(`Use My Key for ${other.origin}`)),
      'the offer to use the key there',
    );
    assert.deepEqual(offer.items, [`Use My Key for ${other.origin}`, `Enter a Key for ${other.origin}`]);
  });

  it('after the user re-binds the key (Manage API Key → Use My Key), it goes there, and no longer home', async () => {
    const api = await gatewayApi();
    const window = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
    const original = window.showQuickPick;
    window.showQuickPick = (items: unknown) =>
      Promise.resolve((items as string[]).find((item) => item.startsWith('Use My Key for')));
    try {
      await vscode.commands.executeCommand('gateway.manageApiKey');
    } finally {
      window.showQuickPick = original;
    }
    assert.deepEqual(await api.apiKey.binding(), { key: TEST_KEY, origin: other.origin });
    await api.chat.send('and now?');
    const reply = (await api.chat.current()).turns.at(-1);
    assert.equal(reply?.role === 'assistant' && reply.status, 'complete');
    assert.ok(other.requests.some((r) => r.headers.authorization === `Bearer ${TEST_KEY}`));
    home.reset();
    await setSetting('baseUrl', home.baseUrl);
    await api.chat.send('home again?');
    const refused = (await api.chat.current()).turns.at(-1);
    assert.equal(refused?.role === 'assistant' && refused.status, 'error');
    assert.deepEqual(home.requests, [], 'the key now belongs to the other origin: home is asked nothing');
  });
});
