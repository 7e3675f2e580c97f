/**
 * The browser build's `mcpProgram.ts`: a web worker starts no program, has no PATH, no home folder
 * and no environment variables. Servers started as programs (stdio) are listed and refused by the
 * hub with the reason (see `HOST_PLATFORM.stdioMcp`), so nothing here is asked to start one.
 */
import type { McpLaunch, McpVariables, ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import type { McpProgram } from './mcpConsent';

export { mcpConsentKey, mcpDetail } from './mcpConsent';

/** Nothing is searched: there is no program to find. */
export type McpProgramSearch = Readonly<Record<string, never>>;

export function mcpProgramSearch(_workspaceFolders: readonly string[]): McpProgramSearch {
  return {};
}

/** A browser has no home folder and no environment: `${userHome}` stays as written, `${env:…}` is empty. */
export function hostMcpVariables(): Omit<McpVariables, 'workspaceFolder'> {
  return { env: {} };
}

/** No program is looked for (a stdio server is refused before it would be). */
export function mcpProgram(
  _server: ResolvedMcpServer,
  _cwd: string | undefined,
  _search: McpProgramSearch,
): Promise<McpProgram | undefined> {
  return Promise.resolve(undefined);
}

export function mcpLaunchOf(
  _launch: Extract<McpLaunch, { type: 'stdio' }>,
  _program: string,
  _search: McpProgramSearch,
): Extract<McpLaunch, { type: 'stdio' }> {
  throw new Error('a server started as a program (stdio) needs a desktop or remote window');
}

/** There are no processes: the connection is closed, nothing is left. */
export async function closeServerProcesses(
  _pid: number | undefined,
  close: () => Promise<void>,
): Promise<number> {
  await close();
  return 0;
}
