/**
 * Entry of a hostile-workspace run (test/launch/hostileRuns.ts): a window of its own, opened on a
 * fixture workspace from test/fixtures/hostile/, that runs one file of this folder, named by
 * GATEWAY_HOSTILE_SUITE, after the observers of the main suite.
 */
import * as path from 'node:path';
import { runSuiteFiles } from '../suite/runner';

export async function run(): Promise<void> {
  const suite = process.env.GATEWAY_HOSTILE_SUITE;
  if (!suite || !/^[A-Za-z]+$/.test(suite)) throw new Error('GATEWAY_HOSTILE_SUITE names no suite');
  await runSuiteFiles(`Hostile workspace: ${suite}`, [
    path.join(__dirname, '..', 'suite', 'observeRun.js'),
    path.join(__dirname, `${suite}.test.js`),
  ]);
}
