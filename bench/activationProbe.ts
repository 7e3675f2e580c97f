/**
 * Loaded by VS Code as `extensionTestsPath`, so it runs inside the real extension host, before
 * anything has activated Gateway AI. It times what a user pays when the extension wakes up and
 * writes it to the JSON file named by GATEWAY_BENCH_ACTIVATION_RESULT.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface ActivationProbeResult {
  /** Loading and evaluating dist/extension.js, ms. */
  bundleLoadMs?: number;
  /** The extension's own activate function, as VS Code calls it, ms. */
  ownActivateMs?: number;
  /** `await ext.activate()` through VS Code's activation path (bundle already loaded), ms. */
  activateMs?: number;
  /** How long the probe waited for the extension host to go quiet, ms. */
  settleMs: number;
  vscodeVersion: string;
  nodeVersion: string;
  error?: string;
}

const EXTENSION_ID = 'gateway-ai.gateway-ai';
const QUIET_TURN_MS = 2;
const QUIET_TURNS = 10;
const SETTLE_LIMIT_MS = 5_000;

/**
 * Waits until the extension host's event loop turns over promptly several times in a row. Right
 * after startup it is busy with built-in extensions; measuring then would time their work too.
 */
async function settle(): Promise<number> {
  const start = performance.now();
  let quiet = 0;
  while (quiet < QUIET_TURNS && performance.now() - start < SETTLE_LIMIT_MS) {
    const turn = performance.now();
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
    quiet = performance.now() - turn < 1 + QUIET_TURN_MS ? quiet + 1 : 0;
  }
  return performance.now() - start;
}

type ExtensionModule = {
  activate: (context: vscode.ExtensionContext) => unknown;
  deactivate?: () => unknown;
};

async function measure(result: ActivationProbeResult): Promise<void> {
  const profileFile = process.env.GATEWAY_BENCH_ACTIVATION_PROFILE;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const inspector = profileFile ? (require('node:inspector') as typeof import('node:inspector')) : undefined;
  const session = inspector ? new inspector.Session() : undefined;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session!.post(method, params, (error, value) => (error ? reject(error) : resolve(value))),
    );
  if (session) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 50 });
    await post('Profiler.start');
  }
  try {
    await measureOnce(result);
  } finally {
    if (session && profileFile) {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(profileFile, JSON.stringify(profile));
      session.disconnect();
    }
  }
}

async function measureOnce(result: ActivationProbeResult): Promise<void> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded in this extension host`);
  // Something activated it already (a restored view, an eager event): a timing now would be empty.
  if (ext.isActive) throw new Error(`${EXTENSION_ID} was already active before the probe ran`);
  const bundle = require.resolve(path.join(ext.extensionPath, 'dist', 'extension.js'));
  if (require.cache[bundle]) throw new Error('the bundle was already loaded before the probe ran');

  const loadStart = performance.now();
  // Deliberately a synchronous CommonJS load: it fills the module cache entry VS Code reuses below.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- timed load through Node's module cache
  const loaded = require(bundle) as ExtensionModule;
  result.bundleLoadMs = performance.now() - loadStart;

  // VS Code loads the extension through the same Node module cache, so it will get this entry.
  // Swapping in a timed activate separates the extension's own work from VS Code's around it.
  const cached = require.cache[bundle]!;
  const timed: ExtensionModule = {
    ...loaded,
    activate(context) {
      const start = performance.now();
      try {
        return loaded.activate(context);
      } finally {
        result.ownActivateMs = performance.now() - start;
      }
    },
  };
  cached.exports = timed;

  const activateStart = performance.now();
  await ext.activate();
  result.activateMs = performance.now() - activateStart;
  if (result.ownActivateMs === undefined)
    throw new Error('VS Code did not load the bundle through the Node module cache');
}

export async function run(): Promise<void> {
  const resultFile = process.env.GATEWAY_BENCH_ACTIVATION_RESULT;
  const result: ActivationProbeResult = {
    settleMs: 0,
    vscodeVersion: vscode.version,
    nodeVersion: process.version,
  };
  try {
    result.settleMs = await settle();
    await measure(result);
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  }
  if (resultFile) writeFileSync(resultFile, JSON.stringify(result));
  if (result.error) throw new Error(result.error);
}
