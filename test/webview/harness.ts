/**
 * Runs the chat webview in headless Chromium, outside VS Code: a loopback HTTP server serves the
 * real page (built by the webview shell's `renderPage`, with its CSP) and the built `dist/` and `media/` files,
 * and a stand-in for `acquireVsCodeApi` records what the webview posts. Tests deliver host
 * messages as `message` events, the way VS Code does.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHAT_PAGE, createNonce, renderPage } from '../../src/host/webview/webviewShell';
import type { HostMessage, Turn, WebviewMessage } from '../../src/core/protocol/chatProtocol';
import { chromiumPath, launchChromium, MissingDependencyError } from '../launch/chromium';
/** From out/test/webview back to the repository. */
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const SERVED_FOLDERS = ['dist', 'media'];
/** Longest a `send` waits for the transcript to finish rendering what it was sent. */
const SETTLE_TIMEOUT_MS = 30_000;
/**
 * What is left to render: the transcript says it is behind, or a closed code block awaits its
 * colours (`HIGHLIGHT_PENDING_CLASS` of src/webview/highlight.ts, which this build cannot import).
 */
const UNSETTLED = '.transcript[aria-busy="true"], .transcript .hl-pending';
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Colours of VS Code's Dark Modern theme, so pages look as they would in the editor. */
const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    variables: {
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-font-weight': 'normal',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-editor-font-size': '13px',
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-errorForeground': '#f85149',
      '--vscode-focusBorder': '#0078d4',
      '--vscode-icon-foreground': '#cccccc',
      '--vscode-sideBar-background': '#181818',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-input-background': '#313131',
      '--vscode-input-foreground': '#cccccc',
      '--vscode-input-border': '#3c3c3c',
      '--vscode-input-placeholderForeground': '#989898',
      '--vscode-button-background': '#0078d4',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-hoverBackground': '#026ec1',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-button-secondaryHoverBackground': '#3c3c3c',
      '--vscode-toolbar-hoverBackground': 'rgba(90, 93, 94, 0.31)',
      '--vscode-textCodeBlock-background': '#2b2b2b',
      '--vscode-textLink-foreground': '#4daafc',
      '--vscode-textLink-activeForeground': '#4daafc',
      '--vscode-textPreformat-foreground': '#d0d0d0',
      '--vscode-textBlockQuote-border': '#616161',
      '--vscode-textBlockQuote-background': '#2b2b2b',
      '--vscode-widget-border': '#313131',
      '--vscode-list-hoverBackground': '#2a2d2e',
      '--vscode-list-inactiveSelectionBackground': '#37373d',
      '--vscode-inputValidation-errorBorder': '#be1100',
      '--vscode-inputValidation-errorBackground': '#5a1d1d',
      '--vscode-debugTokenExpression-name': '#c586c0',
      '--vscode-debugTokenExpression-string': '#ce9178',
      '--vscode-debugTokenExpression-number': '#b5cea8',
      '--vscode-symbolIcon-functionForeground': '#b180d7',
      '--vscode-symbolIcon-variableForeground': '#75beff',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    variables: {
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#3b3b3b',
      '--vscode-errorForeground': '#f85149',
      '--vscode-focusBorder': '#005fb8',
      '--vscode-sideBar-background': '#f8f8f8',
      '--vscode-input-background': '#ffffff',
      '--vscode-input-border': '#cecece',
      '--vscode-button-background': '#005fb8',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-textCodeBlock-background': '#f2f2f2',
      '--vscode-textLink-foreground': '#005fb8',
    },
  },
} as const;

export type HarnessTheme = keyof typeof THEMES;

export function themeStylesheet(theme: HarnessTheme): string {
  const declarations = Object.entries(THEMES[theme].variables)
    .map(([name, value]) => `  ${name}: ${value};`)
    .join('\n');
  const background = theme === 'dark' ? '#181818' : '#f8f8f8';
  return `:root {\n${declarations}\n}\nbody { background: ${background}; }\n`;
}

/** Stands in for VS Code's `acquireVsCodeApi`; runs in the page before the bundle. */
function fakeVsCodeApiScript(savedState: unknown): string {
  return `(() => {
  const posted = [];
  let state = ${JSON.stringify(savedState ?? null)} ?? undefined;
  let acquired = false;
  window.__posted = posted;
  window.__savedState = () => state;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (message) => { posted.push(JSON.parse(JSON.stringify(message))); },
      getState: () => state,
      setState: (next) => { state = JSON.parse(JSON.stringify(next)); return next; },
    });
  };
})();`;
}

/**
 * What tests read from the page. Callbacks passed to `page.evaluate` are serialized and run in
 * the browser, so each one names `globalThis` itself rather than calling a helper from here.
 */
interface PageGlobals {
  __posted: WebviewMessage[];
  __savedState(): unknown;
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  addEventListener(type: 'message', listener: () => void): void;
  removeEventListener(type: 'message', listener: () => void): void;
  document: {
    querySelectorAll(selector: string): { length: number };
    querySelector(selector: string): unknown;
  };
}

export function assertChromiumInstalled(): void {
  try {
    chromiumPath();
  } catch (error) {
    if (!(error instanceof MissingDependencyError)) throw error;
    const missing = new MissingDependencyError(
      'Chromium is needed for the webview tests: apt-get install -y chromium',
    );
    // Reporters print the stack: a missing package needs the one line, not a trace.
    missing.stack = missing.message;
    throw missing;
  }
}

function assertBundleBuilt(): void {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'webview.js'))) {
    throw new Error('The webview bundle is missing: run `node esbuild.mjs` first.');
  }
}

interface PageServer {
  origin: string;
  close(): Promise<void>;
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/** Serves `/chat.html?theme=…`, `/theme/<name>.css` and files under dist/ and media/. */
async function startPageServer(): Promise<PageServer> {
  let origin = '';
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname === '/chat.html') {
      const theme: HarnessTheme = url.searchParams.get('theme') === 'light' ? 'light' : 'dark';
      const page = renderPage(CHAT_PAGE, {
        cspSource: origin,
        nonce: createNonce(),
        resource: (relativePath) => `${origin}/${relativePath}`,
      })
        .replace('</head>', `<link rel="stylesheet" href="${origin}/theme/${theme}.css">\n</head>`)
        .replace('<body>', `<body class="${THEMES[theme].bodyClass}">`);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    if (url.pathname === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    const themeMatch = /^\/theme\/(dark|light)\.css$/.exec(url.pathname);
    if (themeMatch) {
      response
        .writeHead(200, { 'content-type': CONTENT_TYPES['.css'] })
        .end(themeStylesheet(themeMatch[1] as HarnessTheme));
      return;
    }
    const file = path.normalize(path.join(REPO_ROOT, decodeURIComponent(url.pathname)));
    const inServedFolder = SERVED_FOLDERS.some((folder) =>
      file.startsWith(path.join(REPO_ROOT, folder) + path.sep),
    );
    if (!inServedFolder || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(response);
  });
  origin = await listen(server);
  return { origin, close: () => closeServer(server) };
}

/** A server that only counts requests: anything the page fetches from it is a leak. */
export interface CountingServer {
  origin: string;
  requests(): string[];
  close(): Promise<void>;
}

export async function startCountingServer(): Promise<CountingServer> {
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.url ?? '');
    response.writeHead(204).end();
  });
  const origin = await listen(server);
  return { origin, requests: () => [...seen], close: () => closeServer(server) };
}

export interface OpenPageOptions {
  /** What `getState()` returns, as if the view had been hidden and shown again. */
  savedState?: unknown;
  theme?: HarnessTheme;
  viewport?: { width: number; height: number };
}

export interface StreamOptions {
  /** Characters per `turnDelta` message. */
  charsPerDelta?: number;
  /** Messages posted before waiting for the next animation frame. */
  deltasPerFrame?: number;
}

export interface ChatPage {
  page: Page;
  origin: string;
  /** Everything the webview posted so far. */
  posted(): Promise<WebviewMessage[]>;
  clearPosted(): Promise<void>;
  /**
   * Waits until the webview has posted a message of `type` (and, if given, with these field
   * values), and returns the first such.
   */
  waitForPosted<T extends WebviewMessage['type']>(
    type: T,
    fields?: Partial<Extract<WebviewMessage, { type: T }>>,
    timeoutMs?: number,
  ): Promise<Extract<WebviewMessage, { type: T }>>;
  /**
   * Delivers a host message (a `HostMessage`, or anything, to test validation) as a `message`
   * event, and resolves once it is handled and everything it brought is rendered.
   */
  send(message: unknown): Promise<void>;
  /**
   * Posts `text` as many `turnDelta`s, paced by animation frames, entirely inside the page, and
   * resolves once the last one is handled and rendered.
   */
  streamText(turnId: string, text: string, options?: StreamOptions): Promise<void>;
  /** Waits until `selector` matches exactly `count` elements. */
  waitForCount(selector: string, count: number, timeoutMs?: number): Promise<void>;
  /** Resolves after the page has rendered two more frames. */
  nextFrames(count?: number): Promise<void>;
  savedState(): Promise<unknown>;
  /** Uncaught exceptions and console errors seen in the page. */
  errors(): string[];
  close(): Promise<void>;
}

export interface ChatHarness {
  browser: Browser;
  origin: string;
  openPage(options?: OpenPageOptions): Promise<ChatPage>;
  close(): Promise<void>;
}

async function openPage(browser: Browser, origin: string, options: OpenPageOptions): Promise<ChatPage> {
  const context: BrowserContext = await browser.newContext({
    viewport: options.viewport ?? { width: 420, height: 720 },
  });
  // Fail fast: a missing element should not cost the whole mocha timeout.
  context.setDefaultTimeout(5_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.addInitScript({ content: fakeVsCodeApiScript(options.savedState) });
  await page.goto(`${origin}/chat.html?theme=${options.theme ?? 'dark'}`);

  const chatPage: ChatPage = {
    page,
    origin,
    posted: () => page.evaluate(() => (globalThis as unknown as PageGlobals).__posted.slice()),
    clearPosted: () => page.evaluate(() => void (globalThis as unknown as PageGlobals).__posted.splice(0)),
    async waitForPosted(type, fields = {}, timeoutMs = 5000) {
      const handle = await page.waitForFunction(
        ({ wanted, valuesJson }) => {
          const values = Object.entries(JSON.parse(valuesJson) as Record<string, unknown>);
          return (globalThis as unknown as PageGlobals).__posted.find(
            (message) =>
              message.type === wanted &&
              values.every(
                ([key, value]) =>
                  JSON.stringify((message as unknown as Record<string, unknown>)[key]) ===
                  JSON.stringify(value),
              ),
          );
        },
        { wanted: String(type), valuesJson: JSON.stringify(fields) },
        { timeout: timeoutMs },
      );
      return (await handle.jsonValue()) as never;
    },
    // Resolves once the webview has handled the message, painted twice and rendered everything it
    // holds (the transcript's aria-busy is off), so a test reads the DOM after the update instead
    // of racing the frames and idle time that rendering is spread over (longer on a busy machine).
    send: (message) =>
      page.evaluate(
        async ({ data, settleMs, unsettled }) => {
          const globals = globalThis as unknown as PageGlobals;
          await new Promise<void>((resolve) => {
            // Registered after the webview's own listener, so it runs after it for this message.
            const handled = () => {
              globals.removeEventListener('message', handled);
              resolve();
            };
            globals.addEventListener('message', handled);
            globals.postMessage(data, '*');
          });
          const frame = () => new Promise<void>((resolve) => globals.requestAnimationFrame(() => resolve()));
          for (let count = 0; count < 2; count++) await frame();
          const until = performance.now() + settleMs;
          while (globals.document.querySelector(unsettled)) {
            if (performance.now() > until)
              throw new Error(`the transcript still renders after ${settleMs} ms`);
            await frame();
          }
        },
        {
          data: message,
          settleMs: SETTLE_TIMEOUT_MS,
          unsettled: UNSETTLED,
        },
      ),
    streamText: (turnId, text, streamOptions = {}) =>
      page.evaluate(
        async ({ id, body, charsPerDelta, deltasPerFrame, settleMs, unsettled }) => {
          const globals = globalThis as unknown as PageGlobals;
          const frame = () => new Promise<void>((resolve) => globals.requestAnimationFrame(() => resolve()));
          let sentInFrame = 0;
          for (let offset = 0; offset < body.length; offset += charsPerDelta) {
            const delta = { type: 'turnDelta', id, content: body.slice(offset, offset + charsPerDelta) };
            if (offset + charsPerDelta >= body.length) {
              // The last one: wait until the webview has handled it (this listener runs after its own).
              await new Promise<void>((resolve) => {
                const handled = () => {
                  globals.removeEventListener('message', handled);
                  resolve();
                };
                globals.addEventListener('message', handled);
                globals.postMessage(delta, '*');
              });
            } else globals.postMessage(delta, '*');
            if (++sentInFrame >= deltasPerFrame) {
              sentInFrame = 0;
              await frame();
            }
          }
          // Then until everything received is rendered, as `send` does.
          const until = performance.now() + settleMs;
          while (globals.document.querySelector(unsettled)) {
            if (performance.now() > until)
              throw new Error(`the transcript still renders after ${settleMs} ms`);
            await frame();
          }
        },
        {
          id: turnId,
          body: text,
          charsPerDelta: streamOptions.charsPerDelta ?? 64,
          deltasPerFrame: streamOptions.deltasPerFrame ?? 16,
          settleMs: SETTLE_TIMEOUT_MS,
          unsettled: UNSETTLED,
        },
      ),
    async waitForCount(selector, count, timeoutMs = 10_000) {
      await page.waitForFunction(
        ({ css, wanted }) =>
          (globalThis as unknown as PageGlobals).document.querySelectorAll(css).length === wanted,
        { css: selector, wanted: count },
        { timeout: timeoutMs },
      );
    },
    nextFrames: (count = 2) =>
      page.evaluate(async (frames) => {
        for (let index = 0; index < frames; index++) {
          await new Promise<void>((resolve) =>
            (globalThis as unknown as PageGlobals).requestAnimationFrame(() => resolve()),
          );
        }
      }, count),
    savedState: () => page.evaluate(() => (globalThis as unknown as PageGlobals).__savedState()),
    errors: () => [...errors],
    close: () => context.close(),
  };
  return chatPage;
}

/** One browser and page server, for many pages (one per test). */
export async function launchChatHarness(): Promise<ChatHarness> {
  assertChromiumInstalled();
  assertBundleBuilt();
  const server = await startPageServer();
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    browser,
    origin: server.origin,
    openPage: (options = {}) => openPage(browser, server.origin, options),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** A single page with its own browser; `close()` shuts everything down. */
export async function openChatHarness(options: OpenPageOptions = {}): Promise<ChatPage> {
  const harness = await launchChatHarness();
  const chatPage = await openPage(harness.browser, harness.origin, options);
  return { ...chatPage, close: () => harness.close() };
}

// ---- Message builders ---------------------------------------------------------------------

let nextId = 0;
export function uniqueId(prefix: string): string {
  return `${prefix}-${++nextId}`;
}

export function userTurn(content: string, id = uniqueId('user')): Turn {
  return { id, role: 'user', content, createdAt: Date.now() };
}

export function assistantTurn(
  content: string,
  fields: Partial<Extract<Turn, { role: 'assistant' }>> = {},
): Extract<Turn, { role: 'assistant' }> {
  return {
    id: uniqueId('assistant'),
    role: 'assistant',
    content,
    reasoning: '',
    status: 'complete',
    model: 'openai/gpt-4o-mini',
    createdAt: Date.now(),
    ...fields,
  };
}

export function initMessage(
  turns: Turn[],
  fields: Partial<Extract<HostMessage, { type: 'init' }>> = {},
): HostMessage {
  return {
    type: 'init',
    conversation: { id: 'conversation-1', title: 'Test conversation', turns },
    model: 'openai/gpt-4o-mini',
    hasApiKey: true,
    history: [],
    ...fields,
  };
}
