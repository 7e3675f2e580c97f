import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { GatewayError } from '../../../../src/api/errors';
import { MAX_USD } from '../../../../src/api/types';
import type { Generation } from '../../../../src/api/types';
import {
  GENERATION_DELAYS_MS,
  GENERATION_FLOOR_MS,
  generationDelayMs,
  GenerationLookup,
} from '../../../../src/core/cost/generationLookup';
import {
  cacheSavings,
  chatTotals,
  estimateCost,
  toTurnUsage,
  withEstimate,
  withGeneration,
  withSavings,
} from '../../../../src/core/cost/replyCost';
import { describeCost } from '../../../../src/core/util/text';

const notFound = (): GatewayError => new GatewayError({ kind: 'http', status: 404, message: 'Not found' });

function lookupWith(answers: Array<Generation | GatewayError | undefined>) {
  const sleeps: number[] = [];
  const asked: string[] = [];
  const logs: string[] = [];
  const lookup = new GenerationLookup(
    { random: () => 0.5, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) },
    (line) => logs.push(line),
  );
  const fetch = (id: string): Promise<Generation | undefined> => {
    asked.push(id);
    const answer = answers.shift();
    return answer instanceof GatewayError ? Promise.reject(answer) : Promise.resolve(answer);
  };
  return { lookup, fetch, sleeps, asked, logs };
}

describe('generation lookup: the cost of a reply that carried none', () => {
  it('asks again after the 404s of a record not ready yet, pausing at least 250 ms each time', async () => {
    const { lookup, fetch, sleeps, asked } = lookupWith([notFound(), notFound(), { totalCost: 0.002 }]);
    assert.deepEqual(await lookup.lookup('gw', 'gen-1', fetch), { totalCost: 0.002 });
    assert.deepEqual(asked, ['gen-1', 'gen-1', 'gen-1']);
    assert.equal(sleeps.length, 3);
    assert.ok(
      sleeps.every((ms) => ms >= GENERATION_FLOOR_MS),
      sleeps.join(),
    );
    assert.ok(sleeps[2] > sleeps[0], 'the pauses grow');
  });

  it('takes a gateway that never answers for one without the endpoint, and stops asking it', async () => {
    const { lookup, fetch, asked, logs } = lookupWith(GENERATION_DELAYS_MS.map(notFound));
    assert.equal(await lookup.lookup('gw', 'gen-1', fetch), undefined);
    assert.equal(asked.length, GENERATION_DELAYS_MS.length);
    assert.ok(lookup.isUnsupported('gw'));
    assert.equal(await lookup.lookup('gw', 'gen-2', fetch), undefined);
    assert.equal(asked.length, GENERATION_DELAYS_MS.length, 'not asked again');
    assert.match(logs.join('\n'), /no generation records/);
    assert.equal(lookup.isUnsupported('other'), false, 'another gateway is still asked');
  });

  it('a gateway that answered once keeps being asked after a record that never came', async () => {
    const { lookup, fetch } = lookupWith([
      { totalCost: 1 },
      ...GENERATION_DELAYS_MS.map(notFound),
      { totalCost: 2 },
    ]);
    assert.deepEqual(await lookup.lookup('gw', 'a', fetch), { totalCost: 1 });
    assert.equal(await lookup.lookup('gw', 'b', fetch), undefined);
    assert.deepEqual(await lookup.lookup('gw', 'c', fetch), { totalCost: 2 });
  });

  it('gives up at once on another failure, without calling the endpoint missing', async () => {
    const failure = new GatewayError({ kind: 'http', status: 500, message: 'down' });
    const { lookup, fetch, asked } = lookupWith([failure]);
    assert.equal(await lookup.lookup('gw', 'x', fetch), undefined);
    assert.equal(asked.length, 1);
    assert.equal(lookup.isUnsupported('gw'), false);
  });

  it('every pause is at least the floor, whatever the dice (property)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const ms = generationDelayMs(attempt, () => r);
          assert.ok(ms >= GENERATION_FLOOR_MS && ms <= 2100, String(ms));
        },
      ),
    );
  });
});

describe('reply cost: usage for the footer, savings from the catalog prices', () => {
  const pricing = { prompt: 3e-6, completion: 15e-6, cacheRead: 0.3e-6, cacheWrite: 3.75e-6 };

  it('turns usage into the footer figures', () => {
    assert.deepEqual(
      toTurnUsage({
        prompt_tokens: 100,
        cost: 0.01,
        prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 5 },
        completion_tokens_details: { reasoning_tokens: 7 },
      }),
      { promptTokens: 100, cost: 0.01, cachedTokens: 80, cacheWriteTokens: 5, reasoningTokens: 7 },
    );
  });

  it('prices what the cache saved, and what writing it cost', () => {
    assert.ok(Math.abs(cacheSavings({ cachedTokens: 1000 }, pricing)! - 1000 * 2.7e-6) < 1e-12);
    assert.ok(Math.abs(cacheSavings({ cacheWriteTokens: 1000 }, pricing)! + 1000 * 0.75e-6) < 1e-12);
    assert.equal(cacheSavings({ cachedTokens: 0 }, pricing), undefined);
    assert.equal(cacheSavings({ cachedTokens: 10 }, { prompt: 1e-6, completion: 1e-6 }), undefined);
    assert.equal(cacheSavings({ cachedTokens: 10 }, undefined), undefined);
  });

  it('never prices a saving past MAX_USD, whatever the counts and prices', () => {
    assert.equal(cacheSavings({ cachedTokens: 1e300 }, pricing), MAX_USD);
    assert.equal(cacheSavings({ cacheWriteTokens: 1e300 }, pricing), -MAX_USD);
    fc.assert(
      fc.property(
        fc.record({ cachedTokens: fc.double({ min: 0 }), cacheWriteTokens: fc.double({ min: 0 }) }),
        fc.record({
          prompt: fc.double({ min: 0 }),
          completion: fc.double({ min: 0 }),
          cacheRead: fc.double({ min: 0 }),
          cacheWrite: fc.double({ min: 0 }),
        }),
        (usage, prices) => {
          const saved = cacheSavings(usage, prices);
          assert.ok(saved === undefined || (Number.isFinite(saved) && Math.abs(saved) <= MAX_USD));
        },
      ),
    );
  });

  it("fills what the stream left out from the generation record; the gateway's discount wins", () => {
    const usage = withSavings(
      withGeneration(
        { promptTokens: 10 },
        { totalCost: 0.5, promptTokens: 99, cachedTokens: 8, cacheDiscount: 0.1 },
      ),
      pricing,
    );
    assert.deepEqual(usage, { promptTokens: 10, cost: 0.5, cachedTokens: 8, cacheSavings: 0.1 });
    assert.deepEqual(chatTotals([usage, undefined, { cost: 0.25 }]), { cost: 0.75, saved: 0.1 });
    assert.deepEqual(chatTotals([undefined]), {});
  });

  it('estimates a cost the gateway did not report from tokens × the catalog price, and says so', () => {
    const pricing = { prompt: 0.000001, completion: 0.000002 };
    assert.equal(estimateCost({ promptTokens: 1000, completionTokens: 500 }, pricing), 0.002);
    assert.equal(estimateCost({ completionTokens: 500 }, pricing), 0.001);
    // No price, or no tokens: unknown, not 0.
    assert.equal(estimateCost({ promptTokens: 1000 }, undefined), undefined);
    assert.equal(estimateCost({}, pricing), undefined);
    // A free model's price is a real 0.
    assert.equal(estimateCost({ promptTokens: 10 }, { prompt: 0, completion: 0 }), 0);
    // A reported cost wins, a real 0 included; an old estimate goes when the cost comes.
    assert.deepEqual(withEstimate({ promptTokens: 1000, cost: 0 }, pricing), { promptTokens: 1000, cost: 0 });
    assert.deepEqual(withEstimate({ promptTokens: 1000, cost: 0.5, estimatedCost: 0.001 }, pricing), {
      promptTokens: 1000,
      cost: 0.5,
    });
    assert.deepEqual(withEstimate({ promptTokens: 1000 }, pricing), {
      promptTokens: 1000,
      estimatedCost: 0.001,
    });
    assert.deepEqual(withEstimate({ promptTokens: 1000 }, undefined), { promptTokens: 1000 });
    // The chat's total counts estimates and says so; replies with neither are said apart.
    assert.deepEqual(chatTotals([{ cost: 0.5 }, { promptTokens: 1, estimatedCost: 0.25 }]), {
      cost: 0.75,
      estimated: true,
    });
    assert.deepEqual(chatTotals([{ promptTokens: 1 }]), { unreported: true });
    assert.deepEqual(chatTotals([{ cost: 0 }, { completionTokens: 3 }]), { cost: 0, unreported: true });
  });

  it('shows a cost that was not reported as such, never as $0', () => {
    assert.equal(describeCost({ cost: 0 }), '$0');
    assert.equal(describeCost({ cost: 0.04 }), '$0.0400');
    assert.equal(describeCost({ estimatedCost: 0.04 }), '~$0.0400 (estimated)');
    assert.equal(describeCost({}), 'cost not reported');
  });

  it(`estimates never throw and stay within bounds (property)`, () => {
    const count = fc.option(fc.oneof(fc.nat(), fc.double()), { nil: undefined });
    const price = fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(0));
    fc.assert(
      fc.property(
        count,
        count,
        fc.option(fc.record({ prompt: price, completion: price }), { nil: undefined }),
        (p, c, pricing) => {
          const estimate = estimateCost({ promptTokens: p, completionTokens: c }, pricing);
          if (estimate !== undefined)
            assert.ok(Number.isFinite(estimate) && estimate >= 0 && estimate <= MAX_USD);
        },
      ),
      { numRuns: 500 },
    );
  });
});
