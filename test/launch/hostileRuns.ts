/**
 * The hostile-workspace runs of the integration tier: each opens one fixture workspace from
 * test/fixtures/hostile/ (one per attack class, kept as regression data) in a VS Code server of its
 * own, with a fresh profile, and runs one file of test/hostile/ inside it.
 *
 * - `workspaceSettings`: the workspace's own settings name a second gateway as the base URL (and
 *   choose models, parameters, caps and a system prompt). The user's settings name the first; a
 *   key is stored at start-up, bound to the first (GATEWAY_AI_DEMO_KEY, as `npm run demo` does).
 *   Both gateways run here, in the launcher, from before the window opens, so the second one sees
 *   every request made from start-up on; the suite asks it through `/__sim/requests`.
 * - `untrusted`: workspace trust on and the folder not trusted (Restricted Mode).
 * - `hugeFiles`: Restricted Mode, instruction files read there by the user's choice; the run makes
 *   `.vscode/mcp.json` a link to /dev/zero and `AGENTS.md` a 1 GB sparse file (neither can be
 *   kept in the repository: a tool that walks it would read them).
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { repoRoot } from './paths';
import type { TierResult } from './results';
import { allowDevelopmentPayload, startVsCodeServer } from './vscodeServer';

export interface HostileRun {
  /** The suite in test/hostile/ (`<suite>.test.ts`), also the run's name. */
  suite: string;
  /** The fixture workspace under test/fixtures/hostile/. */
  fixture: string;
  /** Workspace trust on (the folder then opens in Restricted Mode). */
  workspaceTrust: boolean;
  /** The user's gateway and the workspace's, started here before the window opens. */
  gateways: boolean;
  /** The user's own settings for the run. */
  userSettings?: Record<string, unknown>;
  /** Makes what the fixture cannot hold, in the copied workspace. */
  prepare?: (workspace: string) => void;
}

export const HOSTILE_RUNS: readonly HostileRun[] = [
  { suite: 'workspaceSettings', fixture: 'workspace-settings', workspaceTrust: false, gateways: true },
  { suite: 'untrusted', fixture: 'untrusted', workspaceTrust: true, gateways: false },
  {
    suite: 'hugeFiles',
    fixture: 'huge-files',
    workspaceTrust: true,
    gateways: false,
    userSettings: { 'gateway.agent.instructionsInRestrictedMode': true },
    prepare: (workspace) => {
      mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
      symlinkSync('/dev/zero', path.join(workspace, '.vscode', 'mcp.json'));
      const agents = path.join(workspace, 'AGENTS.md');
      writeFileSync(agents, '');
      // Sparse: 1 GB by its size, no disk.
      truncateSync(agents, 1024 ** 3);
    },
  },
];

/** The key the user has stored (bound to their own gateway) when the window opens. */
export const HOSTILE_RUN_KEY = 'sk-hostile-run-user-key-0123456789';
const RUN_TIMEOUT_MS = 5 * 60_000;

/** Copies the fixture, writing the gateways' addresses where it names `__USER_GATEWAY__` or `__HOSTILE_GATEWAY__`. */
function copyFixture(fixture: string, to: string, values: Record<string, string>): void {
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'hostile', fixture), to, { recursive: true });
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      // By what each entry is, never what a link leads to (a link to /dev/zero is never read).
      const entry = lstatSync(full);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const text = readFileSync(full, 'utf8');
        const replaced = text.replace(/__(USER|HOSTILE)_GATEWAY__/g, (whole) => values[whole] ?? whole);
        if (replaced !== text) writeFileSync(full, replaced);
      }
    }
  };
  walk(to);
}

/** Runs one hostile-workspace suite in a VS Code server of its own; resolves with its counts. */
export async function runHostile(
  run: HostileRun,
  codeServerVersion: string,
  browser: Browser,
  runDir: string,
): Promise<TierResult> {
  const dir = path.join(runDir, `hostile-${run.suite}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const resultsFile = path.join(dir, 'suite-results.json');
  const workspace = path.join(dir, 'workspace');
  const gateways: GatewaySimulator[] = [];
  const started = Date.now();
  try {
    const env: NodeJS.ProcessEnv = {
      GATEWAY_SUITE_RESULTS: resultsFile,
      GATEWAY_TEST_MODE: '1',
      GATEWAY_HOSTILE_SUITE: run.suite,
      // The main suite's narrowing is not this run's.
      GATEWAY_SUITE_GREP: '',
    };
    const settings: Record<string, unknown> = {};
    const values: Record<string, string> = {};
    if (run.gateways) {
      const options = { chunkDelayMs: 1, mediaTimings: { queuedMs: 300, processingMs: 600 } };
      const user = await startGatewaySimulator(options);
      const hostile = await startGatewaySimulator(options);
      gateways.push(user, hostile);
      values.__USER_GATEWAY__ = user.origin;
      values.__HOSTILE_GATEWAY__ = hostile.origin;
      settings['gateway.baseUrl'] = user.baseUrl;
      Object.assign(env, {
        GATEWAY_AI_DEMO_KEY: HOSTILE_RUN_KEY,
        GATEWAY_TEST_USER_GATEWAY: user.origin,
        GATEWAY_TEST_HOSTILE_GATEWAY: hostile.origin,
      });
    }
    copyFixture(run.fixture, workspace, values);
    run.prepare?.(workspace);
    Object.assign(settings, run.userSettings);
    const server = await startVsCodeServer({
      codeServerVersion,
      userDataDir: path.join(dir, 'user-data'),
      extensionsDir: path.join(dir, 'extensions'),
      settings,
      workspaceTrust: run.workspaceTrust,
      env,
    });
    const page = await browser.newPage();
    try {
      const exitCode = new Promise<number>((resolve) => {
        void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
      });
      page.on('console', (message) => {
        const text = message.text();
        const marker = text.indexOf('[suite] ');
        if (marker >= 0) console.log(`[${run.suite}] ${text.slice(marker + '[suite] '.length)}`);
      });
      await allowDevelopmentPayload(page, server);
      await page.goto(
        server.workbenchUrl({
          folder: workspace,
          developmentPath: repoRoot,
          testsPath: path.join(repoRoot, 'out', 'test', 'hostile', 'index.js'),
        }),
      );
      const code = await Promise.race([
        exitCode,
        new Promise<number>((resolve) => setTimeout(() => resolve(124), RUN_TIMEOUT_MS)),
      ]);
      if (code === 124) console.error(`The hostile run "${run.suite}" did not finish in time.`);
    } finally {
      await page.close().catch(() => undefined);
      await server.stop();
    }
    const result: TierResult = existsSync(resultsFile)
      ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as TierResult)
      : { tier: 'integration', passed: 0, failed: 1, pending: 0, failures: [], durationMs: 0 };
    if (!existsSync(resultsFile)) result.failures = [`the hostile run "${run.suite}" wrote no results`];
    else if (result.passed === 0) {
      result.failed += 1;
      result.failures = [...(result.failures ?? []), `no test ran in the hostile run "${run.suite}"`];
    }
    result.failures = (result.failures ?? []).map((failure) =>
      failure.startsWith(`${run.suite}: `) ? failure : `${run.suite}: ${failure}`,
    );
    result.durationMs = Date.now() - started;
    return result;
  } finally {
    for (const gateway of gateways) await gateway.close();
    // What `prepare` made (a link to /dev/zero) is not left for a later tool to walk into.
    if (run.prepare) rmSync(workspace, { recursive: true, force: true });
  }
}
