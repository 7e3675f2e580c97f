import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCatalog } from '../../../../src/core/catalog/catalogCodec';
import { modelEfforts, toModelInfo } from '../../../../src/core/lm/modelInfo';
import { buildLmRequest, lmOptionFields } from '../../../../src/core/lm/request';
import { DEFAULT_CATALOG } from '../../../simulator/catalog';

const RUNS = 2000;
const settings = { reasoningEffort: 'default' as const, provider: undefined, plugins: [] };

describe("VS Code's chat: the caller's modelOptions and the model's efforts", () => {
  it('passes only the sampling options it checks: never provider, plugins, fallback models or anything else', () => {
    const request = buildLmRequest({
      model: 'a/b',
      messages: [],
      settings: { ...settings, provider: { data_collection: 'deny', zdr: true }, plugins: [{ id: 'pdf' }] },
      modelOptions: {
        provider: { data_collection: 'allow' },
        plugins: [{ id: 'web' }],
        models: ['evil/model'],
        route: 'fallback',
        transforms: ['middle-out'],
        n: 8,
        usage: { include: false },
        stream_options: { include_usage: false },
        user: 'someone',
        max_completion_tokens: 1e12,
        top_k: 40,
        stop: ['END'],
        seed: 7,
        frequency_penalty: 0.5,
        presence_penalty: -0.5,
        response_format: { type: 'json_schema', json_schema: { name: 'x' } },
      },
    });
    assert.deepEqual(request, {
      model: 'a/b',
      messages: [],
      stream: true,
      provider: { data_collection: 'deny', zdr: true },
      plugins: [{ id: 'pdf' }],
      top_k: 40,
      stop: ['END'],
      seed: 7,
      frequency_penalty: 0.5,
      presence_penalty: -0.5,
    });
    assert.deepEqual(
      lmOptionFields({ max_completion_tokens: 300, response_format: { type: 'json_object' } }, {}),
      {
        max_tokens: 300,
        response_format: { type: 'json_object' },
      },
    );
    assert.deepEqual(lmOptionFields({ stop: ['a', 'b', 'c', 'd', 'e'], seed: 1.5, top_k: -1 }, {}), {});
  });

  it('reads the known options by type', () => {
    assert.deepEqual(
      lmOptionFields(
        {
          temperature: 0.5,
          topP: 0.9,
          maxTokens: 100,
          reasoningEffort: 'HIGH',
          transforms: ['middle-out'],
          model: 'evil/override',
          fn: () => 1,
        },
        undefined,
      ),
      {
        temperature: 0.5,
        top_p: 0.9,
        max_tokens: 100,
        reasoning: { effort: 'high' },
      },
    );
    // Wrong types and ranges are dropped, never sent.
    assert.deepEqual(
      lmOptionFields({ temperature: 9, max_tokens: -1, reasoning: 'lots', top_p: '1' }, {}),
      {},
    );
    // `reasoning` keeps only the fields OpenRouter takes.
    assert.deepEqual(lmOptionFields({ reasoning: { effort: 'low', max_tokens: 2000, evil: 1 } }, {}), {
      reasoning: { effort: 'low', max_tokens: 2000 },
    });
  });

  it("the picker's configuration gives the effort; the caller's options win; unlisted efforts are dropped", () => {
    const efforts = ['low', 'high'];
    assert.deepEqual(lmOptionFields(undefined, { reasoningEffort: 'high' }, efforts), {
      reasoning: { effort: 'high' },
    });
    assert.deepEqual(lmOptionFields({ reasoningEffort: 'low' }, { reasoningEffort: 'high' }, efforts), {
      reasoning: { effort: 'low' },
    });
    assert.deepEqual(
      lmOptionFields({ reasoningEffort: 'medium' }, { reasoningEffort: 'xhigh' }, efforts),
      {},
    );
    const request = buildLmRequest({
      model: 'a/b',
      messages: [],
      settings: { ...settings, reasoningEffort: 'low' },
      modelOptions: { reasoning_effort: 'medium' },
      efforts,
    });
    assert.deepEqual(request.reasoning, { effort: 'low' }, 'the setting stays when the option is not listed');
  });

  it("offers the catalog's efforts in VS Code's model picker, and nothing for a model that cannot reason", () => {
    const catalog = parseCatalog({ data: DEFAULT_CATALOG })!;
    const thinker = toModelInfo(
      'testvendor/thinker',
      catalog.find((m) => m.id === 'testvendor/thinker'),
    );
    assert.deepEqual(modelEfforts(thinker), ['minimal', 'low', 'high', 'xhigh']);
    assert.match(thinker.configurationSchema!.properties.reasoningEffort.description, /default: low/);
    const textOnly = toModelInfo(
      'testvendor/text-only',
      catalog.find((m) => m.id === 'testvendor/text-only'),
    );
    assert.equal(textOnly.configurationSchema, undefined);
    assert.deepEqual(modelEfforts(textOnly), []);
  });

  it(`never throws, never replaces the request's own fields, passes only what it checks, and keeps types (property, ${RUNS} cases)`, () => {
    const optionLike = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          temperature: fc.oneof(fc.double(), fc.jsonValue()),
          top_p: fc.oneof(fc.double(), fc.jsonValue()),
          maxTokens: fc.oneof(fc.integer(), fc.jsonValue()),
          reasoning: fc.oneof(
            fc.record({
              effort: fc.oneof(fc.constantFrom('low', 'high'), fc.jsonValue()),
              max_tokens: fc.jsonValue(),
            }),
            fc.jsonValue(),
          ),
          reasoningEffort: fc.oneof(fc.constantFrom('low', 'xhigh', 'LOW '), fc.jsonValue()),
          model: fc.jsonValue(),
          messages: fc.jsonValue(),
          stream: fc.jsonValue(),
          tools: fc.jsonValue(),
          provider: fc.jsonValue(),
          plugins: fc.jsonValue(),
          models: fc.jsonValue(),
          route: fc.jsonValue(),
          n: fc.jsonValue(),
          stop: fc.jsonValue(),
          response_format: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(
        optionLike,
        fc.jsonValue(),
        fc.array(fc.constantFrom('low', 'medium', 'high')),
        (options, config, efforts) => {
          const request = buildLmRequest({
            model: 'a/b',
            messages: [],
            settings,
            modelOptions: options as never,
            modelConfiguration: config,
            efforts,
          });
          assert.equal(request.model, 'a/b');
          assert.equal(request.stream, true);
          assert.deepEqual(request.messages, []);
          assert.equal(request.tools, undefined);
          const allowed = ['model', 'messages', 'stream', 'temperature', 'top_p', 'top_k', 'max_tokens'];
          allowed.push(
            'stop',
            'seed',
            'frequency_penalty',
            'presence_penalty',
            'response_format',
            'reasoning',
          );
          for (const key of Object.keys(request)) assert.ok(allowed.includes(key), `${key} passed through`);
          if (request.temperature !== undefined)
            assert.ok(request.temperature >= 0 && request.temperature <= 2);
          if (request.max_tokens !== undefined) assert.ok(Number.isSafeInteger(request.max_tokens));
          const effort = (request.reasoning as { effort?: unknown } | undefined)?.effort;
          if (effort !== undefined && efforts.length) assert.ok(efforts.includes(effort as never));
          JSON.stringify(request);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
