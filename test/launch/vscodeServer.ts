/**
 * Starts the VS Code server build (code-server, which embeds VS Code) on loopback, offline, for
 * the integration and end-to-end tests and the browser demo.
 */
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { MissingDependencyError } from './chromium';
import { repoRoot } from './paths';

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

export interface StartOptions {
  /** A fresh folder for the server's user data (settings go to `User/settings.json`). */
  userDataDir: string;
  extensionsDir: string;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  /** Extra environment for the server and its extension host. */
  env?: NodeJS.ProcessEnv;
  port?: number;
  /** Echo the server's output (for the demo). */
  verbose?: boolean;
}

/** Runs the setup script (cached after the first run) and returns the server's entry.js. */
export function ensureVsCodeServer(): string {
  if (process.platform !== 'linux' && !process.env.VSCODE_SERVER_ENTRY) {
    throw new MissingDependencyError(
      'The offline VS Code server runner is set up for Linux only; use npm run test:electron elsewhere.',
    );
  }
  if (process.env.VSCODE_SERVER_ENTRY) return process.env.VSCODE_SERVER_ENTRY;
  try {
    const out = execFileSync('bash', [path.join(repoRoot, 'scripts', 'setup-vscode-server.sh')], {
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

export function vsCodeServerVersion(entry: string): string {
  const out = execFileSync(process.execPath, [entry, '--version'], { encoding: 'utf8' });
  const match = /with Code (\S+)/.exec(out);
  return match ? match[1] : out.split('\n')[0].trim();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Installs a .vsix into an extensions folder with the server's own CLI (the Marketplace path). */
export function installVsix(
  entry: string,
  vsixPath: string,
  extensionsDir: string,
  userDataDir: string,
): string {
  return execFileSync(
    process.execPath,
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
  const entry = ensureVsCodeServer();
  const version = vsCodeServerVersion(entry);
  const port = options.port ?? (await freePort());
  mkdirSync(path.join(options.userDataDir, 'User'), { recursive: true });
  mkdirSync(options.extensionsDir, { recursive: true });
  const settings = {
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
    ...options.settings,
  };
  writeFileSync(path.join(options.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

  const child: ChildProcess = spawn(
    process.execPath,
    [
      entry,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-workspace-trust',
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
