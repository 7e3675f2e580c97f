/**
 * The browser build's `platform.ts` (VS Code for the Web: vscode.dev, github.dev): a web worker
 * extension host with no processes and no file system but `workspace.fs`.
 */
import type { HostPlatform } from './platformKind';

export type { HostPlatform } from './platformKind';

export const HOST_PLATFORM: HostPlatform = {
  kind: 'web',
  commands: false,
  stdioMcp: false,
  gitCheckpoints: false,
};

/** Browsers warn about no number of listeners. */
export function allowListeners(_signal: AbortSignal, _count: number): void {}

/** A browser hides its operating system; `web` names none of Node's. */
export function osPlatform(): string {
  return 'web';
}

/** A browser has no environment variables. */
export function environmentVariable(_name: string): string | undefined {
  return undefined;
}
