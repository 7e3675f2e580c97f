import * as assert from 'assert';
import {
  baseDelayMs,
  failureDelayMs,
  MAX_RETRY_AFTER_MS,
  maxIntervalDelayMs,
  minimumRequestsFor,
  normalizeMaxInterval,
  pollDelayMs,
  retryAfterDelayMs,
} from '../../../../src/core/media/pollSchedule';

/** A small deterministic generator, so jitter tests are repeatable. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const noJitter = (): number => 0.5;

describe('pollSchedule', () => {
  it('starts quickly, then backs off to the 30 s default', () => {
    const delays = Array.from({ length: 9 }, (_, i) => baseDelayMs(i));
    assert.deepStrictEqual(delays, [1000, 2000, 5000, 10000, 15000, 22500, 30000, 30000, 30000]);
  });

  it('grows by 1.5x up to a larger maximum and never shrinks', () => {
    const delays = Array.from({ length: 20 }, (_, i) => baseDelayMs(i, 120_000));
    for (let i = 1; i < delays.length; i++) assert.ok(delays[i] >= delays[i - 1], `delay ${i} shrank`);
    assert.strictEqual(delays[5], 22_500);
    assert.strictEqual(delays[6], 33_750);
    assert.strictEqual(delays.at(-1), 120_000);
  });

  it('keeps the maximum interval at 5 s or more, defaulting to 30 s', () => {
    assert.strictEqual(normalizeMaxInterval(undefined), 30_000);
    assert.strictEqual(normalizeMaxInterval(Number.NaN), 30_000);
    assert.strictEqual(normalizeMaxInterval(1_000), 5_000);
    assert.strictEqual(normalizeMaxInterval(45_000), 45_000);
    assert.deepStrictEqual(
      [0, 1, 2, 3, 10].map((i) => baseDelayMs(i, 1_000)),
      [1000, 2000, 5000, 5000, 5000],
    );
  });

  it('treats odd check numbers as the nearest sensible one', () => {
    assert.strictEqual(baseDelayMs(-3), 1000);
    assert.strictEqual(baseDelayMs(2.7), 5000);
    assert.strictEqual(baseDelayMs(10_000), 30_000);
  });

  it('jitters every delay within ±20%', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 2000; i++) {
      const index = i % 12;
      const base = baseDelayMs(index);
      const delay = pollDelayMs(index, { random });
      assert.ok(delay >= base * 0.8 - 1 && delay <= base * 1.2 + 1, `${delay} outside ±20% of ${base}`);
    }
    assert.strictEqual(pollDelayMs(4, { random: () => 0 }), 12_000);
    assert.strictEqual(pollDelayMs(4, { random: noJitter }), 15_000);
    assert.ok(pollDelayMs(4, { random: () => 0.999_999 }) <= 18_000);
  });

  it('jitters deterministically given the same random source', () => {
    const run = (): number[] => {
      const random = seededRandom(42);
      return Array.from({ length: 10 }, (_, i) => pollDelayMs(i, { random }));
    };
    assert.deepStrictEqual(run(), run());
  });

  it('doubles the wait after failures, up to the maximum, never below the regular schedule', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((failures) => failureDelayMs(failures, 1, { random: noJitter }));
    assert.deepStrictEqual(delays, [2000, 4000, 8000, 16000, 30000, 30000]);
    // A job already at 22.5 s between checks does not speed up because a check failed.
    assert.strictEqual(failureDelayMs(1, 5, { random: noJitter }), 22_500);
    assert.strictEqual(failureDelayMs(10, 3, { maxIntervalMs: 60_000, random: noJitter }), 60_000);
  });

  it('waits at least as long as Retry-After asks, a little more to spread, at most 10 minutes', () => {
    assert.strictEqual(
      retryAfterDelayMs(20, () => 0),
      20_000,
    );
    const spread = retryAfterDelayMs(20, () => 0.999);
    assert.ok(spread >= 20_000 && spread <= 22_000, String(spread));
    assert.strictEqual(
      retryAfterDelayMs(86_400, () => 0),
      MAX_RETRY_AFTER_MS,
    );
    assert.strictEqual(
      retryAfterDelayMs(-5, () => 0),
      0,
    );
  });

  it('uses the maximum interval, jittered, for answers that will not change soon', () => {
    assert.strictEqual(maxIntervalDelayMs({ random: noJitter }), 30_000);
    assert.strictEqual(maxIntervalDelayMs({ maxIntervalMs: 60_000, random: () => 0 }), 48_000);
  });

  describe('minimumRequestsFor', () => {
    it('counts the checks the schedule needs to see a job finish', () => {
      // Checks land at 1 s, 3 s, 8 s, 18 s, 33 s, 55.5 s, 85.5 s, then every 30 s.
      assert.strictEqual(minimumRequestsFor(0), 1);
      assert.strictEqual(minimumRequestsFor(1_000), 1);
      assert.strictEqual(minimumRequestsFor(1_001), 2);
      assert.strictEqual(minimumRequestsFor(8_000), 3);
      assert.strictEqual(minimumRequestsFor(60_000), 7);
      assert.strictEqual(minimumRequestsFor(600_000), 25);
    });

    it('needs fewer requests with a longer maximum interval', () => {
      assert.ok(minimumRequestsFor(600_000, 120_000) < minimumRequestsFor(600_000));
    });

    it('rejects durations it cannot count', () => {
      assert.throws(() => minimumRequestsFor(Number.NaN), RangeError);
      assert.throws(() => minimumRequestsFor(Infinity), RangeError);
    });
  });
});
