/**
 * Extra request headers, the auth header's forms and keyless local servers, against the loopback
 * simulator: the headers reach every call to the gateway's own origin and nothing else.
 */
import * as assert from 'node:assert/strict';
import { createGatewayClient } from '../../../src/api/client';
import { toTurnError } from '../../../src/core/chat/turnError';
import { liteLlmModelInfo } from '../../simulator';
import { collect, expectGatewayError, makeClient, requestsTo, userRequest, withSimulator } from './helpers';

const PORTKEY = { 'x-portkey-provider': 'openai' };
const HELICONE_SECRET = 'Bearer sk-helicone-0123456789-secret';

function headersOf(record: { headers: Record<string, unknown> } | undefined): Record<string, unknown> {
  assert.ok(record, 'no request was recorded');
  return record.headers;
}

describe('api: extra request headers go to the gateway, and only there', () => {
  const ctx = withSimulator({ mediaApi: 'openai', extras: { requiredHeaders: PORTKEY } });

  const withHeaders = (): ReturnType<typeof makeClient> =>
    makeClient(ctx.sim, { headers: () => ({ ...PORTKEY, 'Helicone-Auth': HELICONE_SECRET }) });

  it('chat, streamed chat, the catalog and a media start all carry them', async () => {
    const { client } = withHeaders();
    await client.chat(userRequest('hello'));
    const streamed = await collect(client.streamChat(userRequest('hello again')));
    assert.equal(streamed.error, undefined);
    await client.listModels();
    const started = await client.startMedia({ model: 'gpt-image-1', prompt: 'a red square' });
    assert.equal(started.record?.status, 'completed');
    for (const [method, path] of [
      ['POST', '/v1/chat/completions'],
      ['GET', '/v1/models'],
      ['POST', '/v1/images/generations'],
    ] as const) {
      const headers = headersOf(requestsTo(ctx.sim, method, path).at(-1));
      assert.equal(headers['x-portkey-provider'], 'openai', path);
      assert.equal(headers['helicone-auth'], HELICONE_SECRET, path);
    }
  });

  it('a gateway that requires a header refuses a request without it', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.chat(userRequest('hi')), 'http');
    assert.equal(error.status, 400);
  });

  it('never reach a result downloaded from another origin', async () => {
    const { client } = withHeaders();
    const started = await client.startMedia({ model: 'gpt-image-1', prompt: 'a cat #sim:url' });
    const output = started.record?.outputs[0];
    const url = output?.kind === 'url' ? output.url : '';
    assert.ok(url.startsWith(ctx.sim.resultOrigin), url);
    await client.download(url);
    const seen = ctx.sim.resultRequests.at(-1)?.headers ?? {};
    assert.equal(seen['x-portkey-provider'], undefined);
    assert.equal(seen['helicone-auth'], undefined);
    assert.equal(seen.authorization, undefined);
  });

  it("the client's own headers win over a header of the same name", async () => {
    const { client } = makeClient(ctx.sim, { headers: () => ({ ...PORTKEY, Accept: 'text/html' }) });
    await client.listModels();
    assert.equal(headersOf(requestsTo(ctx.sim, 'GET', '/v1/models').at(-1)).accept, 'application/json');
  });

  it('a header value the gateway echoes in an error is redacted like the key', async () => {
    const { client } = makeClient(ctx.sim, {
      headers: () => ({ 'x-portkey-provider': 'anthropic', 'x-portkey-api-key': 'pk-0123456789abcdef' }),
    });
    // The required header is missing (wrong value): the error names only its name.
    const error = await expectGatewayError(client.chat(userRequest('hi')), 'http');
    assert.ok(error.message.includes('x-portkey-api-key'), error.message);
    assert.ok(!error.message.includes('pk-0123456789abcdef'), error.message);
    // A header that is not a credential is not blanked from the gateway's words.
    assert.ok(error.message.includes('anthropic'), error.message);
  });
});

describe('api: the auth header forms', () => {
  describe('api-key (Azure OpenAI)', () => {
    const ctx = withSimulator({ extras: { auth: 'api-key' } });

    it('sends the key as api-key, never as Authorization', async () => {
      const { client, key } = makeClient(ctx.sim, { authHeader: 'api-key' });
      await client.chat(userRequest('hi'));
      const headers = headersOf(requestsTo(ctx.sim, 'POST', '/v1/chat/completions').at(-1));
      assert.equal(headers['api-key'], key);
      assert.equal(headers.authorization, undefined);
    });

    it('a Bearer key is refused by such a gateway (401), with the Set API Key action', async () => {
      const { client } = makeClient(ctx.sim);
      const error = await expectGatewayError(client.chat(userRequest('hi')), 'http');
      assert.equal(error.status, 401);
      assert.ok(toTurnError(error).actions.includes('setApiKey'));
    });
  });

  describe('none', () => {
    const ctx = withSimulator({ extras: { auth: 'none' } });

    it('sends no key at all, even when one is stored', async () => {
      const { client, key } = makeClient(ctx.sim, { authHeader: 'none' });
      await client.chat(userRequest('hi'));
      const headers = headersOf(requestsTo(ctx.sim, 'POST', '/v1/chat/completions').at(-1));
      assert.equal(headers.authorization, undefined);
      assert.equal(headers['api-key'], undefined);
      assert.ok(!JSON.stringify(headers).includes(key));
    });
  });

  describe('bearer (the default)', () => {
    const ctx = withSimulator({});

    it('sends Authorization: Bearer', async () => {
      const { client, key } = makeClient(ctx.sim);
      await client.listModels();
      assert.equal(headersOf(requestsTo(ctx.sim, 'GET', '/v1/models').at(-1)).authorization, `Bearer ${key}`);
    });
  });
});

describe('api: a gateway on this computer works without a key', () => {
  describe('a local server that takes none (Ollama, LM Studio, vLLM, llama.cpp)', () => {
    const ctx = withSimulator({ extras: { auth: 'none' } });

    it('chats and streams without a key, sending no Authorization', async () => {
      const { client } = makeClient(ctx.sim, { apiKey: () => undefined });
      const reply = await client.chat(userRequest('hello'));
      assert.ok(reply.content.length > 0);
      const streamed = await collect(client.streamChat(userRequest('hello')));
      assert.equal(streamed.error, undefined);
      for (const request of requestsTo(ctx.sim, 'POST', '/v1/chat/completions'))
        assert.equal(request.headers.authorization, undefined);
    });
  });

  describe('a local server that wants a key', () => {
    const ctx = withSimulator({});

    it('answers 401, which says no key is set and offers Set API Key', async () => {
      const { client } = makeClient(ctx.sim, { apiKey: () => '  ' });
      const error = await expectGatewayError(client.chat(userRequest('hi')), 'http');
      assert.equal(error.status, 401);
      assert.match(error.message, /none is set/);
      assert.ok(toTurnError(error).actions.includes('setApiKey'));
    });
  });

  it('a gateway off this computer still needs a key: nothing is sent without one', async () => {
    const client = createGatewayClient({ baseUrl: 'https://gateway.invalid/api', apiKey: () => undefined });
    try {
      const error = await expectGatewayError(client.listModels(), 'config');
      assert.match(error.message, /No API key is set/);
    } finally {
      await client.close();
    }
  });
});

describe('api: media models on OpenAI-style gateways (LiteLLM /model/info, known image ids)', () => {
  const ctx = withSimulator({
    mediaApi: 'openai',
    models: [{ id: 'gpt-4o' }, { id: 'dall-e-3' }, { id: 'llama3.2:3b' }],
    extras: {
      modelInfo: [
        liteLlmModelInfo('gpt-4o', 'chat'),
        liteLlmModelInfo('company-images', 'image_generation', { output_cost_per_image: 0.04 }),
      ],
    },
  });

  it("lists LiteLLM's image_generation models and the known image ids the catalog has", async () => {
    const { client } = makeClient(ctx.sim);
    const models = await client.listMediaModels();
    const byId = new Map(models.map((model) => [model.id, model]));
    assert.deepEqual(byId.get('company-images'), {
      id: 'company-images',
      kind: 'image',
      route: 'images-generations',
      price: '$0.04 per image',
    });
    assert.equal(byId.get('dall-e-3')?.route, 'images-generations');
    assert.equal(byId.has('gpt-4o'), false);
    assert.equal(byId.has('llama3.2:3b'), false);
  });

  it('a listed model goes straight to /v1/images/generations: no request is spent on trying', async () => {
    const { client } = makeClient(ctx.sim);
    await client.listMediaModels();
    const before = ctx.sim.requests.length;
    const started = await client.startMedia({ model: 'company-images', prompt: 'a red square' });
    assert.equal(started.route, 'images-generations');
    assert.deepEqual(
      ctx.sim.requests.slice(before).map((request) => `${request.method} ${request.path}`),
      ['POST /api/v1/images/generations'],
    );
  });

  it("a known OpenAI image id's first image is one request, with no catalog read", async () => {
    const { client } = makeClient(ctx.sim);
    const before = ctx.sim.requests.length;
    const started = await client.startMedia({ model: 'gpt-image-1', prompt: 'a blue square' });
    assert.equal(started.record?.status, 'completed');
    assert.deepEqual(
      ctx.sim.requests.slice(before).map((request) => `${request.method} ${request.path}`),
      ['POST /api/v1/images/generations'],
    );
  });
});
