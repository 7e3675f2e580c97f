/**
 * One seed for every property test of a run, so that a failure can be replayed.
 *
 * Each run draws a fresh seed (new inputs every run, so the properties keep searching), unless
 * GATEWAY_TEST_SEED names one. The seed is printed before the tests; fast-check prints the seed
 * and the shrunk counterexample's path with any failure, and `replayHint` says how to run it
 * again. A counterexample found this way becomes a fixed example test beside its property.
 *
 * Called by the unit and webview tiers (runMochaTier), and by `npm run test:unit` through
 * propertySeedHook.ts (.mocharc.json).
 */
import fc from 'fast-check';

export const SEED_VARIABLE = 'GATEWAY_TEST_SEED';

/** A 32-bit seed from the environment, or a fresh one. Throws on a value that is not one. */
export function chooseSeed(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return (Math.random() * 0x1_0000_0000) | 0;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`${SEED_VARIABLE}=${value} is not an integer seed`);
  return seed | 0;
}

let chosen: number | undefined;

/** Sets fast-check's global seed once per process and returns it. */
export function configurePropertySeed(): number {
  if (chosen === undefined) {
    chosen = chooseSeed(process.env[SEED_VARIABLE]);
    fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: chosen });
    console.log(`Property tests use seed ${chosen}. ${replayHint()}`);
  }
  return chosen;
}

/** How to run the same inputs again. */
export function replayHint(): string {
  return `Replay with ${SEED_VARIABLE}=${chosen ?? '<seed>'} (one property: fc.assert(…, { seed, path }) with the path its failure prints).`;
}
