/**
 * Runs one Node-side mocha tier (unit, webview, e2e) and reports its counts.
 * Usage: node out/test/launch/runMochaTier.js <tier> <dir-under-out/test>
 */
import Mocha from 'mocha';
import * as path from 'node:path';
import { MissingDependencyError } from './chromium';
import { configurePropertySeed, replayHint } from './propertySeed';
import { countMochaRun, findTests, reportTier } from './results';

async function main(): Promise<void> {
  const [tier, dir, timeout] = process.argv.slice(2);
  if (!tier || !dir) throw new Error('usage: runMochaTier <tier> <dir-under-out/test> [timeout-ms]');
  const started = Date.now();
  // The tiers with property tests share one printed seed per run (GATEWAY_TEST_SEED replays it).
  const seeded = tier === 'unit' || tier === 'webview';
  if (seeded) configurePropertySeed();
  const mocha = new Mocha({
    ui: 'bdd',
    reporter: 'spec',
    timeout: Number(timeout ?? 20_000),
    color: process.stdout.isTTY,
    // GATEWAY_TEST_GREP narrows a run while working on one feature.
    grep: process.env.GATEWAY_TEST_GREP || undefined,
  });
  const testDir = path.resolve(__dirname, '..', dir);
  for (const file of findTests(testDir)) mocha.addFile(file);
  await mocha.loadFilesAsync();
  const { counts, failures } = await new Promise<{
    counts: ReturnType<typeof countMochaRun>;
    failures: number;
  }>((resolve) => {
    const runner = mocha.run((failures: number) => resolve({ counts, failures }));
    const counts = countMochaRun(runner);
  });
  if (seeded && failures > 0) console.log(`\n${replayHint()}\n`);
  reportTier({ tier, ...counts, durationMs: Date.now() - started });
  // Servers or browsers a test forgot to close must not keep the tier alive.
  process.exit(failures > 0 || counts.passed === 0 ? 1 : 0);
}

main().catch((error) => {
  if (error instanceof MissingDependencyError) console.error(`\n${error.message}\n`);
  else console.error(error);
  process.exit(1);
});
