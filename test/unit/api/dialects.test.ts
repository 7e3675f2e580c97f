/**
 * Gateway dialects (pure): which kind a gateway is from what it says, how a body is shaped for it,
 * which field a 400 refused, and where a pasted base URL puts the API. Fuzzed at each boundary.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createGatewayClient } from '../../../src/api/client';
import {
  DIALECTS,
  DIALECT_KINDS,
  dialectFromCatalog,
  dialectFromHeaders,
  dialectFromHost,
  dialectSetting,
  parseLearnedDialect,
  resolveDialect,
} from '../../../src/api/dialects';
import { apiRoot, resolveEndpoint } from '../../../src/api/endpoint';
import { parseModelInfo } from '../../../src/api/modelInfo';
import { learnRefusal, refusedField, shapeRequest } from '../../../src/api/requestShaper';
import { agentRequest } from '../../../src/core/agent/agentRequest';

/** A body as the rest of the code builds it: OpenRouter-shaped, for an agent turn. */
function agentBody(model = 'gpt-4o'): Record<string, unknown> {
  return {
    ...agentRequest(
      {
        model,
        messages: [
          {
            role: 'system',
            content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
          },
          { role: 'user', content: 'read a file' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
            reasoning_details: [{ type: 'reasoning.text', text: 'hm' }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'text' },
        ],
        reasoning: { effort: 'high' },
        plugins: [{ id: 'web' }],
        temperature: 0.2,
      },
      [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
    ),
  };
}

describe('api: gateway dialects', () => {
  it('has one record per kind, each naming its own kind', () => {
    for (const kind of DIALECT_KINDS) assert.equal(DIALECTS[kind].kind, kind);
    assert.equal(dialectSetting('litellm'), 'litellm');
    assert.equal(dialectSetting('LiteLLM'), 'auto');
    assert.equal(dialectSetting(42), 'auto');
  });

  it('tells the kind from the host', () => {
    const cases: Array<[string, string | undefined]> = [
      ['https://openrouter.ai/api', 'openrouter'],
      ['https://openrouter.ai/api/v1/', 'openrouter'],
      ['https://api.openai.com/v1', 'openai'],
      ['https://my-resource.openai.azure.com/openai', 'azure-openai'],
      ['https://gateway.ai.cloudflare.com/v1/acct/gw/openai', 'cloudflare'],
      ['https://ai-gateway.vercel.sh/v1', 'vercel'],
      ['https://api.portkey.ai/v1', 'portkey'],
      ['http://localhost:11434/v1', 'local'],
      ['http://127.0.0.1:1234/v1', 'local'],
      ['http://127.0.0.1:4000', undefined],
      ['https://openrouter.ai.evil.example/api', undefined],
      ['https://notopenrouter.ai/api', undefined],
      ['http://10.0.0.5:11434/v1', undefined],
      ['not a url', undefined],
    ];
    for (const [url, kind] of cases) assert.equal(dialectFromHost(url), kind, url);
  });

  it('tells the kind from response headers and catalog shapes', () => {
    assert.equal(dialectFromHeaders({ 'x-litellm-response-cost': '0.1' }), 'litellm');
    assert.equal(dialectFromHeaders({ 'x-portkey-trace-id': 'x', 'content-type': 'a' }), 'portkey');
    assert.equal(dialectFromHeaders({ 'content-type': 'application/json' }), undefined);
    assert.equal(
      dialectFromCatalog({
        data: [{ id: 'a/b', supported_parameters: ['tools'], pricing: { prompt: '0' } }],
      }),
      'openrouter',
    );
    assert.equal(dialectFromCatalog({ data: [{ id: 'llama3.2:3b', owned_by: 'library' }] }), 'local');
    assert.equal(dialectFromCatalog({ data: [{ id: 'gpt-4o', owned_by: 'system' }] }), undefined);
    assert.equal(dialectFromCatalog({ data: 'no' }), undefined);
  });

  it('lets the setting win, then the host, then what the answers gave away', () => {
    assert.equal(resolveDialect('litellm', 'https://openrouter.ai/api', {}).kind, 'litellm');
    assert.equal(resolveDialect('auto', 'https://openrouter.ai/api', { kind: 'litellm' }).kind, 'openrouter');
    assert.equal(resolveDialect('auto', 'http://127.0.0.1:4000', { kind: 'litellm' }).kind, 'litellm');
    assert.equal(resolveDialect('auto', 'http://127.0.0.1:4000', {}).kind, 'openai-compatible');
  });

  it("shapes an agent body for OpenAI: only OpenAI's fields, effort as reasoning_effort, usage asked for", () => {
    const body = { ...agentBody(), stream: true };
    const shaped = shapeRequest(body, '/v1/chat/completions', DIALECTS.openai, {});
    assert.deepEqual(Object.keys(shaped).sort(), [
      'messages',
      'model',
      'parallel_tool_calls',
      'reasoning_effort',
      'stream',
      'stream_options',
      'temperature',
      'tool_choice',
      'tools',
    ]);
    assert.equal(shaped.reasoning_effort, 'high');
    assert.deepEqual(shaped.stream_options, { include_usage: true });
    const text = JSON.stringify(shaped.messages);
    assert.doesNotMatch(text, /cache_control|reasoning_details/);
    // The body it was made from is untouched.
    assert.ok('provider' in body && JSON.stringify(agentBody().messages).includes('cache_control'));
  });

  it('sends bodies to OpenRouter as built, and to an unknown server as built plus the usage request', () => {
    const body = { ...agentBody('vendor/m'), stream: true };
    assert.deepEqual(shapeRequest(body, '/v1/chat/completions', DIALECTS.openrouter, {}), body);
    assert.deepEqual(shapeRequest(body, '/v1/chat/completions', DIALECTS['openai-compatible'], {}), {
      ...body,
      stream_options: { include_usage: true },
    });
    // Once a refusal taught it strictness: OpenAI's fields only.
    const strict = shapeRequest(body, '/v1/chat/completions', DIALECTS['openai-compatible'], {
      strict: true,
    });
    assert.ok(!('provider' in strict) && !('plugins' in strict) && !('reasoning' in strict));
    assert.doesNotMatch(JSON.stringify(strict.messages), /cache_control|reasoning_details/);
  });

  it('leaves out what was refused: a field, and tools for the model that refused them', () => {
    const body = { ...agentBody('gemma2:2b'), stream: true };
    const learned = learnRefusal({}, 'tools', 'gemma2:2b', '/v1/chat/completions');
    const shaped = shapeRequest(body, '/v1/chat/completions', DIALECTS.local, learned);
    assert.ok(!('tools' in shaped) && !('tool_choice' in shaped) && !('parallel_tool_calls' in shaped));
    const other = shapeRequest(
      { ...body, model: 'llama3.2:3b' },
      '/v1/chat/completions',
      DIALECTS.local,
      learned,
    );
    assert.ok('tools' in other);
    const noOptions = learnRefusal({}, 'stream_options', 'm', '/v1/chat/completions');
    assert.equal(noOptions.strict, undefined, "a refused field of OpenAI's own teaches nothing more");
    assert.ok(!('stream_options' in shapeRequest(body, '/v1/chat/completions', DIALECTS.local, noOptions)));
    assert.equal(learnRefusal({}, 'provider', 'm', '/v1/chat/completions').strict, true);
  });

  it('reads the refused field from the forms gateways use', () => {
    const body = agentBody();
    const cases: Array<[string, string | undefined]> = [
      [
        JSON.stringify({
          error: {
            message: 'Unrecognized request argument supplied: provider',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        }),
        'provider',
      ],
      [
        JSON.stringify({
          error: {
            message:
              'litellm.BadRequestError: OpenAIException - Unrecognized request argument supplied: plugins. Received Model Group=gpt-4o',
            code: '400',
          },
        }),
        'plugins',
      ],
      [
        JSON.stringify({
          detail: [
            { type: 'extra_forbidden', loc: ['body', 'reasoning'], msg: 'Extra inputs are not permitted' },
          ],
        }),
        'reasoning',
      ],
      [
        JSON.stringify({
          object: 'error',
          message:
            "[{'type': 'extra_forbidden', 'loc': ('body', 'provider'), 'msg': 'Extra inputs are not permitted', 'input': {}}]",
        }),
        'provider',
      ],
      [
        'Failed to deserialize the JSON body into the target type: unknown field `plugins`, expected one of …',
        'plugins',
      ],
      [
        JSON.stringify({
          error: {
            message:
              "Additional properties are not allowed ('cache_control' was unexpected) - 'messages.0.content.0'",
          },
        }),
        'cache_control',
      ],
      [
        JSON.stringify({ error: { message: 'registry.ollama.ai/library/gemma2:2b does not support tools' } }),
        'tools',
      ],
      // A field the request did not carry is never taken as refused.
      [
        JSON.stringify({ error: { message: 'Unrecognized request argument supplied: transforms' } }),
        undefined,
      ],
      [JSON.stringify({ error: { message: 'Invalid model name passed in model=x' } }), undefined],
      // Never a field no request goes without.
      [JSON.stringify({ error: { message: "'model' is not supported" } }), undefined],
      [JSON.stringify({ error: { message: 'Unrecognized request argument supplied: messages' } }), undefined],
      ['', undefined],
    ];
    for (const [text, field] of cases) assert.equal(refusedField(text, body), field, text);
  });

  it('puts the API where a pasted base URL says, never doubling /v1', () => {
    const cases: Array<[string, string]> = [
      ['https://openrouter.ai/api', 'https://openrouter.ai/api/v1/chat/completions'],
      ['https://openrouter.ai/api/', 'https://openrouter.ai/api/v1/chat/completions'],
      ['https://openrouter.ai/api/v1', 'https://openrouter.ai/api/v1/chat/completions'],
      ['https://openrouter.ai/api/v1/', 'https://openrouter.ai/api/v1/chat/completions'],
      ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/v1/chat/completions'],
      ['http://127.0.0.1:4000/v1', 'http://127.0.0.1:4000/v1/chat/completions'],
      ['http://localhost:11434/V1//', 'http://localhost:11434/V1/chat/completions'],
    ];
    for (const [base, url] of cases)
      assert.equal(resolveEndpoint(base, '/v1/chat/completions').href, url, base);
    assert.equal(
      resolveEndpoint('https://x.example/v1', '/v1/models?output_modalities=all').href,
      'https://x.example/v1/models?output_modalities=all',
    );
    assert.equal(resolveEndpoint('https://x.example/v1', '/v1').href, 'https://x.example/v1');
    // `/v1x` is not `/v1`.
    assert.equal(resolveEndpoint('https://x.example/v1', '/v1x').href, 'https://x.example/v1/v1x');
    assert.equal(apiRoot('https://openrouter.ai/api'), 'https://openrouter.ai/api/v1');
    assert.equal(apiRoot('http://127.0.0.1:4000/v1/'), 'http://127.0.0.1:4000/v1');
  });

  it("reads LiteLLM's /model/info: modes, tools, vision and prices by its model names", () => {
    const entries = parseModelInfo({
      data: [
        {
          model_name: 'gpt-4o',
          model_info: {
            mode: 'chat',
            supports_function_calling: true,
            supports_vision: true,
            input_cost_per_token: 2.5e-6,
          },
        },
        { model_name: 'gpt-image-1', model_info: { mode: 'image_generation' } },
        { model_name: 'gpt-4o', model_info: {} },
        { model_name: 'bad\nname' },
        { model_info: { mode: 'chat' } },
        'nope',
      ],
    });
    assert.deepEqual(entries, [
      { id: 'gpt-4o', mode: 'chat', tools: true, vision: true, inputCostPerToken: 2.5e-6 },
      { id: 'gpt-image-1', mode: 'image_generation' },
    ]);
  });

  it("sends Cloudflare's requests on its compat root, without another /v1", async () => {
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'ok' } }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const client = createGatewayClient({
      baseUrl: `http://127.0.0.1:${port}/v1/acct/gw/compat`,
      apiKey: () => 'k',
      dialect: 'cloudflare',
    });
    try {
      assert.equal((await client.chat({ model: 'openai/gpt-4o', messages: [] })).content, 'ok');
      assert.deepEqual(paths, ['/v1/acct/gw/compat/chat/completions']);
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("takes the gateway's own headers over its catalog's shape (Portkey in front of OpenRouter)", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-portkey-trace-id': 't1' });
      response.end(
        JSON.stringify({ data: [{ id: 'a/b', supported_parameters: ['tools'], pricing: { prompt: '0' } }] }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const learned: string[] = [];
    const client = createGatewayClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: () => 'k',
      onDialectLearned: (_base, record) => learned.push(record.kind ?? ''),
    });
    try {
      await client.listModels();
      await client.listModels();
      assert.equal(client.dialect().kind, 'portkey');
      assert.deepEqual(learned, ['portkey'], 'learned once, never flipped by the catalog');
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  describe('boundaries (property)', () => {
    const hostileBody = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 8,
    });

    it('refusedField never throws, and names only a field the body carried', () => {
      const words = fc.oneof(
        fc.string({ maxLength: 300 }),
        fc.jsonValue().map((value) => JSON.stringify(value)),
        fc
          .tuple(
            fc.constantFrom(
              'Unrecognized request argument supplied: ',
              'unknown field `',
              "Additional properties are not allowed ('",
              'Unknown parameter: ',
              ' does not support tools',
            ),
            fc.string({ maxLength: 20 }),
          )
          .map(([a, b]) => JSON.stringify({ error: { message: `${a}${b}` } })),
      );
      fc.assert(
        fc.property(words, hostileBody, (text, body) => {
          const field = refusedField(text, body);
          if (field === undefined) return;
          assert.ok(!['model', 'messages', 'prompt', 'stream'].includes(field), field);
          const nested = field === 'cache_control' || field === 'reasoning_details';
          assert.ok(Object.prototype.hasOwnProperty.call(body, field) || nested || field === 'tools', field);
        }),
      );
    });

    it('detection from headers, catalogs and stored records never throws and stays bounded', () => {
      fc.assert(
        fc.property(fc.anything(), fc.dictionary(fc.string(), fc.string()), (value, headers) => {
          const fromCatalog = dialectFromCatalog(value);
          assert.ok(fromCatalog === undefined || DIALECT_KINDS.includes(fromCatalog));
          const fromHeaders = dialectFromHeaders(headers);
          assert.ok(fromHeaders === undefined || DIALECT_KINDS.includes(fromHeaders));
          const learned = parseLearnedDialect(value);
          assert.ok((learned.refusedFields?.length ?? 0) <= 64);
          for (const entry of parseModelInfo(value))
            assert.ok(typeof entry.id === 'string' && entry.id.length <= 200);
          for (const entry of parseModelInfo({ data: [{ model_name: 'm', model_info: value }] }))
            assert.ok(entry.tools === undefined || typeof entry.tools === 'boolean');
          assert.ok(learned.kind === undefined || DIALECT_KINDS.includes(learned.kind));
        }),
      );
    });

    it('shapeRequest never throws, and leaves only what the dialect takes', () => {
      fc.assert(
        fc.property(hostileBody, fc.constantFrom(...DIALECT_KINDS), fc.anything(), (body, kind, stored) => {
          const learned = parseLearnedDialect(stored);
          const shaped = shapeRequest(body, '/v1/chat/completions', DIALECTS[kind], learned);
          for (const field of learned.refusedFields ?? [])
            assert.ok(!(field in shaped) || field === 'messages');
          if (DIALECTS[kind].onlyKnownFields || learned.strict)
            for (const field of Object.keys(shaped))
              assert.ok(
                field === 'messages' ||
                  field === 'stream_options' ||
                  field === 'reasoning_effort' ||
                  field in body,
              );
        }),
      );
    });
  });
});
