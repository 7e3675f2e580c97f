/**
 * Runs the integration suite inside VS Code desktop through @vscode/test-electron. It downloads
 * VS Code, so it needs internet; offline, `npm run test:integration` runs the same suite in the
 * VS Code server build instead.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, workRoot } from './paths';
import { reportTier } from './results';
import type { TierResult } from './results';

async function main(): Promise<number> {
  const { runTests } = await import('@vscode/test-electron');
  const runDir = path.join(workRoot, 'electron');
  rmSync(runDir, { recursive: true, force: true });
  const workspace = path.join(runDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const resultsFile = path.join(runDir, 'suite-results.json');
  const userDataDir = path.join(runDir, 'user-data');
  const version = process.env.VSCODE_VERSION ?? '1.100.3';
  const started = Date.now();
  let exitCode = 0;
  try {
    exitCode = await runTests({
      version,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'out', 'test', 'suite', 'index.js'),
      // GATEWAY_TEST_USER_DATA: the suite checks the files VS Code keeps there (settings) for secrets.
      extensionTestsEnv: {
        GATEWAY_SUITE_RESULTS: resultsFile,
        GATEWAY_TEST_MODE: '1',
        GATEWAY_TEST_USER_DATA: userDataDir,
      },
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--user-data-dir',
        userDataDir,
      ],
    });
  } catch (error) {
    console.error(`VS Code ${version} could not be downloaded or run (${(error as Error).message}).`);
    return 1;
  }
  const result: TierResult = existsSync(resultsFile)
    ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as TierResult)
    : {
        tier: 'integration',
        passed: 0,
        failed: 1,
        pending: 0,
        failures: ['the suite wrote no results'],
        durationMs: 0,
      };
  result.host = `VS Code ${version}`;
  result.durationMs = Date.now() - started;
  reportTier(result);
  console.log(`VS Code ${version}: ${result.passed} passed, ${result.failed} failed`);
  return exitCode === 0 && result.failed === 0 && result.passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
