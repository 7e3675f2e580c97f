import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { dayKey } from '../../../../src/core/cost/costLedger';
import { SpendHolds } from '../../../../src/core/cost/spendHolds';
import { estimateMediaCost } from '../../../../src/core/mediaStudio/mediaPrice';

const noon = new Date(2026, 11, 7, 12).getTime();
const today = dayKey(noon);
const tomorrow = dayKey(noon + 86_400_000);

describe('SpendHolds: estimates held for paid calls until their cost is known', () => {
  it('holds an estimate while open; a reported cost lets it go (the ledger has the real figure)', () => {
    const holds = new SpendHolds();
    const hold = holds.hold(0.2, noon);
    assert.equal(holds.total(today), 0.2);
    assert.equal(hold.counted, 0.2);
    hold.settle({ kind: 'reported', cost: 0.15 });
    assert.equal(holds.total(today), 0);
    assert.equal(hold.counted, 0.15);
    assert.deepEqual(hold.end, { kind: 'reported', cost: 0.15 });
  });

  it('keeps the estimate for the day when no cost is reported; lets it go when nothing was sent', () => {
    const holds = new SpendHolds();
    const unreported = holds.hold(0.2, noon);
    const refused = holds.hold(0.3, noon);
    unreported.settle({ kind: 'unreported' });
    refused.settle({ kind: 'notSent' });
    assert.equal(holds.total(today), 0.2);
    assert.equal(unreported.counted, 0.2);
    assert.equal(refused.counted, 0);
    assert.equal(holds.total(tomorrow), 0, 'a kept estimate belongs to its own day');
    assert.equal(holds.openCount, 0);
  });

  it('takes only the first end, and holds a figure that is not a cost as 0', () => {
    const holds = new SpendHolds();
    const hold = holds.hold(0.2, noon);
    hold.settle({ kind: 'unreported' });
    hold.settle({ kind: 'reported', cost: 0.01 });
    hold.settle({ kind: 'notSent' });
    assert.equal(hold.counted, 0.2);
    assert.equal(holds.total(today), 0.2);
    for (const odd of [undefined, NaN, -1, Infinity, 1e9]) assert.equal(holds.hold(odd, noon).amount, 0);
    const negative = holds.hold(0.1, noon);
    negative.settle({ kind: 'reported', cost: -5 });
    assert.equal(negative.counted, 0.1, 'a figure that is not a cost leaves the estimate standing');
  });

  it('a job reported at $0 beside a priced estimate still counts its estimate, on the turn and the day', () => {
    const holds = new SpendHolds();
    const hold = holds.hold(2, noon);
    hold.settle({ kind: 'reported', cost: 0 });
    assert.equal(hold.counted, 2);
    assert.equal(holds.total(today), 2);
    const free = holds.hold(0, noon);
    free.settle({ kind: 'reported', cost: 0 });
    assert.equal(free.counted, 0, 'a model priced at nothing that reports nothing is free');
  });

  it('the total is always what is open plus what was kept (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            amount: fc.double({ min: 0, max: 100, noNaN: true }),
            end: fc.constantFrom('open', 'reported', 'unreported', 'notSent'),
          }),
          { maxLength: 30 },
        ),
        (list) => {
          const holds = new SpendHolds();
          let expected = 0;
          for (const { amount, end } of list) {
            const hold = holds.hold(amount, noon);
            if (end === 'open' || end === 'unreported') expected += hold.amount;
            if (end === 'reported') hold.settle({ kind: 'reported', cost: 1 });
            else if (end === 'unreported' || end === 'notSent') hold.settle({ kind: end });
          }
          assert.ok(Math.abs(holds.total(today) - expected) < 1e-6);
        },
      ),
    );
  });
});

describe('estimateMediaCost: what a media request costs by its catalog price', () => {
  it('prices per image and per request, times the pictures asked for', () => {
    assert.equal(estimateMediaCost('$0.2 per image', {}).estimate, 0.2);
    assert.equal(estimateMediaCost('$0.04 per image', { n: 3 }).estimate, 0.12);
    assert.equal(estimateMediaCost('$0.5 per request', { n: '2' }).estimate, 1);
    assert.match(estimateMediaCost('$0.04 per image', { n: 3 }).basis, /\$0\.1200 .*\$0\.04 per image × 3/);
  });

  it('a "from" price is held as at least that much; per second, times the duration', () => {
    const from = estimateMediaCost('from $0.5', { duration: 8 });
    assert.equal(from.estimate, 0.5);
    assert.match(from.basis, /^at least \$0\.5000/);
    assert.equal(estimateMediaCost('$0.1 per second', { duration: 8 }).estimate, 0.8);
  });

  it('a count asked for that cannot be counted makes the price unknown; every count and length key is read', () => {
    for (const parameters of [{ n: 20_000 }, { n: '1e3' }, { n: [5] }, { num_images: -1 }])
      assert.equal(
        estimateMediaCost('$0.04 per image', parameters).estimate,
        undefined,
        JSON.stringify(parameters),
      );
    assert.equal(estimateMediaCost('$0.04 per image', { n: 1, num_images: 4 }).estimate, 0.16);
    assert.equal(estimateMediaCost('$0.5 per second', { duration: 4, seconds: 20 }).estimate, 10);
  });

  it('no price, an odd one or a unit it cannot count is unknown, never free', () => {
    for (const [price, parameters] of [
      [undefined, {}],
      ['free!', {}],
      ['$0.1 per second', {}],
      ['$0.1 per token', {}],
      ['$-1 per image', {}],
    ] as const) {
      const estimate = estimateMediaCost(price, parameters);
      assert.equal(estimate.estimate, undefined, String(price));
      assert.ok(estimate.basis.length > 0);
    }
  });

  it('never throws, and any estimate is a finite non-negative figure (property)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string({ maxLength: 80 })),
        fc.dictionary(fc.string(), fc.anything()),
        (price, parameters) => {
          const { estimate } = estimateMediaCost(price ?? undefined, parameters);
          assert.ok(estimate === undefined || (Number.isFinite(estimate) && estimate >= 0));
        },
      ),
    );
  });
});
