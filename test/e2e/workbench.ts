/**
 * End-to-end helper: the real VS Code workbench (VS Code server) in headless Chromium, with the
 * extension loaded from this checkout (or installed from a .vsix), and a way into its webviews.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { launchChromium } from '../launch/chromium';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, SimulatorOptions } from '../simulator';
import { repoRoot, workRoot } from '../launch/paths';
import {
  allowDevelopmentPayload,
  ensureVsCodeServer,
  installVsix,
  startVsCodeServer,
} from '../launch/vscodeServer';
import { packagedVsix } from '../launch/vsix';
import type { VsCodeServer } from '../launch/vscodeServer';

/** Where end-to-end tests leave screenshots of the real UI (the README's come from here). */
export const screenshots = path.join(workRoot, 'screenshots');

export interface WorkbenchOptions {
  /** A name for the run's scratch folder. */
  name: string;
  /** Which code-server (so which VS Code) to run; default the oldest supported (1.100.3). */
  codeServerVersion?: string;
  settings?: Record<string, unknown>;
  /** Start from VS Code's own defaults plus `settings` only, as a new user's profile does. */
  vscodeDefaults?: boolean;
  /**
   * Which extension runs:
   * - `package` (the default): the .vsix this test run built, installed with --install-extension
   *   into the fresh profile, as a user installs it from the Marketplace;
   * - `development`: this checkout as a development extension, for the inner loop only
   *   (GATEWAY_E2E_FROM=development makes it the default);
   * - `none`: only what `beforeStart` installs.
   */
  extension?: 'package' | 'development' | 'none';
  /** Load the development extension from this folder instead of the checkout (the demo's launcher). */
  developmentPath?: string;
  /**
   * An API key to type in through "Gateway AI: Set API Key" once the window is open, as a new
   * user does. (The installed package ignores the demo's environment variable.)
   */
  apiKey?: string;
  /** Open this folder instead of a fresh one (then `files` are not written). */
  folder?: string;
  /** Prepare the extensions folder before the server starts (e.g. install a .vsix). */
  beforeStart?: (dirs: { extensionsDir: string; userDataDir: string }) => void | Promise<void>;
  /** Files to create in the workspace folder, by relative path. */
  files?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Workspace trust on, as VS Code ships it: the folder opens in Restricted Mode, never trusted. */
  workspaceTrust?: boolean;
  /** Show the workbench in a real window on this X display (see test/launch/xDisplay.ts). */
  display?: string;
  /** Called with the page before it loads the workbench: listeners that must see every request. */
  onPage?: (page: Page) => void;
}

export interface Workbench {
  page: Page;
  server: VsCodeServer;
  workspace: string;
  /**
   * Shows one of the extension's views (its section expanded) through the view's focus command,
   * which never hides what is open. Fails saying what the sidebar showed instead.
   */
  showView(name: 'Chat' | 'Media Jobs'): Promise<void>;
  /** Shows the chat view (see showView). */
  openGatewayView(): Promise<void>;
  /**
   * Opens a completed job's result from the Media Jobs tree by keyboard: the tree is focused
   * through its focus command, the job's row is made the focused one, and Enter opens it. (A
   * click can be lost while the row re-renders as the job changes; the focus follows the job.)
   */
  openMediaJob(promptText: string): Promise<void>;
  /** Expands or collapses a section of the sidebar, clicking its header only when needed. */
  setSectionExpanded(name: string, expanded: boolean): Promise<void>;
  /** The frame of a webview whose document has an element matching `selector`. */
  webviewFrame(selector: string, timeoutMs?: number): Promise<Frame>;
  /**
   * Types a key in through "Gateway AI: Set API Key", as a new user does, once the extension's
   * contributions are there, and waits until the input box has closed.
   */
  setApiKey(key: string): Promise<void>;
  /**
   * Waits until the command palette lists a command: VS Code's own commands can have
   * preconditions that hold only once a service has settled (1.139's "Manage Language Models"
   * waits for chat's entitlement). The palette lists what holds when it opens, so it is opened
   * again, every second, until the command is there.
   */
  waitForCommand(title: string, timeoutMs?: number): Promise<void>;
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
 * Moves the keyboard focus from wherever it is (a webview's frame, an editor, a list) to the
 * workbench's own document, without clicking anything: a click on the status bar or a header can
 * land on an item and run its command, or toggle what it meant to open.
 */
async function focusWorkbench(page: Page): Promise<void> {
  await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: { blur?(): void } | null } }).document;
    doc.activeElement?.blur?.();
  });
}

/** What has the keyboard focus, for an error message. */
async function describeFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = (
      globalThis as unknown as {
        document: {
          activeElement: {
            tagName: string;
            className: string;
            getAttribute(n: string): string | null;
          } | null;
        };
      }
    ).document.activeElement;
    if (!el) return 'nothing';
    const label = el.getAttribute('aria-label');
    return `<${el.tagName.toLowerCase()} class="${String(el.className).slice(0, 80)}"${label ? ` aria-label="${label}"` : ''}>`;
  });
}

/** Opens the command palette or Quick Open, once the workbench has the keyboard focus. */
async function openQuickInput(page: Page, key: string, purpose: string) {
  const input = page.locator('.quick-input-widget input');
  await focusWorkbench(page);
  await page.keyboard.press(key);
  const opened = await input.waitFor({ timeout: 15_000 }).then(
    () => true,
    () => false,
  );
  if (!opened)
    throw new Error(
      `The quick input did not open to ${purpose}: ${key} was pressed with the focus on ${await describeFocus(page)}`,
    );
  return input;
}

/** The sidebar as a person sees it: its title, and each section with whether it is expanded. */
async function describeSidebar(page: Page): Promise<string> {
  const title = (
    (await page
      .locator('.part.sidebar .title-label')
      .first()
      .textContent()
      .catch(() => '')) ?? ''
  ).trim();
  const sections = await page
    .locator('.part.sidebar .pane-header')
    // Runs in the page; this file is compiled without the DOM's types.
    .evaluateAll((headers) =>
      (headers as unknown as Array<{ getAttribute(name: string): string | null }>).map(
        (h) =>
          `${h.getAttribute('aria-label') ?? '?'} (${h.getAttribute('aria-expanded') === 'true' ? 'expanded' : 'collapsed'})`,
      ),
    )
    .catch(() => [] as string[]);
  return `sidebar "${title || 'hidden'}" with ${sections.length ? sections.join(', ') : 'no sections'}`;
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
  const extension =
    options.extension ??
    (options.developmentPath || process.env.GATEWAY_E2E_FROM === 'development' ? 'development' : 'package');
  if (extension === 'package')
    installVsix(
      ensureVsCodeServer(options.codeServerVersion),
      packagedVsix(),
      dirs.extensionsDir,
      dirs.userDataDir,
    );
  await options.beforeStart?.(dirs);

  const server = await startVsCodeServer({
    ...dirs,
    codeServerVersion: options.codeServerVersion,
    settings: options.settings,
    vscodeDefaults: options.vscodeDefaults,
    env: options.env,
    workspaceTrust: options.workspaceTrust,
  });
  let browser: Browser | undefined;
  try {
    browser = await launchChromium({ display: options.display });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    options.onPage?.(page);
    const url = server.workbenchUrl({
      folder: workspace,
      developmentPath: extension === 'development' ? (options.developmentPath ?? repoRoot) : undefined,
    });
    await allowDevelopmentPayload(page, server);
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench .activitybar', { timeout: 60_000 });
    const opened = browser;
    /**
     * The extension's contributions are registered: its activity bar entry is there, and its
     * commands are in the palette from then on (a palette opened before lists them not).
     */
    const contributed = () =>
      page
        .locator('.activitybar [aria-label^="Gateway AI"]')
        .first()
        .waitFor({ timeout: 60_000 })
        .catch(() => {
          throw new Error('The Gateway AI activity bar entry never appeared: the extension did not load');
        });
    const workbench: Workbench = {
      page,
      server,
      workspace,
      async showView(name) {
        // The view's own focus command only reveals: it opens the container, expands the
        // section and focuses it, whatever state they were in. (The activity bar item toggles.)
        await contributed();
        await workbench.runCommand(`Gateway AI: Focus on ${name} View`);
        const header = page.locator(
          `.part.sidebar .pane-header[aria-label="${name} Section"][aria-expanded="true"]`,
        );
        const shown = await header.waitFor({ timeout: 30_000 }).then(
          () => true,
          () => false,
        );
        if (!shown)
          throw new Error(`"Focus on ${name} View" did not show it: ${await describeSidebar(page)}`);
        // The command also moves the keyboard focus into the view, once the view is ready (a
        // webview takes it when its page has loaded). Until then a quick input opened next would
        // lose the focus and close: wait until it has landed.
        const landed = await page
          .waitForFunction(
            (section: string) => {
              type El = {
                tagName: string;
                classList: { contains(c: string): boolean };
                closest(s: string): { querySelector(s: string): El | null } | null;
                getAttribute(n: string): string | null;
              };
              const active = (globalThis as unknown as { document: { activeElement: El | null } }).document
                .activeElement;
              if (!active) return false;
              if (active.tagName === 'IFRAME' && active.classList.contains('webview'))
                return section === 'Chat';
              const header = active.closest('.pane')?.querySelector('.pane-header');
              return header?.getAttribute('aria-label') === `${section} Section`;
            },
            name,
            { timeout: 30_000 },
          )
          .then(
            () => true,
            () => false,
          );
        if (!landed)
          throw new Error(
            `"Focus on ${name} View" showed it, but the focus stayed on ${await describeFocus(page)}`,
          );
        if (name === 'Chat') await workbench.webviewFrame('.composer-input');
      },
      async openGatewayView() {
        await workbench.showView('Chat');
      },
      async openMediaJob(promptText) {
        const rows = page.locator('.part.sidebar .pane-body .monaco-list-row', { hasText: promptText });
        await rows.filter({ hasText: 'completed' }).first().waitFor({ timeout: 30_000 });
        await workbench.showView('Media Jobs');
        // Each key goes to the tree's list itself (locator.press focuses it first): a webview
        // that takes the keyboard focus between two keys (the chat view above it may) would
        // otherwise swallow the key. Focusing the list keeps its focused row.
        const list = page
          .locator('.part.sidebar .pane-body .monaco-list', {
            has: page.locator('.monaco-list-row', { hasText: promptText }),
          })
          .first();
        const focusedRow = list.locator('.monaco-list-row.focused').first();
        // Home, then Down until the focused row is the job's: the tree lists the newest first.
        await list.press('Home');
        for (let step = 0; step < 50; step++) {
          await focusedRow.waitFor({ timeout: 10_000 });
          if (((await focusedRow.textContent()) ?? '').includes(promptText)) break;
          await list.press('ArrowDown');
        }
        const text = (await focusedRow.textContent()) ?? '';
        if (!text.includes(promptText))
          throw new Error(
            `No row for "${promptText}" took the focus in the Media Jobs tree (last: "${text}")`,
          );
        await list.press('Enter');
      },
      async setSectionExpanded(name, expanded) {
        const header = page.locator(`.part.sidebar .pane-header[aria-label="${name} Section"]`);
        await header.waitFor({ timeout: 30_000 });
        const want = expanded ? 'true' : 'false';
        // A click on a section header toggles it: click only when it is not already as wanted.
        if ((await header.getAttribute('aria-expanded')) !== want) await header.click();
        const done = await page
          .locator(`.part.sidebar .pane-header[aria-label="${name} Section"][aria-expanded="${want}"]`)
          .waitFor({ timeout: 10_000 })
          .then(
            () => true,
            () => false,
          );
        if (!done)
          throw new Error(
            `The ${name} section did not become ${expanded ? 'expanded' : 'collapsed'}: ${await describeSidebar(page)}`,
          );
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
        throw new Error(
          `No webview showed "${selector}" within ${timeoutMs} ms (${page.frames().length} frames; ${await describeSidebar(page)})`,
        );
      },
      async setApiKey(key) {
        await contributed();
        await workbench.runCommand('Gateway AI: Set API Key');
        await workbench.answerInput('Gateway AI: Set API Key', key);
      },
      async waitForCommand(title, timeoutMs = 120_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const input = await openQuickInput(page, 'F1', `look for "${title}"`);
          await input.fill(`>${title}`);
          const listed = await page
            .locator('.quick-input-list .monaco-list-row', { hasText: title })
            .first()
            .waitFor({ timeout: 2_000 })
            .then(
              () => true,
              () => false,
            );
          await page.keyboard.press('Escape');
          await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
          if (listed) return;
          if (Date.now() > deadline)
            throw new Error(`The command palette never listed "${title}" within ${timeoutMs} ms`);
          await page.waitForTimeout(1_000);
        }
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
    if (options.apiKey !== undefined) await workbench.setApiKey(options.apiKey);
    return workbench;
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
            querySelector(s: string): unknown;
            querySelectorAll(
              s: string,
            ): ArrayLike<{ querySelector(s: string): unknown; textContent: string | null }>;
          };
        }
      ).document;
      const turn = doc.querySelectorAll('.turn-assistant')[index];
      // Ended, and rendered: a reply's text renders over frames, and the log is aria-busy until then.
      return (
        !!turn &&
        !turn.querySelector('.codicon-loading') &&
        !(turn.textContent ?? '').includes('Generating…') &&
        !doc.querySelector('.transcript[aria-busy="true"]')
      );
    },
    before,
    { timeout: 30_000 },
  );
  return (await reply.textContent()) ?? '';
}

/**
 * Waits until a file exists: a drop's files come with the drop's edit, which VS Code applies
 * beside the inserted text, not necessarily before the text shows.
 */
export async function waitForFile(page: Page, file: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was not created within ${timeoutMs} ms`);
    await page.waitForTimeout(100);
  }
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
