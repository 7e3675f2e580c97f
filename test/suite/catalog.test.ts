import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';

function lastChatBody(sim: GatewaySimulator): Record<string, unknown> {
  const request = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
  assert.ok(request, 'a chat request reached the simulator');
  return request.body as Record<string, unknown>;
}

async function askAndWait(prompt: string): Promise<AssistantTurn> {
  const api = await gatewayApi();
  await vscode.commands.executeCommand('gateway.ask', prompt);
  const turns = (await api.chat.current()).turns;
  const last = turns[turns.length - 1];
  assert.equal(last.role, 'assistant');
  return last;
}

describe('Model catalog and capabilities', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 0 });
    await setSetting('baseUrl', sim.baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await vscode.commands.executeCommand('gateway.newChat');
  });

  afterEach(async () => {
    sim.catalogMode = 'ok';
    await setSetting('chat.model', undefined);
    await setSetting('chat.reasoningEffort', undefined);
    await setSetting('chat.forceParameters', undefined);
    await setSetting('chat.models', undefined);
  });

  after(async () => {
    await sim.close();
  });

  it('Refresh Model Catalog reads GET /v1/models: prices, context and modalities', async () => {
    const { catalog } = await gatewayApi();
    const count = await vscode.commands.executeCommand<number>('gateway.refreshModelCatalog');
    assert.equal(count, sim.models.length);
    assert.equal(catalog.catalog.source, 'gateway');
    const model = await catalog.catalog.get('anthropic/claude-sonnet-4');
    assert.equal(model?.contextLength, 200_000);
    assert.equal(model?.pricing?.prompt, 3 / 1e6);
    assert.deepEqual(model?.outputModalities, ['text']);
    assert.ok(sim.requests.some((r) => r.method === 'GET' && r.path === '/api/v1/models'));
  });

  it('falls back to the configured models when the gateway answers 404, and only logs it', async () => {
    const { catalog } = await gatewayApi();
    await setSetting('chat.models', ['vendor/configured-one', 'vendor/configured-two']);
    sim.catalogMode = '404';
    const models = await catalog.catalog.refresh();
    assert.equal(catalog.catalog.source, 'settings');
    const ids = models.map((m) => m.id);
    assert.ok(ids.includes('vendor/configured-one') && ids.includes('vendor/configured-two'), ids.join());
    assert.ok(models.every((m) => !m.described));
    // And it recovers once the gateway serves a catalog again.
    sim.catalogMode = 'ok';
    await catalog.catalog.refresh();
    assert.equal(catalog.catalog.source, 'gateway');
  });

  it('falls back on a 401 and on an unexpected shape too', async () => {
    const { catalog } = await gatewayApi();
    for (const mode of ['shape', { status: 401 }] as const) {
      sim.catalogMode = mode;
      await catalog.catalog.refresh();
      assert.equal(catalog.catalog.source, 'settings', JSON.stringify(mode));
    }
  });

  it('a list that fell back for want of a key is read again once a key is set', async () => {
    const { catalog } = await gatewayApi();
    sim.catalogMode = { status: 401 };
    await catalog.catalog.refresh();
    assert.equal(catalog.catalog.source, 'settings');
    assert.equal(
      catalog.catalog.peek('anthropic/claude-sonnet-4')?.contextLength,
      undefined,
      'no catalog facts',
    );
    sim.catalogMode = 'ok';
    await vscode.commands.executeCommand('gateway.setApiKey', `${TEST_KEY}-other`);
    // No refresh: the next reader (a picker, the meter) gets the catalog again.
    const model = await waitFor(async () => {
      const entry = await catalog.catalog.get('anthropic/claude-sonnet-4');
      return entry?.contextLength ? entry : undefined;
    }, 'the catalog read again after the key change');
    assert.notEqual(catalog.catalog.source, 'settings');
    assert.equal(model.contextLength, 200_000);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  it('sends reasoning only to a model whose catalog entry supports it, unless forced', async () => {
    const { catalog } = await gatewayApi();
    await catalog.catalog.refresh();
    await setSetting('chat.reasoningEffort', 'high');

    await setSetting('chat.model', 'testvendor/echo-model');
    assert.equal((await askAndWait('with reasoning')).status, 'complete');
    assert.deepEqual(lastChatBody(sim).reasoning, { effort: 'high' });

    await setSetting('chat.model', 'testvendor/text-only');
    assert.equal((await askAndWait('without reasoning')).status, 'complete');
    assert.equal(lastChatBody(sim).reasoning, undefined, 'left out for a model without it');

    await setSetting('chat.forceParameters', true);
    await askAndWait('forced reasoning');
    assert.deepEqual(lastChatBody(sim).reasoning, { effort: 'high' });
  });

  it('a 402 says what to do and how much credit is left', async () => {
    await setSetting('chat.model', 'testvendor/echo-model');
    const turn = await askAndWait('costly #sim:status:402');
    assert.equal(turn.status, 'error');
    assert.equal(turn.error?.status, 402);
    assert.match(turn.error?.message ?? '', /Add credits/);
    assert.match(turn.error?.message ?? '', /\$7\.50 of \$10\.00 credit left/);
  });
});
