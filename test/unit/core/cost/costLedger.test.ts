import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  COST_SOURCES,
  CostLedger,
  dayKey,
  KEEP_DAYS,
  isDayKey,
  MAX_RECORDED_USD,
  readLedgerFile,
  sumDay,
} from '../../../../src/core/cost/costLedger';
import { asideOverflow } from '../../../../src/core/storage/storeFiles';
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
    assert.deepEqual(today, { total: 0.875, bySource: { panel: 0.75, vscodeChat: 0.125 }, estimated: 0 });
    assert.deepEqual(sumDay([a, b], dayKey(NOON - DAY)), { total: 1, bySource: { media: 1 }, estimated: 0 });
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
    for (const text of ['', '{', 'null', '[]', '{"version":1}', '{"version":0,"days":{}}', '"x"'])
      assert.ok(CostLedger.decode(text).problem, text);
    const odd = CostLedger.decode(
      JSON.stringify({
        version: 1,
        days: { '2026-11-25': { panel: 'lots', media: 0.5, __proto__: 1 }, yesterday: { panel: 1 } },
      }),
    );
    assert.equal(odd.problem, undefined, 'odd entries are skipped, not the whole file');
    assert.deepEqual(sumDay([odd.ledger], '2026-11-25'), {
      total: 0.5,
      bySource: { media: 0.5 },
      estimated: 0,
    });
  });

  it('counts estimated costs in the day and says how much of it is estimated, through the file', () => {
    const ledger = new CostLedger();
    ledger.record('panel', 0.5, NOON);
    ledger.record('panel', 0.25, NOON + 1, true);
    ledger.record('vscodeChat', 0.125, NOON + 2, true);
    const today = sumDay([ledger], dayKey(NOON));
    assert.deepEqual(today, { total: 0.875, bySource: { panel: 0.75, vscodeChat: 0.125 }, estimated: 0.375 });
    const { ledger: back, problem } = CostLedger.decode(ledger.encode());
    assert.equal(problem, undefined);
    assert.deepEqual(sumDay([back], dayKey(NOON)), today);
    // A file written before estimates were kept apart reads as it did: nothing estimated.
    const old = CostLedger.decode(JSON.stringify({ version: 1, days: { [dayKey(NOON)]: { panel: 0.5 } } }));
    assert.deepEqual(sumDay([old.ledger], dayKey(NOON)), {
      total: 0.5,
      bySource: { panel: 0.5 },
      estimated: 0,
    });
    // A stored estimated part is bounded by the day's total and ignored when it is not a cost.
    for (const estimated of [5, 'x', -1, null]) {
      const odd = CostLedger.decode(
        JSON.stringify({
          version: 1,
          days: { [dayKey(NOON)]: { panel: 0.5 } },
          estimated: { [dayKey(NOON)]: estimated },
        }),
      );
      assert.equal(sumDay([odd.ledger], dayKey(NOON)).estimated, estimated === 5 ? 0.5 : 0);
    }
  });

  it('keeps aside a file with days of which none read, deletes only a file whose days are all past, and leaves a newer version be', () => {
    // Another window's figures in a shape we cannot read: never deleted, kept aside.
    const unreadable = JSON.stringify({
      version: 1,
      days: { '2026-11-25': { panel: '0.5', vscodeChat: -1 } },
    });
    assert.equal(CostLedger.decode(unreadable).problem, 'none of its days could be read');
    assert.deepEqual(readLedgerFile(unreadable, NOON), {
      kind: 'unreadable',
      problem: 'none of its days could be read',
    });
    // Not a real day: not a day at all.
    assert.equal(
      readLedgerFile(JSON.stringify({ version: 1, days: { '2026-13-99': { panel: 1 } } }), NOON).kind,
      'unreadable',
    );
    for (const key of ['2026-13-01', '2026-02-30', '2026-00-10', '2026-11-31', '26-11-25', '2026-11-25 '])
      assert.equal(isDayKey(key), false, key);
    for (const key of ['2026-11-25', '2028-02-29', '2026-12-31']) assert.ok(isDayKey(key), key);
    const old = new CostLedger();
    old.record('panel', 1, NOON - (KEEP_DAYS + 2) * DAY);
    assert.equal(readLedgerFile(old.encode(), NOON).kind, 'stale');
    assert.equal(readLedgerFile('{"version":1,"days":{}}', NOON).kind, 'stale');
    old.record('media', 1, NOON);
    assert.equal(readLedgerFile(old.encode(), NOON).kind, 'current');
    assert.equal(
      readLedgerFile('{"version":2,"days":{"2026-11-25":{"panel":{"usd":1}}}}', NOON).kind,
      'newer',
    );
    assert.equal(readLedgerFile('{"version":2}', NOON).kind, 'newer');
  });

  it('keeps only the newest few set-aside ledger files', () => {
    const names = [
      'window-a.json',
      'window-a.corrupt-100.json',
      'window-a.corrupt-300.json',
      'window-b.corrupt-200-1.json',
      'window-c.corrupt-50.json',
      'window-c.json.tmp-x',
      'conversations.corrupt-1.json',
    ];
    assert.deepEqual(asideOverflow(names, 'window-', 2), [
      'window-a.corrupt-100.json',
      'window-c.corrupt-50.json',
    ]);
    assert.deepEqual(asideOverflow(names, 'window-', 5), []);
  });

  it('any file text: never throws, and a file with a readable recent day is never deleted (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const file = readLedgerFile(text, NOON);
          if (file.kind === 'stale')
            assert.equal(CostLedger.decode(text).ledger.day(dayKey(NOON)).panel, undefined);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.constantFrom(...COST_SOURCES),
        fc.double({ min: 1e-6, max: 100, noNaN: true }),
        (days, source, cost) => {
          const text = JSON.stringify({ version: 1, days: { ...days, [dayKey(NOON)]: { [source]: cost } } });
          assert.equal(readLedgerFile(text, NOON).kind, 'current');
        },
      ),
    );
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
