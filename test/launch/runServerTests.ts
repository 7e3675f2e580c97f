/**
 * Runs the integration suite (out/test/suite) inside a real VS Code extension host, offline: the
 * VS Code server build of code-server, with Debian's headless Chromium as the window.
 * On a machine with internet, runElectronTests runs the same suite through @vscode/test-electron.
 *
 * Usage: node out/test/launch/runServerTests.js [code-server version]   (default 4.100.3 = VS Code
 * 1.100.3; 4.139.1 = VS Code 1.139.1). Each version runs in its own scratch folder. After the main
 * suite, the hostile-workspace runs (hostileRuns.ts) each open a fixture workspace in a server of
 * their own; their counts are added to the tier's.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { chromiumPath, launchChromium, MissingDependencyError } from './chromium';
import { HOSTILE_RUNS, runHostile } from './hostileRuns';
import { repoRoot, workRoot } from './paths';
import { reportTier } from './results';
import type { TierResult } from './results';
import { allowDevelopmentPayload, DEFAULT_CODE_SERVER, startVsCodeServer } from './vscodeServer';

const SUITE_TIMEOUT_MS = 15 * 60_000;

async function main(): Promise<number> {
  const started = Date.now();
  const codeServerVersion = process.argv[2] || DEFAULT_CODE_SERVER;
  const extensionMain = path.join(repoRoot, 'dist', 'extension.js');
  const suiteIndex = path.join(repoRoot, 'out', 'test', 'suite', 'index.js');
  for (const file of [extensionMain, suiteIndex]) {
    if (!existsSync(file))
      throw new MissingDependencyError(
        `${path.relative(repoRoot, file)} is missing: run "npm run build && npm run compile-tests" first.`,
      );
  }

  chromiumPath(); // Fails fast, with the install hint, before a server is started.
  const runDir = path.join(workRoot, `integration-${codeServerVersion}`);
  rmSync(runDir, { recursive: true, force: true });
  const workspace = path.join(runDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const resultsFile = path.join(runDir, 'suite-results.json');
  // The two-window storage test: a second workbench page on the same server is a second
  // extension host over the same global storage; the two meet through files in this folder.
  const syncDir = path.join(runDir, 'two-windows');
  mkdirSync(syncDir, { recursive: true });
  const secondWorkspace = path.join(runDir, 'workspace-2');
  mkdirSync(secondWorkspace, { recursive: true });
  const secondWindowEntry = path.join(repoRoot, 'out', 'test', 'suite', 'secondWindow.js');

  const userDataDir = path.join(runDir, 'user-data');
  const server = await startVsCodeServer({
    codeServerVersion,
    userDataDir,
    extensionsDir: path.join(runDir, 'extensions'),
    // GATEWAY_TEST_USER_DATA: the suite checks the files VS Code keeps there (settings) for secrets.
    env: {
      GATEWAY_SUITE_RESULTS: resultsFile,
      GATEWAY_TEST_MODE: '1',
      GATEWAY_TEST_USER_DATA: userDataDir,
      GATEWAY_TEST_SYNC_DIR: syncDir,
    },
  });
  console.log(`Integration tests inside VS Code ${server.version} (VS Code server on ${server.origin})`);

  const browser = await launchChromium().catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  try {
    const page = await browser.newPage();
    const exitCode = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
    });
    await page.addInitScript({ content: FOCUS_RECORDER });
    page.on('console', (message) => {
      const text = message.text();
      // The suite's reporter marks its lines; the workbench's own console noise stays out.
      const marker = text.indexOf('[suite] ');
      if (marker >= 0) console.log(text.slice(marker + '[suite] '.length));
      // A test that waited in vain asks what the window looked like (test/suite/inlineTrace.ts).
      const probe = /\[probe\] (\w+)/.exec(text);
      if (probe) void answerProbe(page, path.join(syncDir, `probe-${probe[1]}.txt`));
    });
    page.on('pageerror', (error) => console.error(`[workbench] ${error.message}`));
    await allowDevelopmentPayload(page, server);
    await page.goto(
      server.workbenchUrl({ folder: workspace, developmentPath: repoRoot, testsPath: suiteIndex }),
    );
    // The second window opens when the storage test asks for it (so it cannot disturb the tests
    // before), and runs test/suite/secondWindow.ts.
    const openSecond = setInterval(() => {
      if (!existsSync(path.join(syncDir, 'open-second'))) return;
      clearInterval(openSecond);
      void (async () => {
        const second = await browser.newPage();
        await second.exposeFunction('codeAutomationExit', () => undefined);
        second.on('console', (message) => {
          const text = message.text();
          const marker = text.indexOf('[second window] ');
          if (marker >= 0) console.log(text.slice(marker));
        });
        await second.goto(
          server.workbenchUrl({
            folder: secondWorkspace,
            developmentPath: repoRoot,
            testsPath: secondWindowEntry,
          }),
        );
        // Closed once the test is done with it, so it cannot disturb the tests after.
        const closeSecond = setInterval(() => {
          if (!existsSync(path.join(syncDir, 'finish'))) return;
          clearInterval(closeSecond);
          setTimeout(() => void second.close().catch(() => undefined), 1000);
        }, 250);
      })().catch((error: unknown) => console.error(`The second window did not open: ${String(error)}`));
    }, 250);
    const code = await Promise.race([
      exitCode,
      new Promise<number>((resolve) => setTimeout(() => resolve(124), SUITE_TIMEOUT_MS)),
    ]);
    clearInterval(openSecond);
    if (code === 124) console.error('The integration suite did not finish in time.');

    const result: TierResult = existsSync(resultsFile)
      ? {
          ...(JSON.parse(readFileSync(resultsFile, 'utf8')) as TierResult),
          tier: 'integration',
          host: `VS Code ${server.version}`,
        }
      : {
          tier: 'integration',
          passed: 0,
          failed: 1,
          pending: 0,
          failures: ['the suite wrote no results'],
          host: `VS Code ${server.version}`,
          durationMs: 0,
        };
    // The hostile workspaces, each in a server of its own (test/launch/hostileRuns.ts), after the
    // main one is stopped. GATEWAY_SUITE_GREP narrows the main suite only: they run unless it is
    // set, or when GATEWAY_HOSTILE_GREP (a pattern of their suites' names) picks some.
    await server.stop();
    const hostileGrep = process.env.GATEWAY_HOSTILE_GREP;
    if (!process.env.GATEWAY_SUITE_GREP || hostileGrep)
      for (const run of HOSTILE_RUNS.filter((r) => !hostileGrep || new RegExp(hostileGrep).test(r.suite))) {
        const extra = await runHostile(run, codeServerVersion, browser, runDir).catch(
          (error: unknown): TierResult => ({
            tier: 'integration',
            passed: 0,
            failed: 1,
            pending: 0,
            failures: [`${run.suite}: ${error instanceof Error ? error.message : String(error)}`],
            durationMs: 0,
          }),
        );
        console.log(`Hostile workspace "${run.suite}": ${extra.passed} passed, ${extra.failed} failed`);
        result.passed += extra.passed;
        result.failed += extra.failed;
        result.pending += extra.pending;
        result.failures = [...(result.failures ?? []), ...extra.failures];
      }
    result.durationMs = Date.now() - started;
    reportTier(result);
    console.log(`VS Code ${server.version}: ${result.passed} passed, ${result.failed} failed`);
    if (result.passed === 0) console.error('No integration test ran.');
    return code === 0 && result.failed === 0 && result.passed > 0 ? 0 : 1;
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}

/**
 * Runs in the workbench page before its own scripts: keeps the last focus moves (which element got
 * or lost focus, when), since VS Code drops ghost text when its editor loses focus and nothing of
 * that reaches the extension API. `gatewayProbe()` tells them, with what the window shows.
 */
const FOCUS_RECORDER = `(() => {
  const describe = (target) => {
    if (!(target instanceof Element)) return target === window ? 'window' : String(target);
    const parts = [];
    for (let el = target; el && parts.length < 4; el = el.parentElement) {
      const cls = typeof el.className === 'string' ? el.className.trim().split(/\\s+/).slice(0, 3).join('.') : '';
      const label = el.getAttribute('aria-label');
      // A webview says whose it is and what it is for.
      const src = el.tagName === 'IFRAME' ? /extensionId=([^&]*).*?purpose=([^&]*)|purpose=([^&]*).*?extensionId=([^&]*)/.exec(el.getAttribute('src') || '') : null;
      const owner = src ? '{' + (src[1] || src[4]) + ' ' + (src[2] || src[3]) + '}' : '';
      parts.push(el.tagName.toLowerCase() + (cls ? '.' + cls : '') + (label ? '[' + label.slice(0, 40) + ']' : '') + owner);
    }
    return parts.join(' < ');
  };
  const log = [];
  const started = Date.now();
  const note = (line) => {
    log.push((Date.now() - started) + ' ms ' + line);
    if (log.length > 60) log.shift();
  };
  for (const type of ['focusin', 'focusout'])
    window.addEventListener(type, (event) => note(type + ' ' + describe(event.target)), true);
  window.addEventListener('blur', () => note('window blur'));
  window.addEventListener('focus', () => note('window focus'));
  window.gatewayProbe = () => [
    'page time ' + (Date.now() - started) + ' ms; document has focus: ' + document.hasFocus(),
    'active element: ' + describe(document.activeElement),
    'ghost text elements: ' + document.querySelectorAll('.ghost-text-decoration, .ghost-text, .ghost-text-decoration-preview').length,
    'quick input visible: ' + [...document.querySelectorAll('.quick-input-widget')].some((el) => el.style.display !== 'none'),
    'dialogs: ' + document.querySelectorAll('.monaco-dialog-box').length,
    ...[...document.querySelectorAll('.notification-toast .notification-list-item-message')].map((el) => 'toast: ' + el.textContent.slice(0, 160)),
    'focus moves:',
    ...log.slice(-30).map((line) => '  ' + line),
  ].join('\\n');
})();`;

async function answerProbe(page: import('playwright-core').Page, file: string): Promise<void> {
  const text = await page
    .evaluate<string>("typeof gatewayProbe === 'function' ? gatewayProbe() : 'no probe in the page'")
    .catch((error: unknown) => `the probe failed: ${String(error)}`);
  writeFileSync(file, text);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof MissingDependencyError ? `\n${error.message}\n` : error);
    process.exit(1);
  },
);
