/**
 * The client against the simulator answering as other gateways do (strict OpenAI, LiteLLM, a
 * local server), and against a hostile one that refuses fields at random: bodies shaped for the
 * dialect, a refused field learned and retried once, usage and cost read where each sends them.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import OpenAI from 'openai';
import { GatewayError } from '../../../src/api/errors';
import type { DialectNotice, LearnedDialect } from '../../../src/api/types';
import { agentRequest } from '../../../src/core/agent/agentRequest';
import { collect, expectGatewayError, makeClient, requestsTo, withSimulator } from './helpers';

function agentBody(model: string, text = 'read a file') {
  return agentRequest(
    {
      model,
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'user', content: text },
      ],
      reasoning: { effort: 'low' },
      plugins: [{ id: 'web' }],
    },
    [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }],
  );
}

describe('api: other gateways (simulator modes)', () => {
  describe('strict OpenAI', () => {
    const ctx = withSimulator({ dialect: 'strict-openai' });
    beforeEach(() => ctx.sim.reset());

    it('streams a chat of an id without a slash, with its usage, at a base URL ending in /v1', async () => {
      assert.match(ctx.sim.baseUrl, /\/v1$/);
      const { client } = makeClient(ctx.sim, { dialect: 'openai' });
      const { completion, error } = await collect(
        client.streamChat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
      );
      assert.equal(error, undefined);
      assert.match(completion.content, /hello/);
      assert.ok((completion.usage?.prompt_tokens ?? 0) > 0, JSON.stringify(completion.usage));
      assert.equal(completion.usage?.cost, undefined, 'OpenAI reports no cost');
      const [sent] = requestsTo(ctx.sim, 'POST', '/chat/completions');
      assert.equal(sent.path, '/api/v1/chat/completions', 'one /v1, not two');
      assert.deepEqual((sent.body as Record<string, unknown>).stream_options, { include_usage: true });
    });

    it('gives an agent turn with tools, provider, plugins and cache marks its tool call, shaped from the start', async () => {
      const notices: DialectNotice[] = [];
      const { client } = makeClient(ctx.sim, { dialect: 'openai', onDialectNotice: (n) => notices.push(n) });
      const { completion, error } = await collect(
        client.streamChat(agentBody('gpt-4o', 'go #sim:call:read_file')),
      );
      assert.equal(error, undefined, error?.message);
      assert.equal(completion.toolCalls[0]?.function.name, 'read_file');
      assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length, 1);
      assert.deepEqual(notices, []);
    });

    it('learns a refused field when the kind is left to it: one retry, one notice, remembered', async () => {
      const notices: DialectNotice[] = [];
      const kept: LearnedDialect[] = [];
      const { client } = makeClient(ctx.sim, {
        onDialectNotice: (n) => notices.push(n),
        onDialectLearned: (_base, learned) => kept.push(learned),
      });
      assert.equal(client.dialect().kind, 'openai-compatible');
      const first = await collect(client.streamChat(agentBody('gpt-4o', 'go #sim:call:read_file')));
      assert.equal(first.error, undefined, first.error?.message);
      assert.equal(first.completion.toolCalls[0]?.function.name, 'read_file');
      const sent = requestsTo(ctx.sim, 'POST', '/chat/completions');
      assert.equal(sent.length, 2, 'refused once, then sent again without it');
      assert.match(
        sent[0].wireProblem ?? '',
        /Unrecognized request argument supplied: (provider|plugins|reasoning)$/,
      );
      assert.equal(sent[1].wireProblem, undefined);
      assert.equal(notices.length, 1);
      assert.ok(['provider', 'plugins', 'reasoning'].includes(notices[0].field ?? ''), notices[0].field);
      assert.equal(kept.at(-1)?.strict, true);

      await client.chat(agentBody('gpt-4o'));
      assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length, 3, 'no refusal the second time');
      assert.equal(notices.length, 1, 'told once');

      // A new client for the same gateway, given what was kept, does not learn it again.
      const again = makeClient(ctx.sim, { learnedDialect: kept.at(-1) }).client;
      await again.chat(agentBody('gpt-4o'));
      assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length, 4);
    });

    it('answers the official openai SDK as OpenAI does: usage only when asked, unknown fields refused', async () => {
      const sdk = new OpenAI({ baseURL: ctx.sim.baseUrl, apiKey: 'sk-test-1234', maxRetries: 0 });
      const chunks = await sdk.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let usage: OpenAI.CompletionUsage | undefined | null;
      let text = '';
      for await (const chunk of chunks) {
        text += chunk.choices[0]?.delta.content ?? '';
        usage = chunk.usage ?? usage;
      }
      assert.match(text, /hi/);
      assert.ok((usage?.total_tokens ?? 0) > 0);
      let silent: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of await sdk.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      }))
        silent = chunk.usage ?? silent;
      assert.equal(silent ?? undefined, undefined, 'no usage unless asked for');
      const refused = await sdk.chat.completions
        .create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'x' }],
          provider: { sort: 'price' },
        } as never)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(refused instanceof OpenAI.BadRequestError, String(refused));
      assert.match(refused.message, /Unrecognized request argument supplied: provider/);
      const models = await sdk.models.list();
      assert.deepEqual(
        models.data.map((m) => m.id),
        ['gpt-4o', 'gpt-4o-mini', 'gpt-image-1'],
      );
      const image = await sdk.images.generate({ model: 'gpt-image-1', prompt: 'a square' });
      assert.ok((image.data?.[0]?.b64_json?.length ?? 0) > 0);
    });

    it('asks no OpenRouter-only endpoint of it', async () => {
      const { client } = makeClient(ctx.sim, { dialect: 'openai' });
      assert.equal(await client.getCredits(), undefined);
      assert.equal(await client.getGeneration('chatcmpl-1'), undefined);
      assert.equal(await client.listModelEndpoints('gpt-4o'), undefined);
      assert.equal(ctx.sim.requests.length, 0);
      const catalog = (await client.listModels()) as { data: Array<{ id: string }> };
      assert.deepEqual(
        catalog.data.map((m) => m.id),
        ['gpt-4o', 'gpt-4o-mini', 'gpt-image-1'],
      );
    });

    it('a wrong key is a 401 there', async () => {
      const { client } = makeClient(ctx.sim, { dialect: 'openai', apiKey: () => 'sk-wrong-key-1234' });
      const error = await expectGatewayError(
        client.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
        'http',
      );
      assert.equal(error.status, 401);
    });
  });

  describe('LiteLLM', () => {
    const ctx = withSimulator({ dialect: 'litellm' });
    beforeEach(() => ctx.sim.reset());

    it('is recognised by its headers, and its cost header becomes the reply cost', async () => {
      const notices: DialectNotice[] = [];
      const { client } = makeClient(ctx.sim, { onDialectNotice: (n) => notices.push(n) });
      const whole = await client.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'price me' }] });
      assert.ok((whole.usage?.cost ?? 0) > 0, JSON.stringify(whole.usage));
      assert.equal(client.dialect().kind, 'litellm');
      assert.equal(notices[0]?.dialect, 'litellm');

      const streamed = await collect(
        client.streamChat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'and me' }] }),
      );
      assert.equal(streamed.error, undefined);
      assert.ok((streamed.completion.usage?.cost ?? 0) > 0, JSON.stringify(streamed.completion.usage));
      assert.ok((streamed.completion.usage?.completion_tokens ?? 0) > 0, 'usage asked for and read');
      // Known now: no credit endpoints asked.
      assert.equal(await client.getCredits(), undefined);
      assert.equal(requestsTo(ctx.sim, 'GET', '/key').length, 0);
    });

    it('takes the base URL with or without /v1, and describes its models at /model/info', async () => {
      for (const baseUrl of [ctx.sim.origin, `${ctx.sim.origin}/v1`, `${ctx.sim.origin}/v1/`]) {
        const { client } = makeClient(ctx.sim, { baseUrl, dialect: 'litellm' });
        const info = (await client.listModelInfo()) as {
          data: Array<{ model_name: string; model_info: { mode: string } }>;
        };
        assert.deepEqual(
          info.data.map((m) => `${m.model_name}:${m.model_info.mode}`),
          ['gpt-4o:chat', 'claude-sonnet:chat', 'gpt-image-1:image_generation'],
        );
      }
      const paths = requestsTo(ctx.sim, 'GET', '/model/info').map((r) => r.path);
      assert.deepEqual(paths, ['/api/v1/model/info', '/api/v1/model/info', '/api/v1/model/info']);
    });

    it('forwards an agent body to a strict upstream only once shaped', async () => {
      const { client } = makeClient(ctx.sim, { dialect: 'litellm' });
      const { error, completion } = await collect(
        client.streamChat(agentBody('claude-sonnet', 'go #sim:call:read_file')),
      );
      assert.equal(error, undefined, error?.message);
      assert.equal(completion.toolCalls[0]?.function.name, 'read_file');
      assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length, 1);
    });

    it('a wrong key ("No connected db.") is an auth error, an unknown model a 400 that blames nothing else', async () => {
      const wrong = makeClient(ctx.sim, { apiKey: () => 'sk-wrong-0000' }).client;
      const auth = await expectGatewayError(
        wrong.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
        'http',
      );
      assert.equal(auth.status, 401);
      assert.match(auth.message, /Set API Key/);
      const { client } = makeClient(ctx.sim);
      const unknown = await expectGatewayError(
        client.chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
        'http',
      );
      assert.equal(unknown.status, 400);
      assert.equal(requestsTo(ctx.sim, 'POST', '/chat/completions').length, 2, 'neither retried');
    });

    it('passes no Retry-After on', async () => {
      const { client } = makeClient(ctx.sim, { maxRetries: 0 });
      const error = await expectGatewayError(
        client.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'busy #sim:429:7' }] }),
        'http',
      );
      assert.equal(error.status, 429);
      assert.equal(error.retryAfter, undefined);
    });

    it('ends a stream its upstream cut as finished, as LiteLLM does', async () => {
      const { client } = makeClient(ctx.sim, { dialect: 'litellm' });
      const { error, completion } = await collect(
        client.streamChat({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'a long enough reply to cut #sim:drop' }],
        }),
      );
      assert.equal(error, undefined);
      assert.equal(completion.finishReason, 'stop');
    });
  });

  describe('local server', () => {
    const ctx = withSimulator({ dialect: 'local' });
    beforeEach(() => ctx.sim.reset());

    it('streams a chat of an id with a colon, with usage when asked', async () => {
      const { client } = makeClient(ctx.sim, { baseUrl: ctx.sim.baseUrl.replace('127.0.0.1', 'localhost') });
      const { completion, error } = await collect(
        client.streamChat({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hi' }] }),
      );
      assert.equal(error, undefined, error?.message);
      assert.ok((completion.usage?.total_tokens ?? 0) > 0);
    });

    it('turns tools off for a model that refuses them, says so once, and the turn still answers', async () => {
      const notices: DialectNotice[] = [];
      const { client } = makeClient(ctx.sim, { dialect: 'local', onDialectNotice: (n) => notices.push(n) });
      const { completion, error } = await collect(client.streamChat(agentBody('gemma2:2b')));
      assert.equal(error, undefined, error?.message);
      assert.ok(completion.content.length > 0);
      assert.deepEqual(client.learned().toolsRefused, ['gemma2:2b']);
      assert.equal(notices.length, 1);
      assert.equal(notices[0].field, 'tools');
      assert.match(notices[0].message, /tools/);
      const sent = requestsTo(ctx.sim, 'POST', '/chat/completions');
      assert.equal(sent.length, 2);
      assert.ok(!('tools' in (sent[1].body as Record<string, unknown>)));
      // Another model keeps its tools.
      await collect(client.streamChat(agentBody('llama3.2:3b')));
      assert.ok(
        'tools' in (requestsTo(ctx.sim, 'POST', '/chat/completions')[2].body as Record<string, unknown>),
      );
    });
  });

  describe('a gateway that refuses fields at random (property)', () => {
    let server: Server;
    let origin = '';
    const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    let answer: { status: number; body: string } = { status: 400, body: '' };
    before(async () => {
      server = createServer((request, response) => {
        let text = '';
        request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        request.on('end', () => {
          seen.push({ headers: request.headers, body: text });
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(answer.body);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('never retries more than once, never throws anything but a GatewayError, and sends the key only there', async function () {
      this.timeout(60_000);
      const field = fc.constantFrom(
        'provider',
        'plugins',
        'reasoning',
        'tools',
        'cache_control',
        'stream_options',
        'model',
        'x',
      );
      const refusal = fc.oneof(
        field.map((f) =>
          JSON.stringify({ error: { message: `Unrecognized request argument supplied: ${f}` } }),
        ),
        field.map((f) =>
          JSON.stringify({
            detail: [{ type: 'extra_forbidden', loc: ['body', f], msg: 'Extra inputs are not permitted' }],
          }),
        ),
        field.map((f) => `unknown field \`${f}\``),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string({ maxLength: 200 }),
      );
      await fc.assert(
        fc.asyncProperty(
          refusal,
          fc.boolean(),
          fc.constantFrom('auto', 'openai', 'litellm', 'local') as fc.Arbitrary<'auto'>,
          async (body, stream, dialect) => {
            seen.length = 0;
            answer = { status: 400, body };
            const { client, key } = makeClient({ baseUrl: `${origin}/v1` } as never, {
              dialect,
              maxRetries: 0,
            });
            try {
              const request = agentBody('m');
              if (stream) {
                const outcome = await collect(client.streamChat(request));
                assert.ok(outcome.error, 'a 400 fails');
              } else
                await client.chat(request).then(
                  () => assert.fail('a 400 fails'),
                  (error: unknown) => assert.ok(GatewayError.is(error)),
                );
            } finally {
              await client.close();
            }
            assert.ok(seen.length >= 1 && seen.length <= 2, `${seen.length} requests`);
            for (const field of client.learned().refusedFields ?? [])
              assert.ok(!['model', 'messages', 'stream'].includes(field), `learned to leave out ${field}`);
            for (const request of seen) assert.equal(request.headers.authorization, `Bearer ${key}`);
            if (seen.length === 2)
              assert.notEqual(seen[0].body, seen[1].body, 'the retry left something out');
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});
