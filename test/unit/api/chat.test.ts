import * as assert from 'node:assert/strict';
import type { ChatDelta } from '../../../src/api/types';
import { collect, makeClient, userRequest, withSimulator } from './helpers';

describe('api: chat against the simulator', () => {
  const ctx = withSimulator();

  it('answers a non-streaming chat with content, reasoning, usage and meta', async () => {
    const { client } = makeClient(ctx.sim);
    const reply = await client.chat(userRequest('Hello there'));
    assert.match(reply.content, /^Echo from vendor\/model-1: Hello there/);
    assert.match(reply.reasoning, /echo/);
    assert.equal(reply.finishReason, 'stop');
    assert.equal(reply.provider, 'SimProvider');
    assert.equal(reply.model, 'vendor/model-1');
    assert.ok(reply.usage && typeof reply.usage.cost === 'number' && reply.usage.cost > 0);
    const sent = ctx.sim.requests.at(-1)?.body as Record<string, unknown>;
    assert.equal('stream' in sent, false, 'non-streaming chat sends no stream flag');
  });

  it('passes every ChatRequest parameter through untouched to a server nothing is known of, asking for stream usage', async () => {
    const { client } = makeClient(ctx.sim);
    const request = userRequest('params', {
      temperature: 0.3,
      max_tokens: 77,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      response_format: { type: 'json_object' },
      reasoning: { effort: 'high', exclude: false },
      provider: { order: ['openai', 'azure'], allow_fallbacks: false, data_collection: 'deny' },
      plugins: [{ id: 'web', max_results: 3 }],
      top_p: 0.9,
      transforms: ['middle-out'],
      user: 'someone',
    });
    request.messages.unshift({ role: 'system', content: 'Be brief.' });
    await client.chat(request);
    assert.deepEqual(ctx.sim.requests.at(-1)?.body, request);

    for await (const delta of client.streamChat(request)) void delta;
    assert.deepEqual(ctx.sim.requests.at(-1)?.body, {
      ...request,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('streams typed deltas: meta first, reasoning before content, finish, usage with cost last', async () => {
    const { client } = makeClient(ctx.sim);
    const { deltas, completion, error } = await collect(client.streamChat(userRequest('stream me')));
    assert.equal(error, undefined);
    const types = deltas.map((delta) => delta.type);
    assert.equal(types[0], 'meta');
    assert.ok(types.indexOf('reasoning') < types.indexOf('content'));
    assert.equal(types.at(-2), 'finish');
    assert.equal(types.at(-1), 'usage');
    assert.ok(deltas.filter((delta) => delta.type === 'content').length > 3, 'content arrives in pieces');
    assert.ok(deltas.some((delta) => delta.type === 'reasoning_details'));
    assert.match(completion.content, /^Echo from vendor\/model-1: stream me/);
    assert.equal(
      completion.reasoning,
      'The user wants an echo. I will quote the last message with a little markdown.',
    );
    const usage = deltas.at(-1) as Extract<ChatDelta, { type: 'usage' }>;
    assert.ok(usage.usage.total_tokens && usage.usage.cost && usage.usage.cost > 0);
    assert.deepEqual(deltas[0], {
      type: 'meta',
      id: completion.id,
      model: 'vendor/model-1',
      provider: 'SimProvider',
    });
  });

  it('logs each exchange once, without headers or the key', async () => {
    const { client, key, log } = makeClient(ctx.sim);
    await collect(client.streamChat(userRequest('log me')));
    await client.chat(userRequest('and me'));
    assert.equal(log.length, 2);
    assert.deepEqual(Object.keys(log[0]).sort(), [
      'attempt',
      'durationMs',
      'error',
      'method',
      'path',
      'status',
    ]);
    assert.equal(log[0].path, '/api/v1/chat/completions');
    assert.equal(log[0].status, 200);
    assert.ok(!JSON.stringify(log).includes(key));
  });

  it('sends the Bearer key and the accept type on every call', async () => {
    const { client, key } = makeClient(ctx.sim);
    const before = ctx.sim.requests.length;
    await client.chat(userRequest('a'));
    await collect(client.streamChat(userRequest('b')));
    const started = await client.startMedia({ model: 'vendor/image', prompt: 'p' });
    await client.getMedia(started.id);
    const mine = ctx.sim.requests.slice(before);
    assert.equal(mine.length, 4);
    for (const request of mine) assert.equal(request.headers.authorization, `Bearer ${key}`);
    assert.equal(mine[1].headers.accept, 'text/event-stream');
  });

  it('gives exactly the same text when the stream arrives one byte per write', async () => {
    const { client } = makeClient(ctx.sim);
    const normal = await collect(client.streamChat(userRequest('#sim:long:4000 naïve 日本語 🎉')));
    assert.equal(normal.error, undefined);
    const oneByte = await collect(
      client.streamChat(userRequest('#sim:long:4000 #sim:chunk:1 naïve 日本語 🎉')),
    );
    assert.equal(oneByte.error, undefined);
    assert.ok(Buffer.byteLength(normal.completion.content) >= 4000);
    assert.equal(oneByte.completion.content, normal.completion.content);
    assert.equal(oneByte.completion.usage?.completion_tokens, normal.completion.usage?.completion_tokens);
    assert.equal(oneByte.completion.finishReason, 'stop');
  });

  it('keeps multi-byte characters intact when writes split them (emoji, CJK)', async () => {
    const { client } = makeClient(ctx.sim);
    const text = '😀 你好世界 — ünïcödé 🧪🚀';
    for (const size of [1, 2, 3, 5]) {
      const { completion, error } = await collect(
        client.streamChat(userRequest(`${text} #sim:chunk:${size}`)),
      );
      assert.equal(error, undefined);
      assert.ok(completion.content.startsWith(`Echo from vendor/model-1: ${text}`), `chunk:${size}`);
      assert.ok(!completion.content.includes('\uFFFD'), 'no replacement characters');
    }
  });

  it('reads \\r\\n line ends the same as \\n', async () => {
    const { client } = makeClient(ctx.sim);
    const plain = await collect(client.streamChat(userRequest('line ends')));
    const crlf = await collect(client.streamChat(userRequest('line ends #sim:crlf')));
    const crlfOneByte = await collect(client.streamChat(userRequest('line ends #sim:crlf #sim:chunk:1')));
    assert.equal(crlf.error, undefined);
    assert.equal(
      crlf.completion.content,
      plain.completion.content.replaceAll('line ends', 'line ends #sim:crlf'),
    );
    assert.equal(
      crlfOneByte.completion.content,
      plain.completion.content.replaceAll('line ends', 'line ends #sim:crlf #sim:chunk:1'),
    );
    assert.equal(crlf.completion.finishReason, 'stop');
  });

  it('merges tool calls split across chunks by index, yielding snapshots', async () => {
    const { client } = makeClient(ctx.sim);
    const { deltas, completion } = await collect(client.streamChat(userRequest('#sim:tools')));
    const snapshots = deltas.filter(
      (delta): delta is Extract<ChatDelta, { type: 'tool_calls' }> => delta.type === 'tool_calls',
    );
    assert.ok(snapshots.length > 4);
    assert.equal(completion.finishReason, 'tool_calls');
    assert.deepEqual(
      completion.toolCalls.map((call) => [
        call.index,
        call.id,
        call.type,
        call.function.name,
        JSON.parse(call.function.arguments) as unknown,
      ]),
      [
        [0, 'call_sim_weather', 'function', 'get_weather', { city: 'Paris', unit: 'celsius' }],
        [1, 'call_sim_time', 'function', 'get_time', { timezone: 'Europe/Paris' }],
      ],
    );
    // Snapshots are copies: an early one is not changed by later fragments.
    assert.equal(snapshots[0].toolCalls[0].function.arguments, '');
    const whole = await client.chat(userRequest('#sim:tools'));
    assert.deepEqual(
      whole.toolCalls.map((call) => call.function.name),
      ['get_weather', 'get_time'],
    );
  });

  it('reports url_citation annotations, streamed and whole', async () => {
    const { client } = makeClient(ctx.sim);
    const { deltas, completion } = await collect(client.streamChat(userRequest('#sim:citations')));
    assert.ok(deltas.some((delta) => delta.type === 'annotations'));
    assert.deepEqual(
      completion.annotations.map((annotation) => annotation.url_citation?.url),
      ['https://example.com/docs', 'https://example.org/source'],
    );
    const whole = await client.chat(userRequest('#sim:citations'));
    assert.equal(whole.annotations.length, 2);
    assert.equal(whole.annotations[0].type, 'url_citation');
  });

  it('passes hostile content through verbatim (rendering is not the client’s business)', async () => {
    const { client } = makeClient(ctx.sim);
    const { completion } = await collect(client.streamChat(userRequest('#sim:xss')));
    assert.ok(completion.content.includes("<script>alert('xss-script')</script>"));
    assert.ok(completion.content.includes('[a markdown link](javascript:alert(1))'));
    assert.ok(completion.content.includes(`${ctx.sim.origin}/img/track-1.png`));
    assert.equal(ctx.sim.imageRequests, 0);
  });

  it('selects scenarios by header, by key and globally', async () => {
    const viaKey = makeClient(ctx.sim);
    ctx.sim.setScenarioForKey(viaKey.key, 'tools');
    assert.equal((await viaKey.client.chat(userRequest('x'))).finishReason, 'tool_calls');
    ctx.sim.setScenarioForKey(viaKey.key, undefined);

    ctx.sim.setScenario('citations');
    try {
      const global = makeClient(ctx.sim);
      assert.equal((await global.client.chat(userRequest('x'))).annotations.length, 2);
    } finally {
      ctx.sim.setScenario(undefined);
    }

    const response = await fetch(`${ctx.sim.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-header',
        'content-type': 'application/json',
        'x-sim-scenario': 'tools',
      },
      body: JSON.stringify(userRequest('x')),
    });
    const body = (await response.json()) as { choices: Array<{ finish_reason: string }> };
    assert.equal(body.choices[0].finish_reason, 'tool_calls');
  });
});
