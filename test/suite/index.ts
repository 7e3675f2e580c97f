/**
 * Entry of the integration suite, loaded by VS Code as `extensionTestsPath`. It runs inside the
 * real extension host, with either launcher (VS Code server offline, or @vscode/test-electron).
 */
import Mocha from 'mocha';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { countMochaRun, findTests } from '../launch/results';

/**
 * Prints each result on one line marked `[suite]`: the extension host forwards console output to
 * the workbench, where the launcher picks out these lines.
 */
function markedReporter(runner: Mocha.Runner): void {
  const say = (line: string) => console.log(`[suite] ${line}`);
  let depth = 0;
  runner.on('suite', (suite) => {
    if (suite.title) say(`${'  '.repeat(depth)}${suite.title}`);
    depth++;
  });
  runner.on('suite end', () => depth--);
  runner.on('pass', (test) => say(`${'  '.repeat(depth)}✔ ${test.title} (${test.duration ?? 0} ms)`));
  runner.on('pending', (test) => say(`${'  '.repeat(depth)}- ${test.title} (pending)`));
  runner.on('fail', (test, error: Error) =>
    say(
      `${'  '.repeat(depth)}✘ ${test.title}\n${(error?.stack ?? String(error)).split('\n').slice(0, 8).join('\n')}`,
    ),
  );
}

export async function run(): Promise<void> {
  const started = Date.now();
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 30_000,
    color: false,
    reporter: markedReporter as never,
    // While working on one part: GATEWAY_SUITE_GREP=Storage npm run test:integration
    grep: process.env.GATEWAY_SUITE_GREP,
  });
  // The order is explicit, not a matter of file names: the observers go in before every test, the
  // activation check runs before any test stores a key or makes the extension log failures on
  // purpose, and the secrets sweep runs after all of them, over everything they showed, sent and stored.
  mocha.addFile(path.join(__dirname, 'observeRun.js'));
  mocha.addFile(path.join(__dirname, 'activation.js'));
  for (const file of findTests(__dirname)) mocha.addFile(file);
  mocha.addFile(path.join(__dirname, 'secretsSweep.js'));
  await mocha.loadFilesAsync();
  console.log(`[suite] Gateway AI integration suite in VS Code ${vscode.version}, Node ${process.version}`);
  const { failures, counts } = await new Promise<{
    failures: number;
    counts: ReturnType<typeof countMochaRun>;
  }>((resolve) => {
    const runner = mocha.run((failures: number) => resolve({ failures, counts }));
    const counts = countMochaRun(runner);
  });
  const resultsFile = process.env.GATEWAY_SUITE_RESULTS;
  if (resultsFile) {
    writeFileSync(
      resultsFile,
      JSON.stringify({ tier: 'integration', ...counts, durationMs: Date.now() - started }),
    );
  }
  console.log(`[suite] ${counts.passed} passing, ${counts.failed} failing, ${counts.pending} pending`);
  if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
  if (counts.passed === 0) throw new Error('No integration test ran');
}
