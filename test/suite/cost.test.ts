/**
 * Cost and caching against the simulator's OpenRouter-quirks mode: cache_control where the model
 * needs it and nowhere else, cached tokens and savings on a second identical turn, the reply's
 * cost equal to what the gateway billed (from `usage`, or from `/v1/generation` when the stream
 * had none), today's total, and the same marks from VS Code's chat.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, RecordedRequest } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';

const hasProviderApi =
  typeof (vscode.lm as unknown as Record<string, unknown>).registerLanguageModelChatProvider === 'function';

function chatRequests(sim: GatewaySimulator): RecordedRequest[] {
  return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/chat/completions'));
}

function lastChat(sim: GatewaySimulator): RecordedRequest {
  const chats = chatRequests(sim);
  assert.ok(chats.length > 0, 'a chat request reached the simulator');
  return chats[chats.length - 1];
}

/** What the simulator billed for that request's reply. */
function billed(sim: GatewaySimulator, request: RecordedRequest): Record<string, unknown> {
  const record = sim.quirks.generations.get(`gen-sim-${request.id}`);
  assert.ok(record, `the simulator kept a record of request ${request.id}`);
  return record.usage;
}

async function lastAssistant(): Promise<AssistantTurn> {
  const turns = (await (await gatewayApi()).chat.current()).turns;
  const last = turns[turns.length - 1];
  assert.equal(last?.role, 'assistant');
  return last;
}

async function ask(prompt: string): Promise<AssistantTurn> {
  await vscode.commands.executeCommand('gateway.ask', prompt);
  const reply = await lastAssistant();
  assert.equal(reply.status, 'complete', reply.error?.message);
  return reply;
}

describe('Cost and caching', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 0, openRouterQuirks: { generation404s: 2 } });
    await setSetting('baseUrl', sim.baseUrl);
    // The model menu and caching are what this suite checks: plain replies, not the agent's
    // (the agent's requests are checked in agent.test.ts and the agentRequest unit tests).
    await setSetting('agent.enabled', false);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    // The catalog's cache prices are what the savings are priced from.
    await (await gatewayApi()).catalog.catalog.refresh();
  });

  after(async () => {
    await setSetting('agent.enabled', undefined);
    await setSetting('chat.model', undefined);
    await setSetting('chat.promptCaching', undefined);
    await setSetting('languageModels.include', undefined);
    await sim.close();
  });

  it('marks the prompt with cache_control for anthropic/* and not for openai/*', async () => {
    await setSetting('chat.model', 'anthropic/claude-sonnet-4');
    await vscode.commands.executeCommand('gateway.newChat');
    await ask('Cache me, please');
    const anthropic = lastChat(sim);
    assert.equal(anthropic.cacheMarks, 1, 'the last user message is marked');
    const body = anthropic.body as { messages: Array<{ role: string; content: unknown }> };
    assert.deepEqual(body.messages[body.messages.length - 1].content, [
      { type: 'text', text: 'Cache me, please', cache_control: { type: 'ephemeral' } },
    ]);

    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await vscode.commands.executeCommand('gateway.newChat');
    await ask('Cache me, please');
    const openai = lastChat(sim);
    assert.equal(openai.cacheMarks, 0);
    assert.deepEqual((openai.body as { messages: unknown[] }).messages, [
      { role: 'user', content: 'Cache me, please' },
    ]);

    await setSetting('chat.model', 'anthropic/claude-sonnet-4');
    await setSetting('chat.promptCaching', false);
    await vscode.commands.executeCommand('gateway.newChat');
    await ask('Not cached this time');
    assert.equal(lastChat(sim).cacheMarks, 0, 'the setting turns the marks off');
    await setSetting('chat.promptCaching', undefined);
  });

  it('a second identical turn shows cached tokens and what they saved, per reply and per chat', async () => {
    const api = await gatewayApi();
    await setSetting('chat.model', 'anthropic/claude-sonnet-4');
    await vscode.commands.executeCommand('gateway.newChat');
    const first = await ask('The same long question about caching, twice');
    assert.ok((first.usage?.cacheWriteTokens ?? 0) > 0, 'the first turn writes the cache');
    assert.equal(first.usage?.cachedTokens ?? 0, 0);
    assert.ok((first.usage?.cacheSavings ?? 0) < 0, 'writing the cache costs a little more');

    await vscode.commands.executeCommand('gateway.newChat');
    const second = await ask('The same long question about caching, twice');
    const usage = billed(sim, lastChat(sim));
    const details = usage.prompt_tokens_details as { cached_tokens: number };
    assert.ok(details.cached_tokens > 0, 'the simulator read the cache');
    assert.equal(second.usage?.cachedTokens, details.cached_tokens);
    assert.ok((second.usage?.cacheSavings ?? 0) > 0, `saved ${second.usage?.cacheSavings}`);
    // Priced from the catalog: cached tokens at $0.30 instead of $3 per million.
    assert.ok(Math.abs(second.usage.cacheSavings! - details.cached_tokens * 2.7e-6) < 1e-9);

    // A follow-up in the same chat reads the prefix the first turn wrote.
    const followUp = await ask('And a follow-up');
    assert.ok((followUp.usage?.cachedTokens ?? 0) > 0, 'the follow-up reads the cached prefix');
    const conversation = await api.chat.current();
    const saved = conversation.turns.reduce(
      (sum, t) => sum + (t.role === 'assistant' ? (t.usage?.cacheSavings ?? 0) : 0),
      0,
    );
    assert.ok(saved > 0);
  });

  it("each reply's cost is what the gateway billed, and counts in today's total", async () => {
    const api = await gatewayApi();
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await vscode.commands.executeCommand('gateway.newChat');
    const before = api.costs.today().bySource.panel ?? 0;
    const reply = await ask('What does this cost?');
    const usage = billed(sim, lastChat(sim));
    assert.equal(reply.usage?.cost, usage.cost);
    assert.equal(
      reply.usage?.reasoningTokens,
      (usage.completion_tokens_details as { reasoning_tokens: number }).reasoning_tokens,
    );
    const after = api.costs.today().bySource.panel ?? 0;
    assert.ok(Math.abs(after - before - (usage.cost as number)) < 1e-12, `${before} → ${after}`);
    assert.match(api.costStatus.lines()[0], /^Gateway AI today: \$/);
    // Kept in this window's own ledger file, which every window sums.
    await api.costs.whenSaved();
    const folder = vscode.Uri.joinPath(api.context.globalStorageUri, 'cost');
    const files = (await vscode.workspace.fs.readDirectory(folder)).map(([name]) => name);
    assert.ok(
      files.some((name) => /^window-.+\.json$/.test(name)),
      files.join(', '),
    );
  });

  it("sums other windows' ledger files into today's total, keeps unreadable ones aside (a few), leaves a newer version be", async () => {
    const api = await gatewayApi();
    await api.costs.load();
    const folder = vscode.Uri.joinPath(api.context.globalStorageUri, 'cost');
    const { day, total: before, bySource: sourcesBefore } = api.costs.today();
    const other = JSON.stringify({ version: 1, days: { [day]: { media: 0.5, completions: 0.25 } } });
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder, 'window-other-test.json'),
      new TextEncoder().encode(other),
    );
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder, 'window-broken-test.json'),
      new TextEncoder().encode('{"version":1,"days":'),
    );
    // Days of which none read: another window's figures, kept aside, never deleted.
    const oddDays = JSON.stringify({ version: 1, days: { [day]: { panel: '0.5', vscodeChat: -1 } } });
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder, 'window-odd-test.json'),
      new TextEncoder().encode(oddDays),
    );
    // A window already updated to a newer ledger: left where it is, out of the total.
    const newer = JSON.stringify({ version: 2, days: { [day]: { panel: { usd: 9 } } } });
    await vscode.workspace.fs.writeFile(
      vscode.Uri.joinPath(folder, 'window-newer-test.json'),
      new TextEncoder().encode(newer),
    );
    // Files set aside long ago: only the newest few are kept.
    for (const time of [1, 2, 3, 4, 5, 6])
      await vscode.workspace.fs.writeFile(
        vscode.Uri.joinPath(folder, `window-old-test.corrupt-${time}.json`),
        new TextEncoder().encode('x'),
      );
    await waitFor(
      () => Math.abs(api.costs.today().total - before - 0.75) < 1e-9,
      "another window's costs in today's total",
    );
    // This window's own media jobs (other suites) are in the figure too: only the difference counts.
    const media = (api.costs.today().bySource.media ?? 0) - (sourcesBefore.media ?? 0);
    assert.ok(Math.abs(media - 0.5) < 1e-9, `media grew by ${media}`);
    const names = await waitFor(async () => {
      const files = (await vscode.workspace.fs.readDirectory(folder)).map(([name]) => name);
      const aside = files.filter((name) => name.includes('.corrupt-'));
      return (
        aside.some((name) => /^window-broken-test\.corrupt-\d+/.test(name)) &&
        aside.some((name) => /^window-odd-test\.corrupt-\d+/.test(name)) &&
        aside.length <= 5 &&
        files
      );
    }, 'the unreadable ledgers to be kept aside, and the oldest set-aside files dropped');
    assert.ok(!names.includes('window-broken-test.json'));
    assert.ok(names.includes('window-newer-test.json'), 'a newer ledger is neither moved nor deleted');
    assert.ok(!names.includes('window-old-test.corrupt-1.json'));
    assert.ok(Math.abs(api.costs.today().total - before - 0.75) < 1e-9, 'the newer ledger is not counted');
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, 'window-newer-test.json'));
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, 'window-other-test.json'));
    await waitFor(
      () => Math.abs(api.costs.today().total - before) < 1e-9,
      'the removed file to leave the total',
    );
  });

  it('asks /v1/generation for the cost when the stream carries no usage, after its 404s', async () => {
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await vscode.commands.executeCommand('gateway.newChat');
    const reply = await ask('No usage here #sim:no-usage');
    const request = lastChat(sim);
    assert.equal(reply.usage?.cost, undefined, 'nothing in the stream');
    const id = `gen-sim-${request.id}`;
    const priced = await waitFor(
      async () => {
        const turn = (await (await gatewayApi()).chat.current()).turns.find((t) => t.id === reply.id);
        return turn?.role === 'assistant' && turn.usage?.cost !== undefined && turn;
      },
      'the reply to be priced from its generation record',
      15_000,
    );
    assert.equal(priced.usage?.cost, billed(sim, request).cost);
    const asks = sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/v1/generation'));
    assert.equal(asks.length, 3, 'two 404s, then the record');
    assert.deepEqual(
      asks.map((r) => r.query),
      [`?id=${id}`, `?id=${id}`, `?id=${id}`],
    );
    assert.ok(
      asks.every((r) => r.time - request.time >= 250),
      'never asked sooner than 250 ms after the request',
    );
    assert.ok(sim.quirks.generations.has(id));
  });

  it('a reply without a cost is estimated from tokens × the catalog price, and today says so', async () => {
    const api = await gatewayApi();
    await setSetting('chat.model', 'openai/gpt-4o-mini');
    await vscode.commands.executeCommand('gateway.newChat');
    const before = api.costs.today();
    const reply = await ask('Tokens but no cost #sim:no-cost');
    assert.ok(!sim.quirks.generations.has(`gen-sim-${lastChat(sim).id}`), 'no generation record');
    assert.equal(reply.usage?.cost, undefined, 'no cost was reported');
    const pricing = (await api.catalog.catalog.models()).find((m) => m.id === 'openai/gpt-4o-mini')?.pricing;
    assert.ok(pricing, 'the catalog prices the model');
    const expected =
      (reply.usage?.promptTokens ?? 0) * pricing.prompt +
      (reply.usage?.completionTokens ?? 0) * pricing.completion;
    assert.ok(expected > 0);
    assert.ok(
      Math.abs((reply.usage?.estimatedCost ?? 0) - expected) < 1e-12,
      `${reply.usage?.estimatedCost}`,
    );
    // After the generation record was asked for and never came, today's total counts the estimate.
    await waitFor(
      () => Math.abs(api.costs.today().estimated - before.estimated - expected) < 1e-12,
      "the estimate in today's total",
      15_000,
    );
    assert.ok(Math.abs(api.costs.today().total - before.total - expected) < 1e-12);
    const lines = api.costStatus.lines();
    assert.match(lines[0], /^Gateway AI today: ~\$/);
    assert.ok(
      lines.some((line) => /estimated from tokens × the catalog price/.test(line)),
      lines.join(' | '),
    );
  });

  it("VS Code's chat marks the prompt for anthropic/* too", async function () {
    if (!hasProviderApi) {
      this.skip();
      return;
    }
    await setSetting('languageModels.include', ['anthropic/claude-sonnet-4', 'openai/gpt-4o-mini']);
    const anthropic = await waitFor(
      async () =>
        (await vscode.lm.selectChatModels({ vendor: 'gateway', id: 'anthropic/claude-sonnet-4' }))[0],
      'the Anthropic model in VS Code’s chat',
      20_000,
    );
    const response = await anthropic.sendRequest([
      vscode.LanguageModelChatMessage.User('Cache this from VS Code’s chat'),
    ]);
    for await (const part of response.stream) void part;
    assert.equal(lastChat(sim).cacheMarks, 1);
    const openai = (await vscode.lm.selectChatModels({ vendor: 'gateway', id: 'openai/gpt-4o-mini' }))[0];
    assert.ok(openai);
    for await (const part of (await openai.sendRequest([vscode.LanguageModelChatMessage.User('Not marked')]))
      .stream)
      void part;
    assert.equal(lastChat(sim).cacheMarks, 0);
  });
});
