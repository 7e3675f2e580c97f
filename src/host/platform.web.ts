/**
 * VS Code for the Web (vscode.dev, github.dev): no processes, so no terminal commands, no stdio
 * MCP servers and no git. See `platform.ts`.
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
  kind: 'web',
  commands: false,
  stdioMcp: false,
  gitCheckpoints: false,
};
