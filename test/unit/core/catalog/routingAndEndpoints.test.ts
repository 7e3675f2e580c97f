import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isFreeModel, parseCatalog } from '../../../../src/core/catalog/catalogCodec';
import type { CatalogModel } from '../../../../src/core/catalog/catalogCodec';
import { parseEndpoints, providerNames } from '../../../../src/core/catalog/endpointsCodec';
import {
  DEFAULT_ROUTING,
  PDF_ENGINE,
  effortChoices,
  parseChatTools,
  parseChoicesByModel,
  parseRouting,
  parseToolsByChat,
  providerField,
  reasoningField,
  toolFields,
} from '../../../../src/core/catalog/modelOptions';
import { pickerEntries } from '../../../../src/core/catalog/catalogView';
import { DEFAULT_CATALOG, simEndpoints } from '../../../simulator/catalog';

const RUNS = 2000;
const catalog = parseCatalog({ data: DEFAULT_CATALOG })!;
const byId = (id: string): CatalogModel => catalog.find((m) => m.id === id)!;

describe('catalog: efforts, free models and expiry', () => {
  it('reads reasoning.supported_efforts and default_effort, expiration_date, and free models', () => {
    const thinker = byId('testvendor/thinker');
    assert.deepEqual(thinker.reasoningEfforts, ['minimal', 'low', 'high', 'xhigh']);
    assert.equal(thinker.defaultEffort, 'low');
    assert.equal(byId('testvendor/retiring').expirationDate, '2026-12-31');
    assert.ok(isFreeModel(byId('testvendor/free-chat:free')));
    assert.ok(isFreeModel({ ...byId('openai/gpt-4o-mini'), pricing: { prompt: 0, completion: 0 } }));
    assert.ok(!isFreeModel(byId('openai/gpt-4o-mini')));
  });

  it('offers only the catalog efforts, the classic three for the older "reasoning" parameter, none otherwise', () => {
    assert.deepEqual(effortChoices(byId('testvendor/thinker')), {
      efforts: ['minimal', 'low', 'high', 'xhigh'],
      defaultEffort: 'low',
    });
    assert.deepEqual(effortChoices(byId('openai/gpt-4o-mini')).efforts, ['low', 'medium', 'high']);
    assert.deepEqual(effortChoices(byId('testvendor/text-only')).efforts, []);
    assert.deepEqual(effortChoices(undefined).efforts, []);
  });

  it('picker rows say "free" and warn of an expiry in plain words', () => {
    const entries = pickerEntries(catalog, { current: '', favourites: [], recent: [] });
    const free = entries.find((e) => e.id === 'testvendor/free-chat:free')!;
    assert.match(free.description, /free/);
    const retiring = entries.find((e) => e.id === 'testvendor/retiring')!;
    assert.match(retiring.detail, /Expires on 2026-12-31/);
    assert.ok(!retiring.detail.includes('$('), 'no icon syntax in the warning');
  });
});

describe('reasoning and routing request fields', () => {
  it('the per-model effort wins; the setting is the default; an effort the model lacks is not sent', () => {
    const thinker = byId('testvendor/thinker');
    assert.deepEqual(reasoningField('xhigh', 'medium', thinker), { effort: 'xhigh' });
    assert.equal(reasoningField(undefined, 'medium', thinker), undefined, 'medium is not listed');
    assert.deepEqual(reasoningField(undefined, 'high', thinker), { effort: 'high' });
    assert.deepEqual(reasoningField('bogus', 'low', thinker), { effort: 'low' });
    assert.equal(reasoningField(undefined, 'default', thinker), undefined);
    assert.deepEqual(reasoningField(undefined, 'none', undefined), { enabled: false });
    const classic = byId('openai/gpt-4o-mini');
    assert.equal(reasoningField('xhigh', 'minimal', classic), undefined, 'not among low/medium/high');
    assert.deepEqual(reasoningField('medium', 'minimal', classic), { effort: 'medium' });
  });

  it('builds the provider object from every routing choice', () => {
    const routing = parseRouting({
      sort: 'throughput',
      allowFallbacks: false,
      denyDataCollection: true,
      zdr: true,
      only: 'Alpha Cloud, Beta Inference',
      ignore: ['Gamma AI'],
      maxPrice: { prompt: 1.5, completion: 4 },
    });
    assert.deepEqual(providerField(routing, true), {
      sort: 'throughput',
      allow_fallbacks: false,
      data_collection: 'deny',
      zdr: true,
      only: ['Alpha Cloud', 'Beta Inference'],
      ignore: ['Gamma AI'],
      max_price: { prompt: 1.5, completion: 4 },
      require_parameters: true,
    });
    assert.equal(providerField(DEFAULT_ROUTING, true), undefined, 'defaults send nothing');
    assert.deepEqual(providerField(parseRouting({ sort: 'price' }), false), { sort: 'price' });
  });

  it('tools: the web server tool for a tool-calling model, else the web plugin; PDF and compression plugins', () => {
    const all = { webSearch: true, pdf: true, compress: true };
    assert.deepEqual(toolFields(all, byId('openai/gpt-4o-mini')), {
      plugins: [{ id: 'file-parser', pdf: { engine: PDF_ENGINE } }, { id: 'context-compression' }],
      serverTools: [{ type: 'openrouter:web_search' }],
    });
    assert.deepEqual(
      toolFields({ webSearch: true, pdf: false, compress: false }, byId('testvendor/text-only')),
      {
        plugins: [{ id: 'web' }],
        serverTools: [],
      },
    );
  });

  it(`parsers of stored and posted choices never throw and keep their bounds (property, ${RUNS} cases)`, () => {
    const routingLike = fc.record(
      {
        sort: fc.oneof(fc.constantFrom('price', 'throughput', 'latency', 'fastest'), fc.jsonValue()),
        allowFallbacks: fc.jsonValue(),
        denyDataCollection: fc.jsonValue(),
        zdr: fc.jsonValue(),
        only: fc.oneof(fc.array(fc.oneof(fc.string(), fc.jsonValue())), fc.string(), fc.jsonValue()),
        ignore: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
        maxPrice: fc.oneof(
          fc.record(
            { prompt: fc.oneof(fc.double(), fc.jsonValue()), completion: fc.double() },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(fc.string(), fc.record({ effort: fc.jsonValue(), routing: routingLike })),
        ),
        routingLike,
        (stored, posted) => {
          for (const choices of Object.values(parseChoicesByModel(stored))) {
            if (choices.effort !== undefined) assert.match(choices.effort, /^[a-z][a-z0-9_-]*$/);
          }
          parseToolsByChat(stored);
          parseChatTools(posted);
          const routing = parseRouting(posted);
          for (const name of [...routing.only, ...routing.ignore]) {
            assert.ok(name.length > 0 && name.length <= 100 && !/[\n\r\t]/.test(name));
          }
          const provider = providerField(routing, false);
          if (provider) {
            assert.ok(Object.keys(provider).length > 0);
            const max = provider.max_price as Record<string, number> | undefined;
            for (const v of Object.values(max ?? {})) assert.ok(Number.isFinite(v) && v >= 0);
          }
          // What is stored reads back the same.
          assert.deepEqual(parseRouting(JSON.parse(JSON.stringify(routing))), routing);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('endpoints codec (GET /v1/models/{id}/endpoints)', () => {
  it('reads the OpenRouter shape', () => {
    const endpoints = parseEndpoints(simEndpoints(DEFAULT_CATALOG[0]))!;
    assert.equal(endpoints.length, 3);
    assert.deepEqual(endpoints[0], {
      providerName: 'Alpha Cloud',
      tag: 'alpha/fp16',
      contextLength: 128_000,
      quantization: 'fp16',
      pricing: { prompt: 0.15 / 1e6, completion: 0.6 / 1e6 },
      supportedParameters: DEFAULT_CATALOG[0].supported_parameters,
      status: 0,
      uptimeLast30m: 99.5,
    });
    assert.deepEqual(providerNames(endpoints), ['Alpha Cloud', 'Beta Inference', 'Gamma AI']);
    assert.equal(parseEndpoints({ data: 'x' }), undefined);
    assert.equal(parseEndpoints(null), undefined);
  });

  it(`never throws on arbitrary JSON and keeps only named endpoints (property, ${RUNS} cases)`, () => {
    const endpointLike = fc.record(
      {
        provider_name: fc.oneof(fc.constantFrom('A', ' B\n', ''), fc.string(), fc.jsonValue()),
        tag: fc.jsonValue(),
        context_length: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
        quantization: fc.oneof(fc.string(), fc.jsonValue()),
        pricing: fc.oneof(
          fc.record({ prompt: fc.oneof(fc.string(), fc.double()), completion: fc.string() }),
          fc.jsonValue(),
        ),
        supported_parameters: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
        status: fc.oneof(fc.integer(), fc.jsonValue()),
        uptime_last_30m: fc.oneof(fc.double(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ data: fc.record({ endpoints: fc.array(endpointLike) }) })),
        (value) => {
          const endpoints = parseEndpoints(value);
          for (const e of endpoints ?? []) {
            assert.ok(e.providerName.length > 0 && e.providerName.length <= 100);
            assert.ok(!/[\n\r]/.test(e.providerName));
            if (e.contextLength !== undefined) assert.ok(Number.isSafeInteger(e.contextLength));
            if (e.uptimeLast30m !== undefined) assert.ok(e.uptimeLast30m >= 0 && e.uptimeLast30m <= 100);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
