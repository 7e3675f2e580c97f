/** What a host can do (see platform.ts and its browser variant, platform.web.ts). */
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
