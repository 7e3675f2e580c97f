/**
 * The browser build's host: no processes (no terminal commands, no stdio MCP servers, no git).
 */
export const HOST_PLATFORM: {
  kind: 'node' | 'web';
  commands: boolean;
  stdioMcp: boolean;
  gitCheckpoints: boolean;
} = { kind: 'web', commands: false, stdioMcp: false, gitCheckpoints: false };
