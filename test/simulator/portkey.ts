/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, from npm) run as a child process on
 * loopback, in front of an OpenAI-shaped upstream (the simulator): a real third-party gateway that
 * nobody here wrote, for the tests of "every gateway people run".
 *
 * Portkey needs `x-portkey-provider` (and `x-portkey-custom-host` for a self-hosted upstream) on
 * every request; `headersFor()` gives them, as a user would put them into the extra-headers
 * setting. It passes `Authorization` on to the upstream and drops body fields it does not know.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../launch/paths';

export interface PortkeyGateway {
  /** The base URL a user would paste: `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly origin: string;
  /** The headers Portkey needs to reach the upstream. */
  readonly headers: Readonly<Record<string, string>>;
  /** What the gateway printed so far (for a failing test's message). */
  output(): string;
  close(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;

/**
 * Starts Portkey with `upstream` (an OpenAI-shaped base URL ending in `/v1`, e.g. the simulator's
 * `${sim.baseUrl}/v1`) as its custom host. Resolves once it listens.
 */
export async function startPortkey(upstream: string): Promise<PortkeyGateway> {
  const entry = require.resolve('@portkey-ai/gateway/build/start-server.js', { paths: [repoRoot] });
  const preload = path.join(repoRoot, 'test', 'fixtures', 'portkey', 'preload.mjs');
  // The extension host's own Node runs it in the integration tier; plain Node in the unit tier.
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(preload).href, entry, '--port=0', '--headless'],
    {
      cwd: path.dirname(entry),
      env: { ...process.env, NODE_ENV: 'production', ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let printed = '';
  const keep = (chunk: Buffer): void => {
    printed = (printed + chunk.toString('utf8')).slice(-64_000);
  };
  child.stdout?.on('data', keep);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`Portkey did not start within ${STARTUP_TIMEOUT_MS} ms:\n${printed}`)),
      STARTUP_TIMEOUT_MS,
    );
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      fail(new Error(`Portkey exited (${code ?? signal}) before it listened:\n${printed}`)),
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      keep(chunk);
      const match = /portkey-listening (\d+)/.exec(printed);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(Number(match[1]));
      }
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream },
    output: () => printed,
    close: () => stop(child),
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
