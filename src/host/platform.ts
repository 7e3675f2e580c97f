/**
 * What the host can do: the Node extension host (desktop, remote, Codespaces). In VS Code for the
 * Web's web worker the bundle takes `platform.web.ts` instead (esbuild.mjs `hostVariants`, by
 * src/host/hostKind.ts; tsconfig.web.json type-checks that side); both export the same names.
 * Leaf modules that need Node (processes, the file system by path, worker threads) have `.web.ts`
 * variants of their own; this module is for the few places where behaviour, not only an
 * implementation, differs.
 */
import { setMaxListeners } from 'node:events';
import type { HostPlatform } from './platformKind';

export type { HostPlatform } from './platformKind';

export const HOST_PLATFORM: HostPlatform = {
  kind: 'node',
  commands: true,
  stdioMcp: true,
  gitCheckpoints: true,
};

/**
 * Lets up to `count` listeners wait on `signal` without Node's leak warning (one per download of a
 * media job, for instance); browsers have no such warning.
 */
export function allowListeners(signal: AbortSignal, count: number): void {
  setMaxListeners(count, signal);
}

/** The operating system, as Node names it (`win32`, `darwin`, `linux`, ...). */
export function osPlatform(): string {
  return process.platform;
}

/** A variable of the extension host's environment; a browser has none. */
export function environmentVariable(name: string): string | undefined {
  return process.env[name];
}
