/**
 * The web tier's workbench: the .vsix this run built, installed into a fresh profile of
 * code-server 4.100.3 as for the e2e tier, but run from its `browser` entry in the workbench's
 * web worker extension host, as in VS Code for the Web (vscode.dev, github.dev).
 *
 * code-server would run an extension that has both `main` and `browser` in its Node extension
 * host; the user setting `remote.extensionKind` set to `["web"]` for the extension makes the
 * workbench run it in the web worker instead (its `main` then never activates on the server).
 * What shows that it did: the browser fetched the host bundle (`main` and `browser` are one file,
 * `dist/extension.js`); the gateway saw an `Origin` and CORS preflights (Node's fetch and undici send neither); the
 * server's extension host log lists the extensions it activated, and ours is not among them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { repoRoot } from '../launch/paths';
import type { GatewaySimulator } from '../simulator';
import type { WorkbenchOptions } from '../e2e/workbench';

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  main: string;
  browser?: string;
};

/** `<publisher>.<name>`, as `remote.extensionKind` and the extension host's log name it. */
export const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

/** The manifest's entries, without `./`: both are `dist/extension.js`, the one host bundle. */
export const NODE_ENTRY = manifest.main.replace(/^\.\//, '');
export const BROWSER_ENTRY = manifest.browser?.replace(/^\.\//, '');

/** Every request the browser made (the page, its frames and its workers), in order. */
export interface BrowserRequests {
  readonly urls: string[];
  /** Whether the browser loaded a file of the installed extension (`dist/extension.js`). */
  loadedExtensionFile(relativePath: string): boolean;
  /** The browser's first request for a file of the installed extension (its `timing()` included). */
  extensionFileRequest(relativePath: string): Request | undefined;
}

export function recordBrowserRequests(): { requests: BrowserRequests; onPage: (page: Page) => void } {
  const urls: string[] = [];
  const made: Request[] = [];
  const requests: BrowserRequests = {
    urls,
    loadedExtensionFile(relativePath) {
      return requests.extensionFileRequest(relativePath) !== undefined;
    },
    extensionFileRequest(relativePath) {
      // The workbench loads an installed extension's files from the server through
      // `vscode-remote-resource?path=<absolute path>`.
      const folder = `/${EXTENSION_ID}-`;
      return made.find((request) => {
        const url = new URL(request.url());
        const filePath = url.searchParams.get('path') ?? decodeURIComponent(url.pathname);
        return filePath.includes(folder) && filePath.endsWith(`/${relativePath}`);
      });
    },
  };
  return {
    requests,
    // The context sees the workers' requests too: the extension host runs in a web worker.
    onPage: (page) =>
      page.context().on('request', (request) => {
        urls.push(request.url());
        made.push(request);
      }),
  };
}

/** The web tier's workbench options: the gateway, the extension forced into the web worker host. */
export function webWorkbenchOptions(
  sim: GatewaySimulator,
  options: Omit<WorkbenchOptions, 'settings'> & { settings?: Record<string, unknown> },
): WorkbenchOptions {
  return {
    ...options,
    settings: {
      'remote.extensionKind': { [EXTENSION_ID]: ['web'] },
      'gateway.baseUrl': sim.baseUrl,
      'workbench.colorTheme': 'Default Dark Modern',
      ...options.settings,
    },
  };
}

/**
 * What the server's Node extension host logged as activated (`ExtensionService#_doActivateExtension
 * <id>` lines of `logs/<time>/exthost<n>/remoteexthost.log` under the server's user data).
 */
export function nodeHostActivations(userDataDir: string): { logs: string[]; activated: string[] } {
  const logs: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'remoteexthost.log') logs.push(full);
    }
  };
  walk(path.join(userDataDir, 'logs'));
  const activated = new Set<string>();
  for (const log of logs)
    for (const match of readFileSync(log, 'utf8').matchAll(/ExtensionService#_doActivateExtension (\S+?),/g))
      activated.add(match[1]);
  return { logs, activated: [...activated] };
}
