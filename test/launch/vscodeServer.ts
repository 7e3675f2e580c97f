/**
 * Starts the VS Code server build (code-server, which embeds VS Code) on loopback, offline, for
 * the integration and end-to-end tests and the browser demo.
 */
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { MissingDependencyError } from './chromium';
import { repoRoot } from './paths';
import { freePort } from './ports';

export { freePort } from './ports';

export interface VsCodeServer {
  readonly port: number;
  readonly origin: string;
  readonly version: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** The workbench URL; with `payload` it loads a development extension and/or a test suite. */
  workbenchUrl(options: { folder: string; developmentPath?: string; testsPath?: string }): string;
  stop(): Promise<void>;
}

/** code-server 4.100.3 = VS Code 1.100.3, the oldest VS Code the extension supports (`engines.vscode`). */
export const DEFAULT_CODE_SERVER = '4.100.3';
/** code-server 4.139.1 = VS Code 1.139.1 (on Node 24): the language-model provider API and the built-in chat. */
export const NEWEST_CODE_SERVER = '4.139.1';

export interface StartOptions {
  /** Which code-server (and so which VS Code) to run; default DEFAULT_CODE_SERVER. */
  codeServerVersion?: string;
  /** A fresh folder for the server's user data (settings go to `User/settings.json`). */
  userDataDir: string;
  extensionsDir: string;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  /**
   * Write only `settings`, not the harness's quieter defaults (no telemetry, no welcome page, VS
   * Code's AI features off): a profile as a new user's starts.
   */
  vscodeDefaults?: boolean;
  /** Extra environment for the server and its extension host. */
  env?: NodeJS.ProcessEnv;
  port?: number;
  /** Echo the server's output (for the demo). */
  verbose?: boolean;
  /**
   * Workspace trust on, as VS Code ships it (the harness turns it off): a folder opens in
   * Restricted Mode until it is trusted, and no trust prompt is shown at start-up.
   */
  workspaceTrust?: boolean;
}

/**
 * Runs the setup script for that code-server version (cached after the first run, one folder per
 * version) and returns the server's entry.js. VSCODE_SERVER_ENTRY overrides the default version.
 */
export function ensureVsCodeServer(version = DEFAULT_CODE_SERVER): string {
  const override = version === DEFAULT_CODE_SERVER ? process.env.VSCODE_SERVER_ENTRY : undefined;
  if (process.platform !== 'linux' && !override) {
    throw new MissingDependencyError(
      'The offline VS Code server runner is set up for Linux only; use npm run test:electron elsewhere.',
    );
  }
  if (override) return override;
  try {
    const out = execFileSync('bash', [path.join(repoRoot, 'scripts', 'setup-vscode-server.sh'), version], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return out.trim().split('\n').pop()!.trim();
  } catch {
    throw new MissingDependencyError(
      'Could not prepare the VS Code server (see the [vscode-server] lines above).',
    );
  }
}

/**
 * The Node that runs this server: the one the setup script fetched beside it (Node 24 for
 * code-server 4.139), or else this process's own.
 */
export function serverNode(entry: string): string {
  const own = path.resolve(path.dirname(entry), '..', '..', '..', 'node', 'bin', 'node');
  return existsSync(own) ? own : process.execPath;
}

export function vsCodeServerVersion(entry: string): string {
  const out = execFileSync(serverNode(entry), [entry, '--version'], { encoding: 'utf8' });
  const match = /with Code (\S+)/.exec(out);
  return match ? match[1] : out.split('\n')[0].trim();
}

/** Installs a .vsix into an extensions folder with the server's own CLI (the Marketplace path). */
export function installVsix(
  entry: string,
  vsixPath: string,
  extensionsDir: string,
  userDataDir: string,
): string {
  return execFileSync(
    serverNode(entry),
    [
      entry,
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      userDataDir,
      '--install-extension',
      vsixPath,
      '--force',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

export async function startVsCodeServer(options: StartOptions): Promise<VsCodeServer> {
  const entry = ensureVsCodeServer(options.codeServerVersion);
  const version = vsCodeServerVersion(entry);
  const port = options.port ?? (await freePort());
  mkdirSync(path.join(options.userDataDir, 'User'), { recursive: true });
  mkdirSync(options.extensionsDir, { recursive: true });
  const settings = options.vscodeDefaults
    ? { ...options.settings }
    : {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': false,
        'chat.disableAIFeatures': true,
        // Test and demo workspaces live inside this repository; don't offer to open it.
        'git.openRepositoryInParentFolders': 'never',
        ...(options.workspaceTrust
          ? {
              'security.workspace.trust.enabled': true,
              'security.workspace.trust.startupPrompt': 'never',
              'security.workspace.trust.banner': 'never',
            }
          : {}),
        ...options.settings,
      };
  writeFileSync(path.join(options.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

  const child: ChildProcess = spawn(
    serverNode(entry),
    [
      entry,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir',
      options.userDataDir,
      '--extensions-dir',
      options.extensionsDir,
    ],
    { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );

  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`The VS Code server did not start within 60 s. Its output:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (options.verbose) process.stderr.write(text);
      if (text.includes('HTTP server listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The VS Code server exited (${code}) before it was ready. Its output:\n${output}`));
    });
  });
  if (!options.verbose) {
    child.stdout!.resume();
    child.stderr!.resume();
  }

  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    version,
    userDataDir: options.userDataDir,
    extensionsDir: options.extensionsDir,
    workbenchUrl({ folder, developmentPath, testsPath }) {
      const payload: Array<[string, string]> = [];
      if (developmentPath)
        payload.push(['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${developmentPath}`]);
      if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://127.0.0.1:${port}${testsPath}`]);
      const query =
        `folder=${encodeURIComponent(folder)}` +
        (payload.length ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : '');
      return `${origin}/?${query}`;
    },
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
        }, 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}

export function ensureDir(dir: string): string {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * From VS Code 1.139 on, a built workbench ignores the URL `payload` (extensionDevelopmentPath,
 * extensionTestsPath) unless its smoke-test driver is enabled, and code-server has no flag for
 * that. This turns it on for one page: the configuration the server embeds in the workbench's
 * HTML gets `developmentOptions.enableSmokeTestDriver` as the workbench reads it. (Rewriting the
 * HTML response instead makes Chromium treat the page as non-local and block its WebSocket to
 * 127.0.0.1.) Test harness only: nothing on disk changes.
 */
export async function allowDevelopmentPayload(page: Page, server: VsCodeServer): Promise<void> {
  if (/^1\.100\./.test(server.version)) return; // 1.100 reads the payload as it is.
  // A string, not a function: this file is compiled without the DOM's types.
  await page.addInitScript({
    content: `(() => {
      const getAttribute = Element.prototype.getAttribute;
      Element.prototype.getAttribute = function (name) {
        const value = getAttribute.call(this, name);
        if (name !== 'data-settings' || this.id !== 'vscode-workbench-web-configuration' || !value) return value;
        const config = JSON.parse(value);
        config.developmentOptions = { ...config.developmentOptions, enableSmokeTestDriver: true };
        return JSON.stringify(config);
      };
    })();`,
  });
}
