/**
 * End-to-end helper: the real VS Code workbench (VS Code server) in headless Chromium, with the
 * extension loaded from this checkout (or installed from a .vsix), and a way into its webviews.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { launchChromium } from '../launch/chromium';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, SimulatorOptions } from '../simulator';
import { repoRoot, workRoot } from '../launch/paths';
import { allowDevelopmentPayload, startVsCodeServer } from '../launch/vscodeServer';
import type { VsCodeServer } from '../launch/vscodeServer';

/** Where end-to-end tests leave screenshots of the real UI (the README's come from here). */
export const screenshots = path.join(workRoot, 'screenshots');

export interface WorkbenchOptions {
  /** A name for the run's scratch folder. */
  name: string;
  /** Which code-server (so which VS Code) to run; default the oldest supported (1.100.3). */
  codeServerVersion?: string;
  settings?: Record<string, unknown>;
  /** Load the extension from this checkout (default) or only from the extensions folder. */
  development?: boolean;
  /** Load the development extension from this folder instead of the checkout (the demo's launcher). */
  developmentPath?: string;
  /** Open this folder instead of a fresh one (then `files` are not written). */
  folder?: string;
  /** Prepare the extensions folder before the server starts (e.g. install a .vsix). */
  beforeStart?: (dirs: { extensionsDir: string; userDataDir: string }) => void | Promise<void>;
  /** Files to create in the workspace folder, by relative path. */
  files?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Show the workbench in a real window on this X display (see test/launch/xDisplay.ts). */
  display?: string;
}

export interface Workbench {
  page: Page;
  server: VsCodeServer;
  workspace: string;
  /** Opens the Gateway AI container in the activity bar. */
  openGatewayView(): Promise<void>;
  /** The frame of a webview whose document has an element matching `selector`. */
  webviewFrame(selector: string, timeoutMs?: number): Promise<Frame>;
  /** Runs a command through the command palette, by its title as shown there. */
  runCommand(title: string): Promise<void>;
  /** Opens a workspace file in the active editor group through Quick Open. */
  openFile(relativePath: string): Promise<void>;
  /** Waits for the input box whose title contains `title`, types `value` (if given) and accepts. */
  answerInput(title: string, value?: string): Promise<void>;
  screenshot(file: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Mocha wiring for a describe block: a gateway simulator, and a workbench whose options are made
 * from it; both closed afterwards. A failed test leaves a screenshot of the workbench.
 */
export function useSimulatorWorkbench(
  simulatorOptions: SimulatorOptions,
  workbenchOptions: (sim: GatewaySimulator) => WorkbenchOptions,
): { readonly sim: GatewaySimulator; readonly workbench: Workbench } {
  let sim: GatewaySimulator | undefined;
  let workbench: Workbench | undefined;
  before(async () => {
    sim = await startGatewaySimulator(simulatorOptions);
    workbench = await openWorkbench(workbenchOptions(sim));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await workbench?.screenshot(
        path.join(screenshots, `failed-${this.currentTest.title.replace(/\W+/g, '-')}.png`),
      );
  });
  after(async () => {
    await workbench?.close();
    await sim?.close();
  });
  return {
    get sim() {
      if (!sim) throw new Error('The simulator did not start');
      return sim;
    },
    get workbench() {
      if (!workbench) throw new Error('The workbench did not open');
      return workbench;
    },
  };
}

/**
 * Opens the command palette or Quick Open. The key reaches the workbench only when the keyboard
 * focus is in it, not inside a webview that has just taken it: click a neutral part (the status
 * bar) first, and try again if it does not open.
 */
async function openQuickInput(page: Page, key: string, purpose: string) {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; ; attempt++) {
    await page.locator('.part.statusbar').click({ position: { x: 600, y: 5 } });
    await page.keyboard.press(key);
    const opened = await input.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (opened) return input;
    if (attempt === 3) throw new Error(`The quick input did not open to ${purpose}`);
  }
}

export async function openWorkbench(options: WorkbenchOptions): Promise<Workbench> {
  const runDir = path.join(workRoot, 'e2e', options.name);
  rmSync(runDir, { recursive: true, force: true });
  const workspace = options.folder ?? path.join(runDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  for (const [file, content] of Object.entries(options.folder ? {} : (options.files ?? {}))) {
    mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    writeFileSync(path.join(workspace, file), content);
  }
  const dirs = {
    userDataDir: path.join(runDir, 'user-data'),
    extensionsDir: path.join(runDir, 'extensions'),
  };
  mkdirSync(dirs.extensionsDir, { recursive: true });
  await options.beforeStart?.(dirs);

  const server = await startVsCodeServer({
    ...dirs,
    codeServerVersion: options.codeServerVersion,
    settings: options.settings,
    env: options.env,
  });
  let browser: Browser | undefined;
  try {
    browser = await launchChromium({ display: options.display });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const url = server.workbenchUrl({
      folder: workspace,
      developmentPath: options.development === false ? undefined : (options.developmentPath ?? repoRoot),
    });
    await allowDevelopmentPayload(page, server);
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench .activitybar', { timeout: 60_000 });
    const opened = browser;
    return {
      page,
      server,
      workspace,
      async openGatewayView() {
        const button = page
          .locator(
            '.activitybar a[aria-label^="Gateway AI"], .activitybar .action-item[aria-label^="Gateway AI"]',
          )
          .first();
        await button.waitFor({ timeout: 60_000 });
        const expanded = await button.getAttribute('aria-expanded');
        if (expanded !== 'true') await button.click();
        await page
          .waitForSelector('.pane-header[aria-label^="Chat"], .pane-header >> text=Chat', { timeout: 30_000 })
          .catch(() => undefined);
      },
      async webviewFrame(selector, timeoutMs = 60_000) {
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          for (const frame of page.frames()) {
            try {
              if (await frame.$(selector)) return frame;
            } catch {
              // Frames come and go while the workbench loads.
            }
          }
          await page.waitForTimeout(250);
        }
        throw new Error(`No webview showed "${selector}" within ${timeoutMs} ms`);
      },
      async runCommand(title) {
        const input = await openQuickInput(page, 'F1', `run "${title}"`);
        await input.fill(`>${title}`);
        // The list filters as it is typed into: wait until the command is the focused row, so
        // Enter runs it rather than whatever was focused a moment earlier.
        const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).first();
        const focused = await row.waitFor({ timeout: 15_000 }).then(
          () => true,
          () => false,
        );
        if (focused) await page.keyboard.press('Enter');
        else {
          // Under load the palette sometimes lists the command without focusing it (1.139 puts
          // recently used and similar commands first): click it, as a person would.
          const listed = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
          await listed.click({ timeout: 10_000 });
        }
        // 1.100 removes the row; 1.139 keeps it hidden.
        await row.waitFor({ state: 'hidden', timeout: 15_000 });
      },
      async openFile(relativePath) {
        const input = await openQuickInput(page, 'Control+P', `open ${relativePath}`);
        await input.fill(relativePath);
        await page.locator('.quick-input-list .monaco-list-row', { hasText: relativePath }).first().click();
      },
      async answerInput(title, value) {
        await page
          .locator('.quick-input-widget .quick-input-title', { hasText: title })
          .waitFor({ timeout: 15_000 });
        const input = page.locator('.quick-input-widget input');
        if (value !== undefined) await input.fill(value);
        await input.press('Enter');
        await page
          .locator('.quick-input-widget .quick-input-title', { hasText: title })
          .waitFor({ state: 'hidden', timeout: 15_000 });
      },
      async screenshot(file) {
        mkdirSync(path.dirname(file), { recursive: true });
        await page.screenshot({ path: file });
      },
      async close() {
        await opened.close().catch(() => undefined);
        await server.stop();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await server.stop();
    throw error;
  }
}

/** Sends a prompt from the composer and waits until its reply has finished streaming. */
export async function sendAndWait(frame: Frame, prompt: string): Promise<string> {
  const before = await frame.locator('.turn-assistant').count();
  const input = frame.locator('.composer-input');
  // Keyboard focus must be in the webview (a notification or editor may hold it), as a person's click would put it.
  await input.click();
  await input.fill(prompt);
  await input.press('Enter');
  const reply = frame.locator('.turn-assistant').nth(before);
  await reply.waitFor({ timeout: 30_000 });
  // Runs in the webview. A function, not a string: the webview's CSP forbids eval, as it should.
  await frame.waitForFunction(
    (index: number) => {
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(
              s: string,
            ): ArrayLike<{ querySelector(s: string): unknown; textContent: string | null }>;
          };
        }
      ).document;
      const turn = doc.querySelectorAll('.turn-assistant')[index];
      return (
        !!turn && !turn.querySelector('.codicon-loading') && !(turn.textContent ?? '').includes('Generating…')
      );
    },
    before,
    { timeout: 30_000 },
  );
  return (await reply.textContent()) ?? '';
}

/** An editor's text once it contains `expected` (or after 15 s), non-breaking spaces made plain. */
export async function waitForText(page: Page, editor: Locator, expected: string): Promise<string> {
  let text = '';
  for (let i = 0; i < 60 && !text.includes(expected); i++) {
    text = ((await editor.textContent()) ?? '').replace(/\u00a0/g, ' ');
    if (!text.includes(expected)) await page.waitForTimeout(250);
  }
  return text;
}
