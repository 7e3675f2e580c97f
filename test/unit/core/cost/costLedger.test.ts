import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  COST_SOURCES,
  CostLedger,
  dayKey,
  KEEP_DAYS,
  MAX_RECORDED_USD,
  sumDay,
} from '../../../../src/core/cost/costLedger';
import type { CostSource } from '../../../../src/core/cost/costLedger';

const NOON = new Date(2026, 10, 25, 12, 0, 0).getTime();
const DAY = 86_400_000;

describe("cost ledger: today's cost by source, per window", () => {
  it('buckets by local day and by source, and sums every window', () => {
    const a = new CostLedger();
    const b = new CostLedger();
    assert.ok(a.record('panel', 0.25, NOON));
    assert.ok(a.record('panel', 0.5, NOON + 60_000));
    assert.ok(a.record('media', 1, NOON - DAY));
    assert.ok(b.record('vscodeChat', 0.125, NOON));
    const today = sumDay([a, b], dayKey(NOON));
    assert.deepEqual(today, { total: 0.875, bySource: { panel: 0.75, vscodeChat: 0.125 } });
    assert.deepEqual(sumDay([a, b], dayKey(NOON - DAY)), { total: 1, bySource: { media: 1 } });
    assert.equal(dayKey(new Date(2026, 0, 2, 23, 59).getTime()), '2026-01-02');
  });

  it('refuses figures that are not costs', () => {
    const ledger = new CostLedger();
    for (const cost of [0, -1, Number.NaN, Infinity, MAX_RECORDED_USD * 2])
      assert.equal(ledger.record('panel', cost, NOON), false, String(cost));
    assert.equal(ledger.record('nowhere' as CostSource, 1, NOON), false);
    assert.equal(ledger.newestDay(), undefined);
  });

  it('keeps a week, and reads back what it wrote', () => {
    const ledger = new CostLedger();
    ledger.record('completions', 0.01, NOON - (KEEP_DAYS + 1) * DAY);
    ledger.record('completions', 0.02, NOON);
    ledger.prune(NOON);
    const { ledger: back, problem } = CostLedger.decode(ledger.encode());
    assert.equal(problem, undefined);
    assert.deepEqual(sumDay([back], dayKey(NOON)).bySource, { completions: 0.02 });
    assert.equal(sumDay([back], dayKey(NOON - (KEEP_DAYS + 1) * DAY)).total, 0);
  });

  it('says what is wrong with a file that is not a ledger, without throwing', () => {
    for (const text of ['', '{', 'null', '[]', '{"version":1}', '{"version":2,"days":{}}', '"x"'])
      assert.ok(CostLedger.decode(text).problem, text);
    const odd = CostLedger.decode(
      JSON.stringify({
        version: 1,
        days: { '2026-11-25': { panel: 'lots', media: 0.5, __proto__: 1 }, yesterday: { panel: 1 } },
      }),
    );
    assert.equal(odd.problem, undefined, 'odd entries are skipped, not the whole file');
    assert.deepEqual(sumDay([odd.ledger], '2026-11-25'), { total: 0.5, bySource: { media: 0.5 } });
  });

  it('loses and invents nothing: the total is the sum of what was recorded (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            window: fc.nat({ max: 3 }),
            source: fc.constantFrom(...COST_SOURCES),
            cost: fc.double({ min: 1e-9, max: 100, noNaN: true }),
          }),
          { maxLength: 60 },
        ),
        (records) => {
          const windows = [0, 1, 2, 3].map(() => new CostLedger());
          for (const r of records) windows[r.window].record(r.source, r.cost, NOON);
          // Through the files, as other windows read them.
          const read = windows.map((w) => CostLedger.decode(w.encode()).ledger);
          const today = sumDay(read, dayKey(NOON));
          const expected = records.reduce((sum, r) => sum + r.cost, 0);
          assert.ok(
            Math.abs(today.total - expected) <= 1e-9 * Math.max(1, expected),
            `${today.total} vs ${expected}`,
          );
          const bySource = Object.values(today.bySource).reduce((sum, cost) => sum + cost, 0);
          assert.ok(Math.abs(bySource - today.total) <= 1e-9 * Math.max(1, expected));
        },
      ),
    );
  });

  it('never throws on any stored text, and keeps only costs (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc
            .record({
              version: fc.oneof(fc.constant(1), fc.jsonValue()),
              days: fc.dictionary(
                fc.oneof(fc.constantFrom('2026-11-25', '2026-11-24'), fc.string()),
                fc.oneof(
                  fc.dictionary(fc.constantFrom(...COST_SOURCES, 'other'), fc.jsonValue()),
                  fc.jsonValue(),
                ),
              ),
            })
            .map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const { ledger } = CostLedger.decode(text);
          for (const key of ['2026-11-25', '2026-11-24']) {
            const day = sumDay([ledger], key);
            assert.ok(Number.isFinite(day.total) && day.total >= 0);
            for (const cost of Object.values(day.bySource))
              assert.ok(typeof cost === 'number' && cost > 0 && cost <= MAX_RECORDED_USD);
          }
        },
      ),
    );
  });
});
