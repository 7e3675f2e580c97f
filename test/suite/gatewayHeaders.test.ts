import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { extensionLog, gatewayApi, sendPrompt, setSetting, TEST_KEY } from './helpers';

const HELICONE = 'Bearer sk-helicone-integration-0123456789';

/**
 * A gateway that wants headers of its own on every request (Portkey's provider header), and one
 * whose value is a secret (Helicone's): the setting, Set Secret Header and the chat together.
 */
describe('Extra request headers and keyless local servers', function () {
  let sim: GatewaySimulator;
  let keyless: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({
      chunkDelayMs: 1,
      extras: { requiredHeaders: { 'x-portkey-provider': 'openai' } },
    });
    keyless = await startGatewaySimulator({ chunkDelayMs: 1, extras: { auth: 'none' } });
    await setSetting('chat.model', 'testvendor/echo-model');
  });
  after(async () => {
    await setSetting('baseUrl', sim.baseUrl);
    await vscode.commands.executeCommand('gateway.setSecretHeader', 'Helicone-Auth', '');
    await setSetting('requestHeaders', undefined);
    await setSetting('chat.model', undefined);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await sim.close();
    await keyless.close();
  });

  it('the setting and a stored secret header reach the gateway with a chat; the secret never reaches the log', async () => {
    await setSetting('baseUrl', sim.baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await setSetting('requestHeaders', {
      'x-portkey-provider': 'openai',
      'Helicone-Auth': 'not from settings',
    });
    const stored = await vscode.commands.executeCommand<boolean>(
      'gateway.setSecretHeader',
      'Helicone-Auth',
      HELICONE,
    );
    assert.equal(stored, true);
    await vscode.commands.executeCommand('gateway.newChat');
    const turn = await (await sendPrompt('hello through Portkey')).finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    const chat = sim.requests.filter((request) => request.path.endsWith('/v1/chat/completions')).at(-1);
    assert.equal(chat?.headers['x-portkey-provider'], 'openai');
    assert.equal(chat?.headers['helicone-auth'], HELICONE, 'the stored value, not the one in settings');
    assert.ok(!(await extensionLog()).includes(HELICONE));
  });

  it('a local server on loopback answers a chat without any key', async () => {
    await setSetting('requestHeaders', undefined);
    await setSetting('baseUrl', keyless.baseUrl);
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const api = await gatewayApi();
    assert.equal(await api.apiKey.get(), undefined);
    await vscode.commands.executeCommand('gateway.newChat');
    const turn = await (await sendPrompt('hello, local model')).finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    const chat = keyless.requests.filter((request) => request.path.endsWith('/v1/chat/completions')).at(-1);
    assert.ok(chat, 'the chat reached the local server');
    assert.equal(chat.headers.authorization, undefined);
  });
});
