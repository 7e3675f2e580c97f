/**
 * What this host can do, for the few places where behaviour (not just a leaf implementation)
 * differs between the desktop (Node) build and the browser build (`platform.web.ts`).
 */
export const HOST_PLATFORM: {
  kind: 'node' | 'web';
  commands: boolean;
  stdioMcp: boolean;
  gitCheckpoints: boolean;
} = { kind: 'node', commands: true, stdioMcp: true, gitCheckpoints: true };
