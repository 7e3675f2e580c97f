/**
 * Runs a list of mocha files inside the extension host and reports them as the launchers expect:
 * each result on one line marked `[suite]`, and the counts in GATEWAY_SUITE_RESULTS. The main
 * suite (index.ts) and the hostile-workspace runs (test/hostile/index.ts) both use it.
 */
import Mocha from 'mocha';
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { countMochaRun } from '../launch/results';

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
  runner.on('fail', (test, error: Error) => {
    // The whole message (a test may explain at length where it stood), then a few frames.
    const message = error?.message ?? String(error);
    const frames = (error?.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
    say(`${'  '.repeat(depth)}✘ ${test.title}\n${message}\n${frames.slice(0, 6).join('\n')}`);
  });
}

/** Runs `files` in this order; throws when a test failed or none ran. */
export async function runSuiteFiles(label: string, files: readonly string[]): Promise<void> {
  const started = Date.now();
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 30_000,
    color: false,
    reporter: markedReporter as never,
    // While working on one part: GATEWAY_SUITE_GREP=Storage npm run test:integration
    grep: process.env.GATEWAY_SUITE_GREP,
  });
  for (const file of files) mocha.addFile(file);
  await mocha.loadFilesAsync();
  console.log(`[suite] ${label} in VS Code ${vscode.version}, Node ${process.version}`);
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
