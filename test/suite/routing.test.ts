import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, logShows, setSetting, TEST_KEY, waitFor } from './helpers';

function lastChatBody(sim: GatewaySimulator): Record<string, unknown> {
  const request = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
  assert.ok(request, 'a chat request reached the simulator');
  return request.body as Record<string, unknown>;
}

/** A message as the chat view posts it: untrusted, so parsed at the protocol boundary first. */
async function fromView(raw: Record<string, unknown>): Promise<void> {
  const message = parseWebviewMessage(raw);
  assert.ok(message, `the protocol accepts ${JSON.stringify(raw)}`);
  await (await gatewayApi()).chatRouter.handle(message);
}

async function askAndWait(prompt: string): Promise<AssistantTurn> {
  const api = await gatewayApi();
  await vscode.commands.executeCommand('gateway.ask', prompt);
  const last = (await api.chat.current()).turns.at(-1);
  assert.equal(last?.role, 'assistant');
  return last;
}

describe('Routing, reasoning and tools from the model menu', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 0 });
    await setSetting('baseUrl', sim.baseUrl);
    // The model menu and caching are what this suite checks: plain replies, not the agent's
    // (the agent's requests are checked in agent.test.ts and the agentRequest unit tests).
    await setSetting('agent.enabled', false);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const { catalog } = await gatewayApi();
    await catalog.catalog.refresh();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('gateway.newChat');
  });

  afterEach(async () => {
    sim.allModalitiesMode = 'ok';
    sim.endpointsAvailable = true;
    for (const model of ['openai/gpt-4o-mini', 'testvendor/thinker']) {
      await fromView({ type: 'setEffort', model });
      await fromView({ type: 'setRouting', model, routing: {} });
    }
    for (const key of [
      'chat.model',
      'chat.provider',
      'chat.plugins',
      'chat.reasoningEffort',
      'chat.webSearch',
    ])
      await setSetting(key, undefined);
  });

  after(async () => {
    await setSetting('agent.enabled', undefined);
    await sim.close();
  });

  it("the routing menu's choices arrive as the provider object, and the reply names who served it", async () => {
    const { chat } = await gatewayApi();
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    const menu = chat.menu;
    assert.ok(menu, 'the chat has its model menu');
    // The providers offered come from the gateway's endpoints list.
    assert.deepEqual(await menu.providers('openai/gpt-4o-mini'), [
      'Alpha Cloud',
      'Beta Inference',
      'Gamma AI',
    ]);
    await fromView({
      type: 'setRouting',
      model: 'openai/gpt-4o-mini',
      routing: {
        sort: 'latency',
        allowFallbacks: false,
        denyDataCollection: true,
        zdr: true,
        only: ['Beta Inference'],
        ignore: ['Gamma AI'],
        maxPrice: { prompt: 2, completion: 8 },
      },
    });
    const turn = await askAndWait('Route this');
    assert.equal(turn.status, 'complete');
    assert.deepEqual(lastChatBody(sim).provider, {
      sort: 'latency',
      allow_fallbacks: false,
      data_collection: 'deny',
      zdr: true,
      only: ['Beta Inference'],
      ignore: ['Gamma AI'],
      max_price: { prompt: 2, completion: 8 },
    });
    assert.equal(turn.provider, 'Beta Inference', 'the served provider is kept on the reply');

    // Kept per model: another model sends no routing.
    await setSetting('chat.model', 'testvendor/echo-model');
    await askAndWait('No routing here');
    assert.equal(lastChatBody(sim).provider, undefined);

    // The raw JSON setting wins, and the menu says so.
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await setSetting('chat.provider', { order: ['Alpha Cloud'] });
    assert.equal((await menu.current()).providerSetting, true);
    await askAndWait('Raw provider');
    assert.deepEqual(lastChatBody(sim).provider, { order: ['Alpha Cloud'] });
  });

  it('offers only the catalog efforts for the model, sends the chosen one, and none for a model that cannot reason', async () => {
    const { chat } = await gatewayApi();
    const menu = chat.menu!;
    await setSetting('chat.model', 'testvendor/thinker');
    const offered = await menu.current();
    assert.deepEqual(offered.efforts, ['minimal', 'low', 'high', 'xhigh']);
    assert.equal(offered.defaultEffort, 'low');

    await askAndWait('Default effort');
    assert.equal(lastChatBody(sim).reasoning, undefined, 'nothing chosen: the model decides');

    await fromView({ type: 'setEffort', model: 'testvendor/thinker', effort: 'xhigh' });
    assert.equal((await menu.current()).effort, 'xhigh');
    await askAndWait('Extra high');
    assert.deepEqual(lastChatBody(sim).reasoning, { effort: 'xhigh' });

    // The setting is the default; the model's own choice wins over it.
    await setSetting('chat.reasoningEffort', 'high');
    await askAndWait('Still extra high');
    assert.deepEqual(lastChatBody(sim).reasoning, { effort: 'xhigh' });

    await setSetting('chat.model', 'testvendor/text-only');
    assert.deepEqual((await menu.current()).efforts, [], 'no efforts for a model that cannot reason');
    await askAndWait('No reasoning');
    assert.equal(lastChatBody(sim).reasoning, undefined);
  });

  it('web search, PDF parsing and compression toggles arrive as the right request fields, per chat', async () => {
    const { chat } = await gatewayApi();
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await fromView({ type: 'setChatTools', tools: { webSearch: true, pdf: true, compress: true } });
    await askAndWait('Search the web');
    const body = lastChatBody(sim);
    assert.deepEqual(
      body.tools,
      [{ type: 'openrouter:web_search' }],
      'a tool-calling model gets the server tool',
    );
    assert.deepEqual(body.plugins, [
      { id: 'file-parser', pdf: { engine: 'cloudflare-ai' } },
      { id: 'context-compression' },
    ]);

    // A model without tools gets the web plugin instead.
    await setSetting('chat.model', 'testvendor/text-only');
    await askAndWait('Search without tools');
    assert.deepEqual(lastChatBody(sim).plugins, [
      { id: 'web' },
      { id: 'file-parser', pdf: { engine: 'cloudflare-ai' } },
      { id: 'context-compression' },
    ]);
    assert.equal(lastChatBody(sim).tools, undefined);

    // Another chat starts from the settings (web search off by default).
    await vscode.commands.executeCommand('gateway.newChat');
    assert.deepEqual((await chat.menu!.current()).tools, { webSearch: false, pdf: false, compress: false });
    await askAndWait('A new chat');
    assert.equal(lastChatBody(sim).plugins, undefined);

    // gateway.chat.webSearch is the default of the toggle; the raw plugins setting wins over all.
    await setSetting('chat.webSearch', true);
    assert.equal((await chat.menu!.current()).tools.webSearch, true);
    await setSetting('chat.plugins', [{ id: 'web', max_results: 2 }]);
    assert.equal((await chat.menu!.current()).pluginsSetting, true);
    await askAndWait('Raw plugins');
    assert.deepEqual(lastChatBody(sim).plugins, [{ id: 'web', max_results: 2 }]);
  });

  it('a PDF added to the chat goes as a file part, parsed by the file-parser plugin when toggled', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-pdf-'));
    const file = path.join(folder, 'spec.pdf');
    writeFileSync(file, '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    await setSetting('chat.model', 'testvendor/text-only');
    await fromView({ type: 'setChatTools', tools: { webSearch: false, pdf: true, compress: false } });
    assert.equal(await vscode.commands.executeCommand('gateway.addFileToChat', vscode.Uri.file(file)), 1);
    await askAndWait('Summarise the PDF');
    const body = lastChatBody(sim);
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const parts = messages.at(-1)?.content as Array<Record<string, unknown>>;
    assert.deepEqual(parts[1], {
      type: 'file',
      file: {
        filename: 'spec.pdf',
        file_data: `data:application/pdf;base64,${readFileSync(file).toString('base64')}`,
      },
    });
    assert.deepEqual(body.plugins, [{ id: 'file-parser', pdf: { engine: 'cloudflare-ai' } }]);
  });

  it('a PDF over the cap is refused by its size, without reading it (a 3 GB sparse file)', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-pdf-'));
    const file = path.join(folder, 'huge.pdf');
    writeFileSync(file, '%PDF-1.4\n');
    truncateSync(file, 3 * 1024 ** 3);
    assert.equal(await vscode.commands.executeCommand('gateway.addFileToChat', vscode.Uri.file(file)), 0);
  });

  it('the catalog falls back to /v1/models when ?output_modalities=all fails or is empty', async () => {
    const { catalog } = await gatewayApi();
    for (const mode of ['400', '404', 'empty'] as const) {
      sim.allModalitiesMode = mode;
      sim.requests.length = 0;
      const models = await catalog.catalog.refresh();
      assert.equal(catalog.catalog.source, 'gateway', mode);
      const paths = sim.requests.filter((r) => r.path === '/api/v1/models').length;
      assert.equal(paths, 2, `${mode}: asked twice, with and without the query`);
      assert.ok(
        models.some((m) => m.id === 'openai/gpt-4o-mini'),
        mode,
      );
      assert.ok(
        !models.some((m) => m.id === 'openai/gpt-image-1'),
        `${mode}: the plain list has no media models`,
      );
    }
    sim.allModalitiesMode = 'ok';
    const all = await catalog.catalog.refresh();
    assert.ok(
      all.some((m) => m.id === 'testvendor/motion'),
      'video models come with ?output_modalities=all',
    );
    assert.ok(
      all.some((m) => m.id === 'testvendor/sketch'),
      'and image models',
    );
  });

  it('a gateway without the endpoints list (404) degrades quietly: no providers, the chat still answers', async () => {
    const { catalog, chat } = await gatewayApi();
    sim.endpointsAvailable = false;
    await catalog.catalog.refresh();
    assert.deepEqual(await chat.menu!.providers('testvendor/thinker'), []);
    await logShows(/No provider list for testvendor\/thinker \(status 404\)/, 'the 404 logged, not shown');
    await setSetting('chat.model', 'testvendor/thinker');
    // Provider names typed as free text still go out.
    await fromView({ type: 'setRouting', model: 'testvendor/thinker', routing: { only: 'Somebody Cloud' } });
    const turn = await askAndWait('No endpoints');
    assert.equal(turn.status, 'complete');
    assert.deepEqual(lastChatBody(sim).provider, { only: ['Somebody Cloud'] });
  });

  it("VS Code's chat: only the caller's sampling options pass, checked, and an effort the model lacks is dropped", async function () {
    const lm = vscode.lm as unknown as Record<string, unknown>;
    if (typeof lm.registerLanguageModelChatProvider !== 'function') return this.skip();
    await setSetting('languageModels.include', ['testvendor/thinker']);
    try {
      const [chat] = await waitFor(async () => {
        const models = await vscode.lm.selectChatModels({ vendor: 'gateway', id: 'testvendor/thinker' });
        return models.length > 0 && models;
      }, 'the thinker model offered to VS Code');
      const ask = async (modelOptions: Record<string, unknown>) => {
        const response = await chat.sendRequest([vscode.LanguageModelChatMessage.User('Options')], {
          modelOptions,
        });
        for await (const part of response.stream) void part;
        return lastChatBody(sim);
      };
      const body = await ask({
        reasoningEffort: 'xhigh',
        temperature: 0.3,
        maxOutputTokens: 500,
        top_p: 'wide',
        stream: false,
        transforms: ['middle-out'],
        provider: { data_collection: 'allow' },
        plugins: [{ id: 'web' }],
        models: ['evil/model'],
      });
      assert.deepEqual(body.reasoning, { effort: 'xhigh' });
      assert.equal(body.temperature, 0.3);
      assert.equal(body.max_tokens, 500);
      assert.equal(body.top_p, undefined, 'a wrong type is dropped');
      assert.equal(body.stream, true, 'the request keeps its own fields');
      for (const field of ['transforms', 'provider', 'plugins', 'models'])
        assert.equal(body[field], undefined, `${field} is not the caller's to choose`);
      assert.equal((await ask({ reasoningEffort: 'medium' })).reasoning, undefined, 'not among its efforts');
    } finally {
      await setSetting('languageModels.include', undefined);
    }
  });
});
