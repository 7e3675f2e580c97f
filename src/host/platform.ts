/**
 * What the host this build runs in can do: the Node extension host (desktop, remote, Codespaces).
 * The browser build (VS Code for the Web) takes `platform.web.ts` instead, by its file suffix (see
 * esbuild.mjs and tsconfig.web.json); both export the same names. Leaf modules that need Node
 * (processes, the file system by path, worker threads) have `.web.ts` variants of their own; this
 * module is for the few places where behaviour, not only an implementation, differs.
 */
import { setMaxListeners } from 'node:events';

export interface HostPlatform {
  /** `node` for the Node extension host, `web` for the browser's web worker extension host. */
  readonly kind: 'node' | 'web';
  /** Processes can run: the agent's terminal tool, `git`. */
  readonly commands: boolean;
  /** MCP servers started as local programs (stdio). */
  readonly stdioMcp: boolean;
  /** Checkpoints in a shadow git repository (otherwise snapshots through `workspace.fs`). */
  readonly gitCheckpoints: boolean;
}

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
