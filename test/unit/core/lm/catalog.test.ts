import * as assert from 'node:assert/strict';
import { GatewayError } from '../../../../src/api/errors';
import { parseCatalog } from '../../../../src/core/catalog/catalogCodec';
import { buildModelInfos } from '../../../../src/core/lm/modelInfo';
import { ECHO_MODELS } from '../../../simulator/catalog';
import { makeClient, withSimulator } from '../../api/helpers';

describe('language models from the catalog over loopback', () => {
  const ctx = withSimulator();
  afterEach(() => ctx.sim.reset());

  it("the catalog's echo models, read by the one catalog parser, are what VS Code's chat is offered", async () => {
    const { client } = makeClient(ctx.sim);
    const catalog = parseCatalog(await client.listModels());
    assert.ok(catalog);
    const offered = buildModelInfos({
      catalog,
      chatModels: [],
      currentModel: '',
      include: ['sim/*', 'other/*'],
    });
    assert.deepEqual(
      offered.map((m) => m.id),
      ECHO_MODELS.map((m) => m.id),
    );
    assert.deepEqual(
      offered.map((m) => m.capabilities),
      [
        { imageInput: true, toolCalling: true },
        { imageInput: false, toolCalling: false },
        { imageInput: false, toolCalling: true },
      ],
    );
  });

  it('a gateway without a catalog answers 404, which the caller can tell apart', async () => {
    ctx.sim.catalogMode = '404';
    const { client } = makeClient(ctx.sim);
    await assert.rejects(
      client.listModels(),
      (error: unknown) => GatewayError.is(error) && error.kind === 'http' && error.status === 404,
    );
  });
});
