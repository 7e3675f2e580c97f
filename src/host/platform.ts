/**
 * What this extension host can do, for the few places where behaviour (not only a leaf
 * implementation) differs between the desktop (Node) host and VS Code for the Web. The browser
 * build picks `platform.web.ts` instead of this file.
 */
export interface HostPlatform {
  kind: 'node' | 'web';
  /** Terminal commands (the agent's `run_command`). */
  commands: boolean;
  /** MCP servers started as local processes (stdio). */
  stdioMcp: boolean;
  /** Checkpoints kept by a git process. */
  gitCheckpoints: boolean;
}

export const HOST_PLATFORM: HostPlatform = {
  kind: 'node',
  commands: true,
  stdioMcp: true,
  gitCheckpoints: true,
};
