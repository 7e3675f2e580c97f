/**
 * Gateway models in VS Code's own language-model API (1.104+): listed, streamed, tool calls,
 * images, cancellation, errors. Talks to the real simulator over loopback, through VS Code's
 * `vscode.lm`, as any extension or the built-in chat would. Where VS Code lacks the provider API
 * (1.100), the suite skips itself: its tests count as pending, not failed.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { gradientPng } from '../simulator/png';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, RecordedRequest } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

const hasProviderApi =
  typeof (vscode.lm as unknown as Record<string, unknown>).registerLanguageModelChatProvider === 'function';

/** The parts of the consumer-side model object that VS Code 1.139 adds beyond the 1.100 types. */
type ModelWithCapabilities = vscode.LanguageModelChat & {
  capabilities?: { supportsImageToText?: boolean; supportsToolCalling?: boolean };
};

type ChatBody = {
  model: string;
  stream: boolean;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>;
  tool_choice?: unknown;
  [k: string]: unknown;
};

function lastChat(sim: GatewaySimulator): RecordedRequest & { body: ChatBody } {
  const chats = sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/chat/completions'));
  assert.ok(chats.length > 0, 'a chat request reached the simulator');
  return chats[chats.length - 1] as RecordedRequest & { body: ChatBody };
}

async function gatewayModels(count: number): Promise<ModelWithCapabilities[]> {
  return waitFor(
    async () => {
      const models = await vscode.lm.selectChatModels({ vendor: 'gateway' });
      return models.length === count && models;
    },
    `${count} gateway models`,
    20_000,
  );
}

async function model(id: string): Promise<vscode.LanguageModelChat> {
  const [found] = await vscode.lm.selectChatModels({ vendor: 'gateway', id });
  assert.ok(found, `model ${id} is offered`);
  return found;
}

async function readAll(
  response: vscode.LanguageModelChatResponse,
): Promise<{ text: string; fragments: number; toolCalls: vscode.LanguageModelToolCallPart[] }> {
  let text = '';
  let fragments = 0;
  const toolCalls: vscode.LanguageModelToolCallPart[] = [];
  for await (const part of response.stream) {
    if (part instanceof vscode.LanguageModelTextPart) {
      text += part.value;
      fragments++;
    } else if (part instanceof vscode.LanguageModelToolCallPart) {
      toolCalls.push(part);
    }
  }
  return { text, fragments, toolCalls };
}

describe('Language models in VS Code chat (vendor "gateway")', function () {
  let sim: GatewaySimulator;

  before(async function () {
    if (!hasProviderApi) {
      this.skip();
      return;
    }
    sim = await startGatewaySimulator({ chunkDelayMs: 1 });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('languageModels.include', ['sim/*', 'other/echo-tools']);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  afterEach(() => sim?.setScenario(undefined));

  after(async () => {
    if (!sim) return;
    await setSetting('languageModels.include', undefined);
    await setSetting('chat.provider', undefined);
    await setSetting('chat.plugins', undefined);
    await setSetting('chat.reasoningEffort', undefined);
    await sim.close();
  });

  it('lists the catalog models with their limits and capabilities', async () => {
    const models = await gatewayModels(3);
    const byId = new Map(models.map((m) => [m.id, m]));
    assert.deepEqual([...byId.keys()].sort(), ['other/echo-tools', 'sim/echo-small', 'sim/echo-vision']);
    const vision = byId.get('sim/echo-vision')!;
    assert.equal(vision.vendor, 'gateway');
    assert.equal(vision.name, 'Simulator: Echo Vision');
    assert.equal(vision.family, 'sim');
    assert.equal(vision.version, 'echo-vision');
    // 200K context, of which 32K are for the reply.
    assert.equal(vision.maxInputTokens, 168_000);
    assert.deepEqual(
      { image: vision.capabilities?.supportsImageToText, tools: vision.capabilities?.supportsToolCalling },
      { image: true, tools: true },
    );
    const small = byId.get('sim/echo-small')!;
    assert.equal(small.maxInputTokens, 16_384 - 4_096);
    assert.deepEqual(
      { image: small.capabilities?.supportsImageToText, tools: small.capabilities?.supportsToolCalling },
      { image: false, tools: false },
    );
    // No max_completion_tokens in the catalog: the default (8192) is kept for the reply.
    assert.equal(byId.get('other/echo-tools')!.maxInputTokens, 64_000 - 8_192);
    assert.ok(
      (await vision.countTokens('Hello world, how are you?')) > 0,
      'tokens are counted without a request',
    );
    assert.equal(sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).length, 0);
  });

  it("streams the reply through our client, with our settings and the caller's options", async () => {
    await setSetting('chat.provider', { order: ['sim'] });
    await setSetting('chat.plugins', [{ id: 'file-parser' }]);
    await setSetting('chat.reasoningEffort', 'low');
    const api = await gatewayApi();
    const before = api.status.usageTotal.requests;
    const chat = await model('sim/echo-vision');
    const response = await chat.sendRequest(
      [vscode.LanguageModelChatMessage.User('Hello from the language-model suite')],
      {
        modelOptions: { temperature: 0.3 },
      },
    );
    const { text, fragments } = await readAll(response);
    assert.match(text, /^Echo from sim\/echo-vision: Hello from the language-model suite/);
    assert.ok(fragments > 3, `streamed in pieces (${fragments})`);
    // The simulator reasons first ("The user wants an echo."): that never becomes reply text.
    assert.doesNotMatch(text, /The user wants an echo/);
    const request = lastChat(sim);
    assert.equal(request.headers.authorization, `Bearer ${TEST_KEY}`);
    assert.equal(request.body.stream, true);
    assert.deepEqual(request.body.messages, [
      { role: 'user', content: 'Hello from the language-model suite' },
    ]);
    assert.deepEqual(request.body.provider, { order: ['sim'] });
    assert.deepEqual(request.body.plugins, [{ id: 'file-parser' }]);
    assert.deepEqual(request.body.reasoning, { effort: 'low' });
    assert.equal(request.body.temperature, 0.3);
    // Usage and cost reach the running total in the status bar.
    await waitFor(
      () => api.status.usageTotal.requests === before + 1,
      'the usage total to count the request',
    );
    assert.ok(api.status.usageTotal.cost > 0);
  });

  it('round-trips a tool call: the model asks, the caller answers, the model replies', async () => {
    const chat = await model('sim/echo-vision');
    const tools: vscode.LanguageModelChatTool[] = [
      {
        name: 'get_weather',
        description: 'Weather in a city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } },
      },
      {
        name: 'get_time',
        description: 'Time in a timezone',
        inputSchema: { type: 'object', properties: { timezone: { type: 'string' } } },
      },
    ];
    const prompt = vscode.LanguageModelChatMessage.User(
      'What is the weather and the time in Paris? #sim:tools',
    );
    const first = await readAll(
      await chat.sendRequest([prompt], { tools, toolMode: vscode.LanguageModelChatToolMode.Auto }),
    );
    const asked = lastChat(sim).body;
    assert.deepEqual(
      asked.tools?.map((t) => t.function.name),
      ['get_weather', 'get_time'],
    );
    assert.deepEqual(asked.tools?.[0].function.parameters, tools[0].inputSchema);
    assert.equal(asked.tool_choice, 'auto');
    // The simulator sends both calls' arguments in interleaved fragments; each call is reported
    // once its JSON is complete (the shorter one first).
    assert.deepEqual(
      first.toolCalls
        .map((c) => ({ callId: c.callId, name: c.name, input: c.input }))
        .sort((a, b) => a.callId.localeCompare(b.callId)),
      [
        { callId: 'call_sim_time', name: 'get_time', input: { timezone: 'Europe/Paris' } },
        { callId: 'call_sim_weather', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
      ],
    );

    const results = vscode.LanguageModelChatMessage.User([
      new vscode.LanguageModelToolResultPart('call_sim_weather', [
        new vscode.LanguageModelTextPart('18 °C and sunny'),
      ]),
      new vscode.LanguageModelToolResultPart('call_sim_time', [new vscode.LanguageModelTextPart('14:05')]),
    ]);
    const second = await readAll(
      await chat.sendRequest([prompt, vscode.LanguageModelChatMessage.Assistant(first.toolCalls), results], {
        tools,
      }),
    );
    const answered = lastChat(sim).body.messages;
    assert.deepEqual(
      answered[1].tool_calls?.map((c) => [
        c.id,
        c.function.name,
        JSON.parse(c.function.arguments) as unknown,
      ]),
      first.toolCalls.map((c) => [c.callId, c.name, c.input]),
    );
    assert.deepEqual(
      answered.slice(2).map((m) => [m.role, m.tool_call_id, m.content]),
      [
        ['tool', 'call_sim_weather', '18 °C and sunny'],
        ['tool', 'call_sim_time', '14:05'],
      ],
    );
    assert.match(second.text, /get_weather \(call_sim_weather\): 18 °C and sunny/);
    assert.match(second.text, /get_time \(call_sim_time\): 14:05/);
    assert.equal(second.toolCalls.length, 0);
  });

  it('sends an image data part to the gateway as an image_url data: URL', async () => {
    const DataPart = (
      vscode as unknown as { LanguageModelDataPart: { image(data: Uint8Array, mime: string): unknown } }
    ).LanguageModelDataPart;
    const png = new Uint8Array(gradientPng(8, 8, 3));
    const chat = await model('sim/echo-vision');
    const message = vscode.LanguageModelChatMessage.User([
      new vscode.LanguageModelTextPart('What is in this picture?'),
      DataPart.image(png, 'image/png') as vscode.LanguageModelTextPart,
    ]);
    const { text } = await readAll(await chat.sendRequest([message]));
    const request = lastChat(sim);
    assert.deepEqual(
      sim.seenImages.filter((i) => i.requestId === request.id),
      [{ requestId: request.id, mimeType: 'image/png', bytes: png.byteLength }],
    );
    const content = request.body.messages[0].content as Array<{
      type: string;
      text?: string;
      image_url?: { url: string };
    }>;
    assert.equal(content[0].text, 'What is in this picture?');
    assert.equal(content[1].type, 'image_url');
    assert.equal(content[1].image_url?.url, `data:image/png;base64,${Buffer.from(png).toString('base64')}`);
    assert.match(text, new RegExp(`Images received: 1 \\(image/png ${png.byteLength} bytes\\)`));
  });

  it('closes the connection within 1 s of a cancellation', async () => {
    const chat = await model('sim/echo-vision');
    const source = new vscode.CancellationTokenSource();
    const response = await chat.sendRequest(
      [vscode.LanguageModelChatMessage.User('Tell me slowly #sim:slow')],
      {},
      source.token,
    );
    let received = '';
    const reading = (async () => {
      for await (const part of response.text) received += part;
    })().catch(() => undefined);
    await waitFor(() => received.length > 0, 'the first words of the reply');
    const request = lastChat(sim);
    const cancelledAt = Date.now();
    source.cancel();
    const closed = await sim.waitForClosedConnection(request.id, 1000);
    assert.ok(closed.time - cancelledAt <= 1000, `closed after ${closed.time - cancelledAt} ms`);
    await reading;
    assert.doesNotMatch(received, /Sentence 40/);
    source.dispose();
  });

  it('turns a 401 into a LanguageModelError that says how to fix it', async () => {
    sim.setScenarioForKey(TEST_KEY, 'status:401');
    const chat = await model('sim/echo-vision');
    let failure: unknown;
    try {
      const response = await chat.sendRequest([vscode.LanguageModelChatMessage.User('Are you there?')]);
      await readAll(response);
    } catch (error) {
      failure = error;
    } finally {
      sim.setScenarioForKey(TEST_KEY, undefined);
    }
    assert.ok(failure instanceof vscode.LanguageModelError, `a LanguageModelError, not ${String(failure)}`);
    assert.match(failure.message, /rejected the API key.*Set API Key/);
    assert.ok(!failure.message.includes(TEST_KEY));
  });

  it('with no key offers no models and shows no error', async () => {
    const api = await gatewayApi();
    const errorsBefore = observed.notifications.filter((n) => n.severity === 'error').length;
    await api.apiKey.clear();
    try {
      await gatewayModels(0);
      assert.equal(observed.notifications.filter((n) => n.severity === 'error').length, errorsBefore);
    } finally {
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
    await gatewayModels(3);
  });
});
