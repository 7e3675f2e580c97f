/**
 * The browser entry beside the Node entry, in the same run: how long a user waits for the chat.
 *
 * Each run starts a fresh code-server 4.100.3 with the packaged .vsix installed (the one the size
 * section measured), opens the workbench in Chromium, waits until the startup activations are
 * over, then clicks the Gateway AI icon in the activity bar, as a user does. The click loads and
 * activates the extension and resolves the chat view; the run ends at the chat's first paint.
 * The two entries differ only in one user setting, `remote.extensionKind` for the extension:
 * `["web"]` runs the host bundle (`dist/extension.js`, both `main` and `browser`) in the
 * workbench's web worker extension host (what the web tier does, and what VS Code for the Web
 * does), `["workspace"]` runs the same file in the server's Node extension host. Runs alternate between the two, so a burst of load on the machine
 * hits both alike.
 *
 * The signals, all taken where they happen:
 * - the click: the `pointerdown` event's own time stamp, in the workbench page;
 * - the chat's first paint: the browser's `first-contentful-paint` entry of the chat webview's
 *   document. Its body is an empty `<div id="app">`; the chat's script builds the header, the
 *   transcript and the composer in one task, so the first contentful frame is the one that shows
 *   the composer (checked: the composer is there when the entry is read);
 * - the bundle's load: for the browser entry, the web worker's request for the bundle as the
 *   browser's network stack timed it; for the Node entry, the extension host's log line
 *   `ExtensionService#_doActivateExtension gateway-ai.gateway-ai`, written just before it requires
 *   `dist/extension.js` (whole milliseconds, on the same machine's clock).
 *
 * The installed copy's manifest drops `onStartupFinished` (as the activation section's probe
 * does): with it the extension wakes a few seconds after startup on its own, and the click would
 * only show a view whose code is long loaded. Every other activation event, and every file, is
 * the one that ships. Each run checks which host activated the extension and on what event.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { openWorkbench } from '../test/e2e/workbench';
import { ensureVsCodeServer, installVsix } from '../test/launch/vscodeServer';
import { startGatewaySimulator } from '../test/simulator';
import type { GatewaySimulator } from '../test/simulator';
import {
  BROWSER_ENTRY,
  EXTENSION_ID,
  NODE_ENTRY,
  nodeHostActivations,
  recordBrowserRequests,
  webWorkbenchOptions,
} from '../test/web/webWorkbench';
import { extensionHostLog, startupActivationsDone } from './activationAsShown';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';
import { shippedExtension, vsixPath } from './size';

const RUNS = 3;
/** The host that runs the extension, as `remote.extensionKind` names it. */
const HOSTS = { node: 'workspace', browser: 'web' } as const;
type Host = keyof typeof HOSTS;
const PAINT_TIMEOUT_MS = 60_000;
const LOG_TIMEOUT_MS = 15_000;
/**
 * The browser entry may take this much longer than the Node entry from the click to the chat.
 * Both load the same webview the same way; what differs is the host: a web worker that fetches
 * and evaluates one bundle over HTTP from the server, against a Node process that requires it
 * from disk, on the same machine. Half again as long is the most that still reads as the same
 * product; more would mean the browser entry does work the Node one does not.
 */
const RATIO_GOAL = 1.5;

interface PaintRun {
  /** From the click on the activity bar icon to the chat's first paint. */
  clickToPaintMs: number;
  /** From the host loading the extension's bundle to the chat's first paint. */
  loadToPaintMs: number;
}

/** Wakes the installed copy on its own events only, not a few seconds after startup. */
function wakeOnlyOnUse(extensionsDir: string): void {
  const prefix = `${EXTENSION_ID}-`.toLowerCase();
  const folder = readdirSync(extensionsDir).find((name) => name.toLowerCase().startsWith(prefix));
  if (!folder) throw new Error(`${EXTENSION_ID} is not installed in ${extensionsDir}`);
  const file = path.join(extensionsDir, folder, 'package.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { activationEvents?: string[] };
  manifest.activationEvents = (manifest.activationEvents ?? []).filter(
    (event) => event !== 'onStartupFinished',
  );
  writeFileSync(file, JSON.stringify(manifest, null, 2));
}

/**
 * When the server's Node extension host began activating the extension (epoch ms), and on what
 * event, from its log (`2026-12-07 22:49:30.869 [info] ExtensionService#_doActivateExtension
 * <id>, startup: false, activationEvent: 'onView:…'`, local time).
 */
async function nodeActivationLogged(userDataDir: string): Promise<{ at: number; event: string }> {
  const id = EXTENSION_ID.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(
    `^(\\d{4})-(\\d\\d)-(\\d\\d) (\\d\\d):(\\d\\d):(\\d\\d)\\.(\\d{3}) \\[\\w+\\] ExtensionService#_doActivateExtension ${id}, .*activationEvent: '([^']*)'`,
    'm',
  );
  const deadline = Date.now() + LOG_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const log = extensionHostLog(userDataDir);
    const match = log ? line.exec(readFileSync(log, 'utf8')) : null;
    if (match) {
      const [year, month, day, hour, minute, second, ms] = match.slice(1, 8).map(Number);
      return { at: new Date(year, month - 1, day, hour, minute, second, ms).getTime(), event: match[8] };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the Node extension host logged no activation of ${EXTENSION_ID}`);
}

/** The chat webview's first contentful paint, epoch ms, once its composer is there. */
async function chatFirstPaint(frame: Frame): Promise<number> {
  // A function, not a string: the webview's CSP forbids eval. It runs in the page; this file is
  // compiled without the DOM's types.
  const handle = await frame.waitForFunction(
    () => {
      const page = globalThis as unknown as {
        performance: { timeOrigin: number; getEntriesByName(name: string): Array<{ startTime: number }> };
        document: { querySelector(selector: string): unknown };
      };
      const paint = page.performance.getEntriesByName('first-contentful-paint')[0];
      return paint && page.document.querySelector('.composer-input')
        ? page.performance.timeOrigin + paint.startTime
        : 0;
    },
    undefined,
    { timeout: PAINT_TIMEOUT_MS },
  );
  return handle.jsonValue();
}

/** One fresh server and browser: the extension in `host`, the chat opened once. */
async function measureOnce(sim: GatewaySimulator, host: Host, index: number): Promise<PaintRun> {
  const entry = ensureVsCodeServer();
  const browser = recordBrowserRequests();
  const workbench = await openWorkbench(
    webWorkbenchOptions(sim, {
      name: `bench-browser-entry-${host}-${index}`,
      extension: 'none',
      settings: { 'remote.extensionKind': { [EXTENSION_ID]: [HOSTS[host]] } },
      beforeStart: ({ extensionsDir, userDataDir }) => {
        installVsix(entry, vsixPath, extensionsDir, userDataDir);
        wakeOnlyOnUse(extensionsDir);
      },
      onPage: browser.onPage,
    }),
  );
  try {
    const { page } = workbench;
    const icon = page.locator('.activitybar [aria-label^="Gateway AI"]').first();
    await icon.waitFor({ timeout: PAINT_TIMEOUT_MS });
    await startupActivationsDone(workbench.server.userDataDir);
    await page.evaluate(`document.addEventListener('pointerdown', (event) => {
      globalThis.benchOpenedAt ??= performance.timeOrigin + event.timeStamp;
    }, { capture: true })`);
    await icon.click();
    const frame = await workbench.webviewFrame('.composer-input', PAINT_TIMEOUT_MS);
    const paintedAt = await chatFirstPaint(frame);
    const openedAt = await page.evaluate<number | undefined>('globalThis.benchOpenedAt');
    if (typeof openedAt !== 'number') throw new Error('the click on the Gateway AI icon was not seen');

    let loadedAt: number;
    const browserBundle = BROWSER_ENTRY && browser.requests.extensionFileRequest(BROWSER_ENTRY);
    if (host === 'browser') {
      if (!browserBundle) throw new Error(`the browser never loaded ${BROWSER_ENTRY ?? 'a browser entry'}`);
      loadedAt = browserBundle.timing().startTime;
      if (!(loadedAt > openedAt))
        throw new Error(`${BROWSER_ENTRY} was requested before the click: the click did not load it`);
      const node = nodeHostActivations(workbench.server.userDataDir);
      if (node.activated.includes(EXTENSION_ID))
        throw new Error(`the Node extension host activated ${EXTENSION_ID} too`);
    } else {
      if (browserBundle || browser.requests.loadedExtensionFile(NODE_ENTRY))
        throw new Error(`the browser loaded the extension's code: it did not run in the Node host`);
      const activation = await nodeActivationLogged(workbench.server.userDataDir);
      if (!activation.event.startsWith('onView:'))
        throw new Error(`the Node host activated ${EXTENSION_ID} on ${activation.event}, not on its view`);
      loadedAt = activation.at;
    }
    return { clickToPaintMs: round(paintedAt - openedAt, 1), loadToPaintMs: round(paintedAt - loadedAt, 1) };
  } finally {
    await workbench.close();
  }
}

export async function benchBrowserEntry(): Promise<SectionResult> {
  // The .vsix the size section measured, packaged once per bench run.
  shippedExtension();
  const sim = await startGatewaySimulator();
  const runs: Record<Host, PaintRun[]> = { node: [], browser: [] };
  try {
    for (let index = 0; index < RUNS; index++)
      for (const host of ['node', 'browser'] as const) runs[host].push(await measureOnce(sim, host, index));
  } finally {
    await sim.close();
  }

  const medianOf = (host: Host, key: keyof PaintRun) => median(runs[host].map((run) => run[key]));
  const list = (host: Host, key: keyof PaintRun) =>
    `[${runs[host].map((run) => run[key].toFixed(0)).join(', ')}]`;
  const nodePeer = 'the Node entry, same run';
  const pair = (key: keyof PaintRun, what: string): BenchRow[] => {
    const node = medianOf('node', key);
    const browser = medianOf('browser', key);
    return [
      { name: `${what}, Node entry (server extension host)`, value: node, unit: 'ms' },
      {
        name: `${what}, browser entry (web worker host)`,
        value: browser,
        unit: 'ms',
        peer: nodePeer,
        goal: `≤ ${RATIO_GOAL}× the Node entry`,
        ratio: round(browser / node, 3),
        met: browser <= RATIO_GOAL * node,
      },
    ];
  };

  return {
    rows: [
      ...pair('clickToPaintMs', 'chat view opened → first paint'),
      ...pair('loadToPaintMs', 'bundle load → chat first paint'),
    ],
    notes: [
      `browser entry: ${RUNS} fresh code-servers per entry, alternating, .vsix installed, activated by opening the ` +
        `Gateway AI view; opened → first paint: Node ${list('node', 'clickToPaintMs')}, browser ${list('browser', 'clickToPaintMs')} ms; ` +
        `bundle load → first paint: Node ${list('node', 'loadToPaintMs')}, browser ${list('browser', 'loadToPaintMs')} ms`,
      `browser entry: the load is the browser's request for ${BROWSER_ENTRY} or the extension host log line that starts ` +
        "the activation (Node); the paint is the chat webview's first-contentful-paint; onStartupFinished is left out " +
        'of the installed manifest so that the click is what loads the code',
    ],
  };
}
