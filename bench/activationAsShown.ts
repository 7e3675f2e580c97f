/**
 * Activation time as VS Code itself shows it to users, in Developer: Show Running Extensions:
 * "Activation: N ms" is the extension host's own measure, code loading (requiring the main
 * bundle) plus the synchronous part of the activate() call, in whole milliseconds.
 *
 * Each run starts a fresh server with the packaged .vsix installed the way the Marketplace
 * installs it, opens the workbench in Chromium, opens the Gateway AI view container the way a
 * user does (which activates the extension), then opens Show Running Extensions and reads the
 * rows: ours, the built-ins the issue compares against, and an empty extension (VS Code's own
 * cost for any extension, in the same host).
 *
 * Extensions that activate on the same event are loaded interleaved, and each one's "code
 * loading" then includes the others' (VS Code awaits between starting the clock and requiring
 * the file). So the empty extension activates on a command of its own, run once ours is active,
 * and the built-ins' figures, taken at startup beside each other, carry some of that too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { workRoot, repoRoot } from '../test/launch/paths';
import { ensureVsCodeServer, installVsix } from '../test/launch/vscodeServer';
import type { Page } from 'playwright-core';
import { openWorkbench } from '../test/e2e/workbench';

/** The rows read from the Running Extensions editor, by the name that editor shows. */
export const SHOWN = {
  ours: 'Gateway AI',
  emptyPeer: 'Empty Extension',
  gitBase: 'Git Base',
  mergeConflict: 'Merge Conflict',
  autoAttach: 'Node Debug Auto-attach',
} as const;
export type ShownKey = keyof typeof SHOWN;
export type ShownRun = Record<ShownKey, number>;

/**
 * Ours must wake after the startup activations are over: an extension whose activation overlaps
 * another's is charged for the other's code loading too (this was seen: ours woke beside Emmet and
 * before Git on a loaded machine). The extension host logs each activation; the last startup ones
 * are the `onStartupFinished` built-ins, then the log must stay quiet for a moment.
 */
const STARTUP_MARKERS = ['vscode.merge-conflict', 'vscode.debug-auto-launch'];
const QUIET_LOG_MS = 3_000;
const STARTUP_LIMIT_MS = 120_000;

/** Waits until the startup activations are logged and the extension host's log has gone quiet. */
export async function startupActivationsDone(userDataDir: string): Promise<void> {
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  let lastSize = -1;
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    const log = extensionHostLog(userDataDir);
    const text = log ? readFileSync(log, 'utf8') : '';
    if (text.length !== lastSize) {
      lastSize = text.length;
      quietSince = Date.now();
    }
    const activated = STARTUP_MARKERS.every((id) => text.includes(`_doActivateExtension ${id},`));
    if (activated && Date.now() - quietSince >= QUIET_LOG_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the startup activations did not finish within ${STARTUP_LIMIT_MS / 1000} s`);
}

/** The server's Node extension host log of the newest session, once it exists. */
export function extensionHostLog(userDataDir: string): string | undefined {
  const logs = path.join(userDataDir, 'logs');
  if (!existsSync(logs)) return undefined;
  for (const session of readdirSync(logs).sort().reverse()) {
    const file = path.join(logs, session, 'exthost1', 'remoteexthost.log');
    if (existsSync(file)) return file;
  }
  return undefined;
}
const READ_TIMEOUT_MS = 60_000;

const EMPTY_COMMAND = 'Empty Extension: Wake';

/**
 * An extension that does nothing, activated by a command of its own: whatever its row shows is
 * VS Code's own per-extension cost in that host.
 */
export function packageEmptyExtension(): string {
  const dir = path.join(workRoot, 'bench', 'empty-extension');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'empty-extension',
        displayName: SHOWN.emptyPeer,
        description: 'Does nothing; a bench peer.',
        publisher: 'bench',
        version: '0.0.1',
        license: 'MIT',
        engines: { vscode: '^1.100.0' },
        main: './extension.js',
        activationEvents: ['onCommand:emptyExtension.wake'],
        contributes: {
          commands: [{ command: 'emptyExtension.wake', title: 'Wake', category: 'Empty Extension' }],
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(dir, 'extension.js'),
    "exports.activate = function (context) {\n  context.subscriptions.push(require('vscode').commands.registerCommand('emptyExtension.wake', () => undefined));\n};\n",
  );
  writeFileSync(path.join(dir, 'README.md'), '# Empty extension\n\nA bench peer.\n');
  const vsix = path.join(workRoot, 'bench', 'empty-extension.vsix');
  rmSync(vsix, { force: true });
  const vsce = path.join(repoRoot, 'node_modules', '.bin', 'vsce');
  execFileSync(
    vsce,
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix],
    { cwd: dir, stdio: 'pipe', timeout: 120_000 },
  );
  return vsix;
}

/** Runs a command from the command palette, as a user would, until `done` shows up. */
async function runFromPalette(page: Page, title: string, done: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    // F1 reaches the workbench only when the focus is in it, not in the chat webview.
    await page.locator('.part.statusbar').click({ position: { x: 600, y: 5 } });
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    if (!(await input.waitFor({ timeout: 5_000 }).then(...settled))) continue;
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first();
    if (!(await row.waitFor({ timeout: 15_000 }).then(...settled))) continue;
    await page.keyboard.press('Enter');
    if (await done().then(...settled)) return;
  }
  throw new Error(`"${title}" did not finish from the command palette`);
}

const settled = [() => true, () => false] as const;

/** One fresh server: the activation times the Running Extensions editor shows, in ms. */
export async function measureAsShown(vsix: string, emptyVsix: string, index: number): Promise<ShownRun> {
  const entry = ensureVsCodeServer();
  const workbench = await openWorkbench({
    name: `bench-activation-shown-${index}`,
    extension: 'none',
    beforeStart: ({ extensionsDir, userDataDir }) => {
      installVsix(entry, vsix, extensionsDir, userDataDir);
      installVsix(entry, emptyVsix, extensionsDir, userDataDir);
    },
  });
  try {
    const { page } = workbench;
    // Tall enough that every activated extension's row is rendered (the list is virtual).
    await page.setViewportSize({ width: 1400, height: 3200 });
    await startupActivationsDone(workbench.server.userDataDir);
    await workbench.openGatewayView();
    // Activated and painted: the chat view's document exists.
    await workbench.webviewFrame('#app');
    // The palette closing is all the empty extension's command shows.
    await runFromPalette(page, EMPTY_COMMAND, () =>
      page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 }),
    );
    await runFromPalette(page, 'Developer: Show Running Extensions', () =>
      page.locator('.runtime-extensions-editor .monaco-list-row').first().waitFor({ timeout: 15_000 }),
    );

    const wanted = Object.values(SHOWN) as string[];
    const deadline = Date.now() + READ_TIMEOUT_MS;
    let seen: Record<string, string> = {};
    while (Date.now() < deadline) {
      // Every row has both elements, so the two lists line up.
      const rows = page.locator('.runtime-extensions-editor .monaco-list-row');
      const names = await rows.locator('.name').allTextContents();
      const times = await rows.locator('.activation-time').allTextContents();
      seen = Object.fromEntries(names.map((name, row) => [name.trim(), times[row]?.trim() ?? '']));
      if (wanted.every((name) => /\d+ms$/.test(seen[name] ?? ''))) break;
      await page.waitForTimeout(250);
    }
    const result = {} as ShownRun;
    for (const [key, name] of Object.entries(SHOWN) as Array<[ShownKey, string]>) {
      const match = /(\d+(?:\.\d+)?)ms$/.exec(seen[name] ?? '');
      if (!match)
        throw new Error(
          `Running Extensions showed no activation time for ${name}; rows: ${JSON.stringify(seen)}`,
        );
      result[key] = Number(match[1]);
    }
    return result;
  } finally {
    await workbench.close();
  }
}
