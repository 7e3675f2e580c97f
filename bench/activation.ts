/**
 * Activation cost, measured where it is paid: inside the real extension host of the VS Code
 * server, with the extension unpacked from the .vsix (what ships). Each run gets a fresh server and a fresh user-data folder,
 * so no run inherits a warm extension host from the one before; the table shows the median.
 * ext.activate() includes VS Code's own work (building the extension's context), so the
 * extension's activate function is also timed on its own: that part is ours to keep small.
 *
 * GATEWAY_BENCH_ACTIVATION_PROFILE=1 also writes a CPU profile of the load and activation to each
 * run's folder (.test-work/bench/activation-N/activation.cpuprofile), for Chrome's DevTools.
 *
 * The peer for the bundle's load time is undici alone (the network stack our bundle must not
 * load eagerly), required fresh in a plain Node process on the same machine, same run.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/launch/chromium';
import { repoRoot, workRoot } from '../test/launch/paths';
import { startVsCodeServer } from '../test/launch/vscodeServer';
import type { ActivationProbeResult } from './activationProbe';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';
import { shippedExtension, vsixPath } from './size';
import { SHOWN, measureAsShown, packageEmptyExtension } from './activationAsShown';
import type { ShownKey, ShownRun } from './activationAsShown';

const RUNS = 5;
/** Plain Node processes are cheap (~0.2 s), so the peer gets more samples. */
const PEER_RUNS = 7;
const ACTIVATE_GOAL_MS = 5;
/** The goal for the figure VS Code shows in Developer: Show Running Extensions. */
const SHOWN_GOAL_MS = 15;
const RUN_TIMEOUT_MS = 120_000;

interface HostRun {
  bundleLoadMs: number;
  ownActivateMs: number;
  activateMs: number;
  vscodeVersion: string;
}

/** One fresh server, one page: returns what the probe measured inside the extension host. */
async function measureOnce(browser: Browser, extensionDir: string, index: number): Promise<HostRun> {
  const runDir = path.join(workRoot, 'bench', `activation-${index}`);
  rmSync(runDir, { recursive: true, force: true });
  const workspace = path.join(runDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const resultFile = path.join(runDir, 'probe.json');
  const probe = path.join(repoRoot, 'out', 'bench', 'activationProbe.js');

  const server = await startVsCodeServer({
    userDataDir: path.join(runDir, 'user-data'),
    extensionsDir: path.join(runDir, 'extensions'),
    env: {
      GATEWAY_BENCH_ACTIVATION_RESULT: resultFile,
      GATEWAY_BENCH_ACTIVATION_PROFILE:
        process.env.GATEWAY_BENCH_ACTIVATION_PROFILE && path.join(runDir, 'activation.cpuprofile'),
    },
  });
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext();
    const page = await context.newPage();
    // The workbench calls this when the tests entry's run() settles; it must exist before load.
    const exited = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(code));
    });
    await page.goto(
      server.workbenchUrl({ folder: workspace, developmentPath: extensionDir, testsPath: probe }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), RUN_TIMEOUT_MS);
    });
    const outcome = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      throw new Error(`activation run ${index + 1} did not finish within ${RUN_TIMEOUT_MS / 1000} s`);
    if (!existsSync(resultFile))
      throw new Error(`activation run ${index + 1}: the probe wrote no result (exit ${outcome})`);
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as ActivationProbeResult;
    const { bundleLoadMs, ownActivateMs, activateMs } = result;
    if (
      result.error ||
      bundleLoadMs === undefined ||
      ownActivateMs === undefined ||
      activateMs === undefined
    ) {
      throw new Error(`activation run ${index + 1}: ${result.error ?? 'incomplete result'}`);
    }
    return { bundleLoadMs, ownActivateMs, activateMs, vscodeVersion: result.vscodeVersion };
  } finally {
    await context?.close().catch(() => undefined);
    await server.stop();
  }
}

/**
 * Time to require a file or package fresh in a plain Node process, measured by that process.
 * `vscode` exists only inside the extension host, so here it is a do-nothing stand-in: the
 * bundle only defines classes and functions at load time and calls no API before activate().
 */
const PLAIN_NODE_LOADER = `
const Module = require('node:module');
const stub = new Proxy(function () {}, { get: (_, key) => (key === 'prototype' ? {} : stub), apply: () => stub, construct: () => stub });
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? stub : load.call(this, request, ...rest); };
const start = performance.now();
require(process.argv[1]);
process.stdout.write(String(performance.now() - start));
`;

function plainNodeRequireMs(target: string): number {
  const output = execFileSync(process.execPath, ['-e', PLAIN_NODE_LOADER, target], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  const ms = Number(output);
  if (!Number.isFinite(ms)) throw new Error(`could not time require(${target}): ${output}`);
  return ms;
}

/**
 * The shipped extension, unpacked, for the probe: the same files, but a manifest that waits for
 * the probe. `onStartupFinished` would wake the extension before the probe runs (the probe is the
 * tests entry, started after startup), leaving nothing to time; every other event stays, and the
 * bundle and its activate() are the ones that ship.
 */
function extensionForProbe(shipped: string): string {
  const copy = path.join(workRoot, 'bench', 'activation-extension');
  rmSync(copy, { recursive: true, force: true });
  cpSync(shipped, copy, { recursive: true });
  const manifestFile = path.join(copy, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { activationEvents?: string[] };
  manifest.activationEvents = (manifest.activationEvents ?? []).filter(
    (event) => event !== 'onStartupFinished',
  );
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  return copy;
}

export async function benchActivation(): Promise<SectionResult> {
  const extensionDir = extensionForProbe(shippedExtension());
  const bundle = path.join(extensionDir, 'dist', 'extension.js');

  const runs: HostRun[] = [];
  const browser = await launchChromium();
  try {
    for (let index = 0; index < RUNS; index++) runs.push(await measureOnce(browser, extensionDir, index));
  } finally {
    await browser.close().catch(() => undefined);
  }

  // What users see: a fresh server per run, the .vsix installed, the view container opened.
  const emptyVsix = packageEmptyExtension();
  const shownRuns: ShownRun[] = [];
  for (let index = 0; index < RUNS; index++) shownRuns.push(await measureAsShown(vsixPath, emptyVsix, index));
  const shown = (key: ShownKey) => median(shownRuns.map((run) => run[key]));
  const shownList = (key: ShownKey) => `[${shownRuns.map((run) => run[key]).join(', ')}]`;
  const ours = shown('ours');

  // Interleaved, so a burst of load on the machine hits both sides alike.
  const plainBundleRuns: number[] = [];
  const undiciRuns: number[] = [];
  for (let index = 0; index < PEER_RUNS; index++) {
    plainBundleRuns.push(plainNodeRequireMs(bundle));
    undiciRuns.push(plainNodeRequireMs('undici'));
  }

  const own = median(runs.map((run) => run.ownActivateMs));
  const total = median(runs.map((run) => run.activateMs));
  const hostLoad = median(runs.map((run) => run.bundleLoadMs));
  const plainLoad = median(plainBundleRuns);
  const undici = median(undiciRuns);
  const vsCodeShare = median(runs.map((run) => run.activateMs - run.ownActivateMs));
  const list = (values: number[]) => `[${values.map((value) => value.toFixed(1)).join(', ')}]`;
  const undiciPeer = 'require("undici") alone, fresh plain Node';

  const sameHost = (key: ShownKey, what: string): BenchRow => ({
    name: `  ${SHOWN[key]} (${what}), same host`,
    value: shown(key),
    unit: 'ms',
  });

  return {
    rows: [
      {
        name: 'activation as VS Code shows it (Running Extensions)',
        value: ours,
        unit: 'ms',
        goal: `≤ ${SHOWN_GOAL_MS} ms`,
        ratio: round(ours / SHOWN_GOAL_MS, 3),
        met: ours <= SHOWN_GOAL_MS,
      },
      sameHost('gitBase', 'built-in'),
      sameHost('autoAttach', 'built-in'),
      sameHost('mergeConflict', 'built-in'),
      sameHost('emptyPeer', 'an extension that does nothing'),
      {
        name: "activate(), the extension's own code",
        value: round(own, 2),
        unit: 'ms',
        goal: '< 5 ms',
        ratio: round(own / ACTIVATE_GOAL_MS, 3),
        met: own < ACTIVATE_GOAL_MS,
      },
      {
        name: "ext.activate() via VS Code's activation path",
        value: round(total, 2),
        unit: 'ms',
        goal: '< 5 ms',
        ratio: round(total / ACTIVATE_GOAL_MS, 3),
        met: total < ACTIVATE_GOAL_MS,
      },
      {
        name: 'bundle load + evaluate, extension host',
        value: round(hostLoad, 2),
        unit: 'ms',
        peer: undiciPeer,
        ratio: round(hostLoad / undici, 3),
      },
      {
        name: 'bundle load + evaluate, fresh plain Node',
        value: round(plainLoad, 2),
        unit: 'ms',
        peer: undiciPeer,
        ratio: round(plainLoad / undici, 3),
      },
      { name: undiciPeer, value: round(undici, 2), unit: 'ms' },
    ],
    notes: [
      `activation as shown (code loading + activate() call, whole ms), ${RUNS} fresh servers, .vsix installed, ` +
        `Gateway AI view container opened: ours ${shownList('ours')}, Git Base ${shownList('gitBase')}, ` +
        `Node Debug Auto-attach ${shownList('autoAttach')}, Merge Conflict ${shownList('mergeConflict')}, ` +
        `empty extension ${shownList('emptyPeer')} ms (the built-ins activate at startup, ours on opening its view, the empty one on a command of its own)`,
      `activation: VS Code ${runs[0]?.vscodeVersion ?? '?'} server extension host, ${RUNS} fresh servers, each measured once its event loop was quiet; ` +
        `own activate() ${list(runs.map((run) => run.ownActivateMs))} ms, ext.activate() ${list(runs.map((run) => run.activateMs))} ms, ` +
        `bundle load ${list(runs.map((run) => run.bundleLoadMs))} ms`,
      `activation: of ext.activate(), a median ${vsCodeShare.toFixed(1)} ms is VS Code's own work around the call ` +
        '(mostly waiting for the extension context, whose storage comes from the workbench over its connection)',
      `activation: plain Node, interleaved: our bundle ${list(plainBundleRuns)} ms, undici alone ${list(undiciRuns)} ms`,
    ],
  };
}
