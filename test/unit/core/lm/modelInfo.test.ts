import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CatalogModel } from '../../../../src/core/catalog/catalogCodec';
import { parseCatalog, undescribedModel } from '../../../../src/core/catalog/catalogCodec';
import { buildModelInfos, plainText, selectModelIds, toModelInfo } from '../../../../src/core/lm/modelInfo';
import { DEFAULT_CATALOG, ECHO_MODELS } from '../../../simulator/catalog';
import { isModelId } from '../../../../src/core/config/modelId';

/** The models through the one catalog parser, as the catalog service holds them. */
function parseModelCatalog(body: unknown): CatalogModel[] {
  return parseCatalog(body) ?? [];
}

/** Each field VS Code shows: no control characters and no Markdown link, read one field at a time. */
function assertInert(info: { name: string; tooltip: string; detail: string }): void {
  for (const [field, text] of Object.entries({ name: info.name, tooltip: info.tooltip, detail: info.detail }))
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    assert.doesNotMatch(text, /[\u0000-\u001f]|\]\(/, `${field}: ${JSON.stringify(text)}`);
}

describe('language-model information', () => {
  it('reads an OpenRouter-style catalog: limits, image input, tools, prices', () => {
    const catalog = parseModelCatalog({ data: ECHO_MODELS });
    assert.deepEqual(catalog[0], {
      id: 'sim/echo-vision',
      name: 'Simulator: Echo Vision',
      contextLength: 200_000,
      maxCompletionTokens: 32_000,
      inputModalities: ['text', 'image'],
      outputModalities: ['text'],
      supportedParameters: ['max_tokens', 'tools', 'tool_choice', 'reasoning'],
      pricing: { prompt: 0.00000015, completion: 0.0000006 },
      described: true,
    });
    const info = toModelInfo('sim/echo-vision', catalog[0]);
    assert.deepEqual(
      {
        family: info.family,
        version: info.version,
        maxInputTokens: info.maxInputTokens,
        maxOutputTokens: info.maxOutputTokens,
        capabilities: info.capabilities,
      },
      {
        family: 'sim',
        version: 'echo-vision',
        maxInputTokens: 168_000,
        maxOutputTokens: 32_000,
        capabilities: { imageInput: true, toolCalling: true },
      },
    );
    assert.equal(info.detail, '$0.15 in / $0.60 out per 1M tokens');
    assert.match(info.tooltip, /Context 200K tokens\. Price: \$0\.15 in \/ \$0\.60 out per 1M tokens\./);
  });

  it("offers VS Code's picker the ids other gateways use, with or without a vendor", () => {
    const catalog = parseModelCatalog({
      data: [{ id: 'gpt-4o' }, { id: 'llama3.2:3b' }, { id: 'my-team/claude' }, { id: 'model@2024.05' }],
    });
    assert.deepEqual(
      buildModelInfos({ catalog, chatModels: [], currentModel: '', include: ['*'] }).map((m) => m.id),
      ['gpt-4o', 'llama3.2:3b', 'my-team/claude', 'model@2024.05'],
    );
    assert.deepEqual(
      buildModelInfos({
        catalog: undefined,
        chatModels: ['dall-e-3'],
        currentModel: 'gpt-4o',
        include: [],
      }).map((m) => m.id),
      ['gpt-4o', 'dall-e-3'],
    );
    const bare = toModelInfo('llama3.2:3b', undefined);
    assert.deepEqual([bare.family, bare.version, bare.name], ['llama3.2:3b', 'llama3.2:3b', 'llama3.2:3b']);
    const vendored = toModelInfo('my-team/claude', undefined);
    assert.deepEqual([vendored.family, vendored.version], ['my-team', 'claude']);
  });

  it('falls back to defaults for a model the catalog does not describe', () => {
    const info = toModelInfo('openai/gpt-4o-mini', undefined);
    assert.deepEqual(
      {
        name: info.name,
        maxInputTokens: info.maxInputTokens,
        maxOutputTokens: info.maxOutputTokens,
        capabilities: info.capabilities,
        detail: info.detail,
      },
      {
        name: 'openai/gpt-4o-mini',
        maxInputTokens: 128_000 - 8_192,
        maxOutputTokens: 8_192,
        capabilities: { imageInput: false, toolCalling: true },
        detail: 'Gateway AI',
      },
    );
    // A small context keeps room for the prompt.
    assert.deepEqual(
      [
        toModelInfo('a/b', { ...undescribedModel('a/b'), contextLength: 4_000, maxCompletionTokens: 100_000 })
          .maxOutputTokens,
        toModelInfo('a/b', { ...undescribedModel('a/b'), contextLength: 4_000 }).maxInputTokens,
      ],
      [2_000, 2_000],
    );
  });

  it('without an include list offers the current and configured models; with one, what it selects from the catalog', () => {
    const catalog = parseModelCatalog({ data: ECHO_MODELS });
    const ids = (include: string[], withCatalog = true) =>
      buildModelInfos({
        catalog: withCatalog ? catalog : undefined,
        chatModels: ['a/one', 'sim/echo-small', 'bad id'],
        currentModel: 'a/current',
        include,
      }).map((m) => m.id);
    assert.deepEqual(ids([]), ['a/current', 'a/one', 'sim/echo-small']);
    assert.deepEqual(ids(['sim/*']), ['sim/echo-vision', 'sim/echo-small']);
    assert.deepEqual(ids(['*', '!sim/echo-s*']), ['sim/echo-vision', 'other/echo-tools']);
    assert.deepEqual(ids(['*ECHO-TOOLS']), ['other/echo-tools']);
    // An exact id the catalog lacks is still offered; without a catalog the include list narrows the configured ones.
    assert.deepEqual(ids(['x/not-listed']), ['x/not-listed']);
    assert.deepEqual(ids(['a/*'], false), ['a/current', 'a/one']);
    // Image, video and audio models are not offered to a chat.
    const all = parseModelCatalog({ data: DEFAULT_CATALOG });
    assert.deepEqual(
      buildModelInfos({ catalog: all, chatModels: [], currentModel: '', include: ['openai/*'] }).map(
        (m) => m.id,
      ),
      ['openai/gpt-4o-mini'],
    );
    // The catalog's description is used for configured models it lists.
    assert.equal(
      buildModelInfos({ catalog, chatModels: ['sim/echo-small'], currentModel: '', include: [] })[0]
        .maxInputTokens,
      16_384 - 4_096,
    );
  });

  it('makes gateway text inert before VS Code shows it', () => {
    assert.equal(
      plainText('[Set key](command:gateway.clearApiKey) ![x](https://t/p.png)\n<img src=x>'),
      '[Set key] (command:gateway.clearApiKey) ! [x] (https://t/p.png) ‹img src=x>',
    );
    const [entry] = parseModelCatalog({
      data: [{ id: 'evil/model', name: '[Click](command:workbench.action.reloadWindow)\u202e' }],
    });
    const info = toModelInfo(entry.id, entry);
    assert.doesNotMatch(`${info.name} ${info.tooltip}`, /\]\(|\u202e/);
  });

  // Found by the property below (seed 1701871855): a name ending in "]" was joined to a tooltip
  // starting with "(", and the joined string read as a Markdown link though no field held one.
  it('a name of "(]" is inert in every field, each read on its own', () => {
    const [model] = parseModelCatalog([{ id: 'a/b', name: '(]' }]);
    const info = toModelInfo(model.id, model);
    assert.equal(info.name, '(]');
    assert.match(info.tooltip, /^\(\] \(a\/b\) through your gateway/);
    assertInert(info);
  });

  it('reads any JSON without throwing, and keeps only well-formed, unique ids (property)', () => {
    const entry = fc.record(
      {
        id: fc.oneof(fc.string(), fc.constantFrom('a/b', 'x/y', 'a/b'), fc.jsonValue()),
        name: fc.oneof(fc.string(), fc.jsonValue()),
        context_length: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
        top_provider: fc.oneof(
          fc.record({ max_completion_tokens: fc.oneof(fc.integer(), fc.string(), fc.constant(null)) }),
          fc.jsonValue(),
        ),
        architecture: fc.oneof(
          fc.record({ input_modalities: fc.oneof(fc.array(fc.string()), fc.jsonValue()) }),
          fc.jsonValue(),
        ),
        pricing: fc.oneof(
          fc.record({
            prompt: fc.oneof(fc.string(), fc.double()),
            completion: fc.oneof(fc.string(), fc.double()),
          }),
          fc.jsonValue(),
        ),
        supported_parameters: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.record({ data: fc.array(entry, { maxLength: 8 }) }), fc.array(entry), fc.jsonValue()),
        (body) => {
          const catalog = parseModelCatalog(body);
          assert.equal(new Set(catalog.map((m) => m.id)).size, catalog.length);
          for (const model of catalog) {
            assert.ok(isModelId(model.id), model.id);
            const info = toModelInfo(model.id, model);
            assert.ok(Number.isInteger(info.maxInputTokens) && info.maxInputTokens >= 1);
            assert.ok(Number.isInteger(info.maxOutputTokens) && info.maxOutputTokens >= 1);
            assert.equal(typeof info.capabilities.imageInput, 'boolean');
            assert.equal(typeof info.capabilities.toolCalling, 'boolean');
            assertInert(info);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('selects by id or glob, case-insensitively, and never returns an excluded id', () => {
    assert.deepEqual(selectModelIds(['A/b', 'a/c', 'd/e'], ['a/*', '!*c']), ['A/b']);
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-c]{1,2}\/[a-c*?]{1,3}$/)),
        fc.array(fc.stringMatching(/^!?[a-c*?/]{1,4}$/)),
        (ids, patterns) => {
          const chosen = selectModelIds(ids, patterns);
          for (const id of chosen) assert.ok(ids.includes(id) || patterns.includes(id));
        },
      ),
    );
  });
});
