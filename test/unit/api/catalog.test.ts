import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { modelEndpointsPath } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';
import { parseCatalog } from '../../../src/core/catalog/catalogCodec';
import { parseCredits } from '../../../src/core/catalog/creditsCodec';
import { makeClient, withSimulator } from './helpers';

describe('client: model catalog and credits', () => {
  const ctx = withSimulator();
  afterEach(() => ctx.sim.reset());

  it('listModels reads GET /v1/models with the key; ?output_modalities=all adds the media models', async () => {
    const { client, key } = makeClient(ctx.sim);
    const text = parseCatalog(await client.listModels());
    assert.ok(text && text.some((m) => m.id === 'openai/gpt-4o-mini'));
    assert.ok(!text.some((m) => m.id === 'openai/gpt-image-1'), 'the plain list is of text models');
    const request = ctx.sim.requests.at(-1)!;
    assert.equal(request.method, 'GET');
    assert.equal(request.path, '/api/v1/models');
    assert.equal(request.headers.authorization, `Bearer ${key}`);
    const all = parseCatalog(await client.listModels({}, { outputModalities: 'all' }));
    assert.ok(
      all && all.some((m) => m.id === 'openai/gpt-image-1') && all.some((m) => m.id === 'google/veo-3'),
    );
  });

  it('listModelEndpoints reads GET /v1/models/{id}/endpoints; a gateway without it answers 404', async () => {
    const { client } = makeClient(ctx.sim);
    const body = (await client.listModelEndpoints('testvendor/free-chat:free')) as {
      data: { endpoints: unknown[] };
    };
    assert.equal(body.data.endpoints.length, 3);
    assert.equal(ctx.sim.requests.at(-1)!.path, '/api/v1/models/testvendor/free-chat%3Afree/endpoints');
    ctx.sim.endpointsAvailable = false;
    await assert.rejects(
      client.listModelEndpoints('openai/gpt-4o-mini'),
      (e: unknown) => GatewayError.is(e) && e.status === 404,
    );
  });

  it('never lets a model id climb out of the models path (`.`/`..` segments are refused, nothing sent)', async () => {
    const { client } = makeClient(ctx.sim);
    const before = ctx.sim.requests.length;
    for (const id of ['openai/../../key', '../key', 'openai/.', 'a//b', 'openai/..'])
      await assert.rejects(
        client.listModelEndpoints(id),
        (e: unknown) => GatewayError.is(e) && e.kind === 'config',
        id,
      );
    assert.equal(ctx.sim.requests.length, before, 'nothing was sent');
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('.', '..', '%2e', '', 'a', '?x', '#'), fc.string()), {
          minLength: 1,
          maxLength: 5,
        }),
        (segments) => {
          const path = modelEndpointsPath(segments.join('/'));
          if (path === undefined) return;
          const url = new URL(`https://gw.example/api${path}`);
          assert.ok(
            url.pathname.startsWith('/api/v1/models/') && url.pathname.endsWith('/endpoints'),
            url.pathname,
          );
          assert.equal(
            url.pathname.split('/').length,
            segments.join('/').split('/').length + 5,
            url.pathname,
          );
          assert.equal(url.search + url.hash, '');
        },
      ),
    );
  });

  it('a gateway without a catalog answers 404: a GatewayError, not retried', async () => {
    ctx.sim.catalogMode = '404';
    const { client, log } = makeClient(ctx.sim);
    await assert.rejects(client.listModels(), (e: unknown) => GatewayError.is(e) && e.status === 404);
    assert.equal(log.length, 1);
  });

  it('getCredits reads /v1/key; no endpoints: undefined', async () => {
    const { client } = makeClient(ctx.sim);
    const credits = parseCredits(await client.getCredits());
    assert.deepEqual(credits, { total: 10, used: 2.5, remaining: 7.5 });
    ctx.sim.credits = undefined;
    assert.equal(await client.getCredits(), undefined);
    assert.deepEqual(
      ctx.sim.requests.slice(-2).map((r) => r.path),
      ['/api/v1/key', '/api/v1/credits'],
    );
    ctx.sim.credits = { limit: 10, usage: 2.5 };
  });

  it('a 402 says what to do', async () => {
    const { client } = makeClient(ctx.sim);
    await assert.rejects(
      client.chat({ model: 'a/b', messages: [{ role: 'user', content: 'hi #sim:status:402' }] }),
      (e: unknown) =>
        GatewayError.is(e) && e.status === 402 && /insufficient credits.*Add credits/i.test(e.message),
    );
  });

  it('the echo reports the images it received: count, MIME type, bytes', async () => {
    const { client } = makeClient(ctx.sim);
    const png = Buffer.from([137, 80, 78, 71, 1, 2, 3, 4, 5, 6]);
    const reply = await client.chat({
      model: 'a/b',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
          ],
        },
      ],
    });
    assert.match(reply.content, /Images received: 1 \(image\/png 10 bytes\)/);
  });
});
