/**
 * Hostile gateway data inside VS Code: a reply with wrong-typed usage and citations completes and
 * the chat goes on; a media job whose records lack a status keeps polling until the real one;
 * credentials in a proxy or base URL never reach a notification or the log.
 */
import * as assert from 'node:assert/strict';
import { freePort } from '../launch/ports';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

const PROXY_PASSWORD = 'pr0xy-Pa55w0rd-7e1d';

async function lastAssistant(): Promise<AssistantTurn> {
  const turns = (await (await gatewayApi()).chat.current()).turns;
  const last = turns[turns.length - 1];
  assert.equal(last?.role, 'assistant');
  return last;
}

async function extensionLog(): Promise<string> {
  const api = await gatewayApi();
  try {
    const file = vscode.Uri.joinPath(api.context.logUri, 'Gateway AI.log');
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    return '';
  }
}

describe('Trust: hostile gateway data', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({
      chunkDelayMs: 1,
      mediaTimings: { queuedMs: 600, processingMs: 1500 },
    });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('media.model', 'testvendor/image-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await vscode.commands.executeCommand('gateway.newChat');
  });

  after(async () => {
    await setSetting('chat.model', undefined);
    await setSetting('media.model', undefined);
    await sim.close();
  });

  it('a reply with wrong-typed usage and citations completes, and the next message is accepted', async () => {
    const api = await gatewayApi();
    await api.chat.send('typed badly #sim:hostile-types');
    const hostile = await lastAssistant();
    assert.equal(hostile.status, 'complete');
    assert.match(hostile.content, /typed badly/);
    assert.deepEqual(hostile.citations, [{ url: 'https://docs.example.com/ok', title: undefined }]);
    assert.ok(
      hostile.usage === undefined ||
        Object.values(hostile.usage).every((value) => value === undefined || Number.isFinite(value)),
      `usage holds only numbers: ${JSON.stringify(hostile.usage)}`,
    );
    await api.chat.send('and after that?');
    const next = await lastAssistant();
    assert.equal(next.status, 'complete');
    assert.match(next.content, /and after that\?/);
    // The ignored fields were logged, once each.
    const log = await waitFor(async () => {
      const text = await extensionLog();
      return /Ignored chat\.usage\.prompt_tokens from the gateway/.test(text) ? text : undefined;
    }, 'the problem in the log');
    assert.equal(log.match(/Ignored chat\.usage\.prompt_tokens /g)?.length, 1);
  });

  it('a media job whose records lack a status keeps polling and completes when the status comes', async () => {
    const api = await gatewayApi();
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'a fox without status #sim:no-status',
    });
    const checks = () => sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/v1/media/${id}`));
    await waitFor(() => checks().length >= 1, 'a first status check', 10_000);
    assert.notEqual(api.media.model.get(id)?.status, 'completed');
    assert.ok(!api.media.model.get(id)?.finishedAt, 'a record without status is not an end');
    await waitFor(() => api.media.model.get(id)?.status === 'completed', 'the job to complete', 20_000);
    assert.ok(checks().length >= 2, `polled ${checks().length} times`);
    assert.equal(api.media.model.get(id)?.outputs.length, 1);
  });

  it('credentials in a proxy URL or a base URL never show in a notification or the log', async () => {
    const port = await freePort();
    const http = vscode.workspace.getConfiguration('http');
    const before = observed.notifications.length;
    await setSetting('request.maxRetries', 0);
    try {
      // A gateway off this computer (a loopback one never goes through a proxy), with the key
      // entered for it: the request goes to the proxy, which is not there.
      await setSetting('baseUrl', 'https://gateway.invalid/api');
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
      await http.update(
        'proxy',
        `http://alice:${PROXY_PASSWORD}@127.0.0.1:${port}`,
        vscode.ConfigurationTarget.Global,
      );
      await assert.rejects(
        async () =>
          vscode.commands.executeCommand('gateway.generateMedia', { prompt: 'through a dead proxy' }),
        (error: unknown) => error instanceof Error && !error.message.includes(PROXY_PASSWORD),
      );
      await waitFor(
        () => observed.notifications.slice(before).some((n) => n.message.includes('not started')),
        'the error notification',
      );
      await http.update('proxy', undefined, vscode.ConfigurationTarget.Global);

      // A base URL that cannot be parsed is repeated in the warning: without its userinfo.
      await setSetting('baseUrl', `http://alice:${PROXY_PASSWORD}@[not-a-host/api`);
      const warning = await waitFor(
        () => observed.notifications.slice(before).find((n) => n.message.includes('is not a valid URL')),
        'the base URL warning',
      );
      assert.match(warning.message, /\[redacted\]@/);
    } finally {
      await http.update('proxy', undefined, vscode.ConfigurationTarget.Global);
      await setSetting('baseUrl', sim.baseUrl);
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
      await setSetting('request.maxRetries', undefined);
    }
    const shown = observed.notifications.slice(before);
    assert.ok(shown.length >= 2);
    for (const notification of shown) {
      const text = `${notification.message} ${notification.items.join(' ')}`;
      assert.ok(!text.includes(PROXY_PASSWORD), `notification: ${text}`);
      assert.ok(!text.includes('alice:'), `notification: ${text}`);
    }
    const log = await extensionLog();
    assert.ok(log.length > 0);
    assert.ok(!log.includes(PROXY_PASSWORD), 'the log holds no proxy password');
  });
});
