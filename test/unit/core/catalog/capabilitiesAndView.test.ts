import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCatalog, undescribedModel } from '../../../../src/core/catalog/catalogCodec';
import { acceptsImages, capabilitiesOf, gateRequest } from '../../../../src/core/catalog/capabilities';
import {
  formatContext,
  mediaModels,
  perMillion,
  pickerEntries,
  typedModelEntry,
} from '../../../../src/core/catalog/catalogView';
import { describeCredits, parseCredits } from '../../../../src/core/catalog/creditsCodec';
import { DEFAULT_CATALOG } from '../../../simulator/catalog';

const models = parseCatalog({ data: DEFAULT_CATALOG })!;
const byId = (id: string) => models.find((m) => m.id === id)!;
const FUZZ_RUNS = 3000;

describe('model capabilities and request gating', () => {
  const full = {
    model: 'x/y',
    messages: [],
    reasoning: { effort: 'high' },
    tools: [{}],
    response_format: { type: 'json_object' },
  };

  it('keeps reasoning, tools and response_format for a model that lists them', () => {
    const { request, dropped } = gateRequest(full, capabilitiesOf(byId('openai/gpt-4o-mini')), false);
    assert.deepEqual(dropped, []);
    assert.deepEqual(request, full);
  });

  it('leaves them out for a model that does not, unless forced', () => {
    const caps = capabilitiesOf(byId('testvendor/text-only'));
    const { request, dropped } = gateRequest(full, caps, false);
    assert.deepEqual(dropped.sort(), ['reasoning', 'response_format', 'tools']);
    assert.equal(request.reasoning, undefined);
    assert.equal(request.tools, undefined);
    assert.deepEqual(gateRequest(full, caps, true).request, full);
  });

  it('holds nothing back for a model the catalog does not describe', () => {
    assert.deepEqual(gateRequest(full, capabilitiesOf(undescribedModel('a/b')), false).dropped, []);
    assert.deepEqual(gateRequest(full, capabilitiesOf(undefined), false).dropped, []);
  });

  it('offers images by the catalog, with the override', () => {
    assert.equal(acceptsImages(capabilitiesOf(byId('openai/gpt-4o-mini')), 'auto'), true);
    assert.equal(acceptsImages(capabilitiesOf(byId('testvendor/text-only')), 'auto'), false);
    assert.equal(acceptsImages(capabilitiesOf(byId('testvendor/text-only')), 'always'), true);
    assert.equal(acceptsImages(capabilitiesOf(undescribedModel('a/b')), 'auto'), true);
    assert.equal(acceptsImages(capabilitiesOf(byId('openai/gpt-4o-mini')), 'never'), false);
  });
});

describe('picker entries', () => {
  it('show name, id, $ per million in and out, context and capabilities', () => {
    const [entry] = pickerEntries([byId('openai/gpt-4o-mini')], { current: '', favourites: [], recent: [] });
    assert.equal(entry.label, 'OpenAI: GPT-4o-mini');
    assert.equal(entry.description, 'openai/gpt-4o-mini · $0.15/M in · $0.60/M out');
    assert.match(entry.detail, /128K context/);
    assert.match(entry.detail, /\$\(eye\) vision/);
    assert.match(entry.detail, /\$\(tools\) tools/);
    assert.match(entry.detail, /\$\(lightbulb\) reasoning/);
    assert.match(
      pickerEntries([byId('openai/gpt-image-1')], { current: '', favourites: [], recent: [] })[0].detail,
      /image output/,
    );
  });

  it('put favourites, then the current and recent models first, each model once', () => {
    const entries = pickerEntries(models, {
      current: 'openai/tts-1',
      favourites: ['google/veo-3', 'not/in-catalog'],
      recent: ['anthropic/claude-sonnet-4', 'google/veo-3'],
    });
    assert.deepEqual(
      entries.slice(0, 3).map((e) => [e.id, e.group]),
      [
        ['google/veo-3', 'favourites'],
        ['openai/tts-1', 'recent'],
        ['anthropic/claude-sonnet-4', 'recent'],
      ],
    );
    assert.equal(entries.length, models.length);
    assert.equal(new Set(entries.map((e) => e.id)).size, models.length);
  });

  it(`make the catalog's text inert (property, ${FUZZ_RUNS} cases)`, () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, tail) => {
        const parsed = parseCatalog([{ id: `v/${tail.replace(/\s/g, '') || 'x'}`, name }]);
        for (const entry of pickerEntries(parsed ?? [], { current: '', favourites: [], recent: [] })) {
          assert.doesNotMatch(entry.label, /\$\(/);
          assert.doesNotMatch(entry.description, /\$\(/);
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('offer any typed model id, with or without a vendor, and say why text is not one', () => {
    const listed = ['openai/gpt-4o-mini', 'gpt-4o'];
    for (const id of ['gpt-image-1', 'llama3.2:3b', 'my-team/claude', 'model@2024.05'])
      assert.deepEqual(typedModelEntry(`  ${id} `, listed), { id, label: id, description: 'use this model' });
    // A listed id has its own row; nothing typed adds nothing.
    assert.equal(typedModelEntry('gpt-4o', listed), undefined);
    assert.equal(typedModelEntry('   ', listed), undefined);
    for (const text of ['two words', 'gpt\u202e4o', 'x'.repeat(300)]) {
      const row = typedModelEntry(text, listed);
      assert.equal(row?.id, undefined);
      assert.match(row?.description ?? '', /model id/);
      assert.ok(!/[\u202e]/.test(row?.label ?? ''));
    }
  });

  it('format prices and context lengths', () => {
    assert.equal(perMillion(0.000003), '$3.00');
    assert.equal(perMillion(0.00004), '$40.0');
    assert.equal(perMillion(0), '$0');
    assert.equal(formatContext(1_048_576), '1M context');
    assert.equal(formatContext(200_000), '200K context');
  });

  it('offer only image, video and audio models to the media picker', () => {
    assert.deepEqual(
      mediaModels(models).map((m) => m.id),
      ['openai/gpt-image-1', 'google/veo-3', 'openai/tts-1', 'testvendor/sketch', 'testvendor/motion'],
    );
  });
});

describe('credits codec', () => {
  it('reads /v1/key and /v1/credits', () => {
    const key = parseCredits({
      source: 'key',
      body: { data: { limit: 10, usage: 2.5, limit_remaining: 7.5 } },
    });
    assert.deepEqual(key, { total: 10, used: 2.5, remaining: 7.5 });
    assert.equal(describeCredits(key), '$7.50 of $10.00 credit left');
    const credits = parseCredits({
      source: 'credits',
      body: { data: { total_credits: 20, total_usage: 5 } },
    });
    assert.equal(credits?.remaining, 15);
    assert.equal(parseCredits(undefined), undefined);
    assert.equal(parseCredits({ source: 'key', body: { data: { limit: null, usage: 'x' } } }), undefined);
  });

  it(`never throws on arbitrary JSON (property, ${FUZZ_RUNS} cases)`, () => {
    fc.assert(
      fc.property(fc.constantFrom('key' as const, 'credits' as const), fc.jsonValue(), (source, body) => {
        const credits = parseCredits({ source, body });
        if (credits) assert.ok(typeof describeCredits(credits) === 'string');
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
