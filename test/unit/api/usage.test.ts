/**
 * The whole `usage` object and the generation record (`GET /v1/generation?id=`), read by type:
 * fixed examples of OpenRouter's shapes, property tests over arbitrary JSON, and the client against
 * the simulator's OpenRouter-quirks mode.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseGeneration, parseUsage } from '../../../src/api/chatChunks';
import { GatewayError } from '../../../src/api/errors';
import { MAX_USD } from '../../../src/api/fields';
import { MAX_TOKEN_COUNT } from '../../../src/api/types';
import { ProblemReporter } from '../../../src/api/problems';
import { redactError } from '../../../src/api/redact';
import { creditsPageUrl } from '../../../src/core/catalog/creditsCodec';
import type { GatewayDataProblem } from '../../../src/api/types';
import { collect, makeClient, userRequest, withSimulator } from './helpers';

const isCount = (value: unknown): boolean =>
  value === undefined ||
  (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TOKEN_COUNT);
const isUsd = (value: unknown, negative = false): boolean =>
  value === undefined ||
  (typeof value === 'number' &&
    Number.isFinite(value) &&
    Math.abs(value) <= MAX_USD &&
    (negative || value >= 0));

const hostile = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom('__proto__', '', 'NaN', '1e400', '-1', '0.5', ' 0.25 '),
  fc.constantFrom(-1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0, 2e9),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, hostile, fc.constant(undefined));

describe('usage: the whole object by type', () => {
  it('reads cost, cost details, cached, cache-write and reasoning tokens (OpenRouter last chunk)', () => {
    const usage = parseUsage({
      prompt_tokens: 1200,
      completion_tokens: 80,
      total_tokens: 1280,
      cost: 0.00042,
      is_byok: false,
      cost_details: { upstream_inference_cost: 0.0004 },
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 150, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
    assert.deepEqual(usage, {
      prompt_tokens: 1200,
      completion_tokens: 80,
      total_tokens: 1280,
      cost: 0.00042,
      cost_details: { upstream_inference_cost: 0.0004 },
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 150 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  });

  it('leaves out wrong-typed fields and says which, never the value', () => {
    const problems: GatewayDataProblem[] = [];
    const usage = parseUsage(
      {
        cost: '0.5',
        cost_details: { upstream_inference_cost: 'lots' },
        prompt_tokens_details: { cached_tokens: -3, cache_write_tokens: 1.5 },
        completion_tokens_details: 'many',
      },
      new ProblemReporter((p) => problems.push(p)),
    );
    assert.deepEqual(usage, { cost: 0.5 });
    const paths = problems.map((p) => p.path).sort();
    assert.deepEqual(paths, [
      'chat.usage.completion_tokens_details',
      'chat.usage.cost_details.upstream_inference_cost',
      'chat.usage.prompt_tokens_details.cache_write_tokens',
      'chat.usage.prompt_tokens_details.cached_tokens',
    ]);
  });

  it('refuses a token count beyond any real one', () => {
    assert.equal(parseUsage({ prompt_tokens_details: { cached_tokens: 1e300 } }), undefined);
    assert.deepEqual(parseUsage({ prompt_tokens: MAX_TOKEN_COUNT, completion_tokens: MAX_TOKEN_COUNT + 1 }), {
      prompt_tokens: MAX_TOKEN_COUNT,
    });
  });

  it('refuses a cost beyond any real one', () => {
    assert.equal(parseUsage({ cost: 2e9 }), undefined);
    // Found by the property below: a huge cost beside a valid count keeps only the count.
    assert.deepEqual(parseUsage({ cost: 2_000_000_000, completion_tokens: 3 }), { completion_tokens: 3 });
    assert.ok(Object.is(parseUsage({ cost: -0, prompt_tokens: 1 })?.cost, 0));
  });

  it('takes an all-zero usage as not reported, not as a free reply', () => {
    assert.equal(parseUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }), undefined);
    assert.equal(parseUsage({ cost: 0 }), undefined);
    assert.equal(parseUsage({ completion_tokens_details: { reasoning_tokens: 0 } }), undefined);
    assert.deepEqual(parseUsage({ prompt_tokens: 0, completion_tokens: 2 }), {
      prompt_tokens: 0,
      completion_tokens: 2,
    });
  });

  it('never throws, and every field it keeps has its promised type (property)', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            prompt_tokens: maybe(fc.nat()),
            completion_tokens: maybe(fc.nat()),
            total_tokens: maybe(fc.nat()),
            cost: maybe(fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.constant('0.0012'))),
            cost_details: maybe(
              fc.record({ upstream_inference_cost: maybe(fc.double()) }, { requiredKeys: [] }),
            ),
            prompt_tokens_details: maybe(
              fc.record(
                { cached_tokens: maybe(fc.nat()), cache_write_tokens: maybe(fc.nat()) },
                { requiredKeys: [] },
              ),
            ),
            completion_tokens_details: maybe(fc.record({ reasoning_tokens: maybe(fc.nat()) })),
          },
          { requiredKeys: [] },
        ),
        (raw) => {
          const usage = parseUsage(raw);
          if (!usage) return;
          for (const value of [
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens,
            usage.prompt_tokens_details?.cached_tokens,
            usage.prompt_tokens_details?.cache_write_tokens,
            usage.completion_tokens_details?.reasoning_tokens,
          ])
            assert.ok(isCount(value), `count ${String(value)}`);
          assert.ok(isUsd(usage.cost));
          assert.ok(isUsd(usage.cost_details?.upstream_inference_cost));
          // What was a valid count or cost in the input is kept as it was.
          if (typeof raw.cost === 'number' && raw.cost >= 0 && raw.cost <= MAX_USD)
            assert.equal(usage.cost, raw.cost + 0);
        },
      ),
    );
  });
});

describe('generation record: GET /v1/generation?id=', () => {
  it("reads OpenRouter's record: total cost, cache discount, tokens", () => {
    assert.deepEqual(
      parseGeneration({
        data: {
          id: 'gen-1',
          total_cost: 0.0021,
          cache_discount: -0.0003,
          tokens_prompt: 900,
          tokens_completion: 40,
          native_tokens_reasoning: 12,
          native_tokens_cached: 800,
          provider_name: 'Anthropic',
        },
      }),
      {
        totalCost: 0.0021,
        cacheDiscount: -0.0003,
        promptTokens: 900,
        completionTokens: 40,
        reasoningTokens: 12,
        cachedTokens: 800,
      },
    );
  });

  it('is undefined for a record with nothing usable, and for what is not a record', () => {
    assert.equal(parseGeneration({ data: { total_cost: 'free', tokens_prompt: -1 } }), undefined);
    assert.equal(parseGeneration('Not Found'), undefined);
    assert.equal(parseGeneration(null), undefined);
  });

  it('never throws, and keeps only typed figures (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostile,
          fc.record(
            {
              data: fc.oneof(
                hostile,
                fc.record(
                  {
                    total_cost: maybe(fc.double({ min: 0, max: 3, noNaN: true })),
                    cache_discount: maybe(fc.double({ min: -1, max: 1, noNaN: true })),
                    tokens_prompt: maybe(fc.nat()),
                    tokens_completion: maybe(fc.nat()),
                    native_tokens_reasoning: maybe(fc.nat()),
                    native_tokens_cached: maybe(fc.nat()),
                  },
                  { requiredKeys: [] },
                ),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
        (body) => {
          const generation = parseGeneration(body);
          if (!generation) return;
          assert.ok(isUsd(generation.totalCost));
          assert.ok(isUsd(generation.cacheDiscount, true));
          for (const value of [
            generation.promptTokens,
            generation.completionTokens,
            generation.reasoningTokens,
            generation.cachedTokens,
          ])
            assert.ok(isCount(value));
        },
      ),
    );
  });
});

describe('client: usage and generation records in the OpenRouter-quirks mode', () => {
  const holder = withSimulator({ openRouterQuirks: { generation404s: 1 } });

  it('takes the reply id from X-Generation-Id and the whole usage from the last chunk', async () => {
    const { client } = makeClient(holder.sim);
    const { deltas, completion, error } = await collect(client.streamChat(userRequest('Hello')));
    assert.equal(error, undefined);
    const first = deltas[0];
    assert.equal(first.type, 'meta');
    assert.match(first.type === 'meta' ? (first.id ?? '') : '', /^gen-sim-\d+$/);
    const record = holder.sim.quirks.generations.get(completion.id ?? '');
    assert.ok(record, 'the simulator kept the reply under the id the client saw');
    assert.equal(completion.usage?.cost, record.usage.cost);
    assert.equal(
      completion.usage?.cost_details?.upstream_inference_cost,
      (record.usage.cost_details as { upstream_inference_cost: number }).upstream_inference_cost,
    );
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 0);
    assert.ok((completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
  });

  it('reads a generation record, after the 404 the gateway answers while it is not ready', async () => {
    const { client } = makeClient(holder.sim);
    const { completion } = await collect(client.streamChat(userRequest('Hello #sim:no-usage')));
    assert.equal(completion.usage, undefined, 'the stream carried no usage');
    const id = completion.id ?? '';
    await assert.rejects(
      client.getGeneration(id),
      (error: unknown) => GatewayError.is(error) && error.status === 404,
    );
    const generation = await client.getGeneration(id);
    assert.equal(generation?.totalCost, holder.sim.quirks.generations.get(id)?.usage.cost);
    assert.ok((generation?.promptTokens ?? 0) > 0);
  });
});

describe('402: what ran out, and a retry while the credit is only held in flight', () => {
  const holder = withSimulator({ openRouterQuirks: {} });

  it('retries a 402 whose metadata says the balance is held in flight, after a real pause', async () => {
    const { client, timing } = makeClient(holder.sim);
    const { error, completion } = await collect(client.streamChat(userRequest('Hi #sim:402-inflight:2')));
    assert.equal(error, undefined);
    assert.match(completion.content, /Hi/);
    assert.equal(timing.sleeps.length, 2);
    assert.ok(
      timing.sleeps.every((ms) => ms >= 250),
      timing.sleeps.join(),
    );
  });

  it('gives up after two retries, saying the credit is held by running requests', async () => {
    const { client, timing } = makeClient(holder.sim);
    const { error } = await collect(client.streamChat(userRequest('Hi #sim:402-inflight:9')));
    assert.equal(error?.status, 402);
    assert.match(error?.message ?? '', /held by requests still running/);
    assert.equal(timing.sleeps.length, 2);
  });

  it('never retries a 402 for credit that ran out, and says how to add more', async () => {
    const { client, timing } = makeClient(holder.sim);
    const { error } = await collect(client.streamChat(userRequest('Hi #sim:status:402')));
    assert.equal(error?.status, 402);
    assert.equal(error?.creditHeldInFlight, undefined);
    assert.match(error?.message ?? '', /insufficient credits.*Add credits on the gateway's website/);
    assert.equal(timing.sleeps.length, 0);
  });

  it('links only to a credits page we know, built by us', () => {
    assert.equal(creditsPageUrl('https://openrouter.ai/api'), 'https://openrouter.ai/settings/credits');
    assert.equal(creditsPageUrl('https://eu.openrouter.ai/api/v1'), 'https://openrouter.ai/settings/credits');
    for (const other of ['https://openrouter.ai.evil.example/api', 'http://127.0.0.1:9/api', 'not a url'])
      assert.equal(creditsPageUrl(other), undefined, other);
  });
});

describe('402 in flight: the mark survives redaction', () => {
  it('keeps creditHeldInFlight when the key is scrubbed from the message', () => {
    const error = new GatewayError({
      kind: 'http',
      status: 402,
      message: 'held in flight for sk-secret-key',
      creditHeldInFlight: true,
    });
    const redacted = redactError(error, ['sk-secret-key']);
    assert.notEqual(redacted, error);
    assert.doesNotMatch(redacted.message, /sk-secret-key/);
    assert.equal(redacted.creditHeldInFlight, true);
  });
});
