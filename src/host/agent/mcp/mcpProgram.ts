/**
 * What a stdio MCP server's start runs, decided before the user is asked: its command found as an
 * absolute path outside the workspace (`resolveProgram`), and the environment the process gets
 * (PATH without the workspace; on Windows, no lookup in the working folder); the variables a
 * configuration may name; and, when a server stops, the processes it left. No `vscode` here, so
 * the Windows rules are tested on any machine. The browser build, which starts no program, has
 * `mcpProgram.web.ts`.
 */
import * as os from 'node:os';
import type { McpLaunch, McpVariables, ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import {
  childPath,
  envValue,
  hostProgramSearch,
  NO_CURRENT_FOLDER_LOOKUP,
  resolveProgram,
} from '../../programPath';
import type { ProgramResolution, ProgramSearch } from '../../programPath';
import { descendantLevels, isAlive, killTree } from '../processTree';

export { mcpConsentKey, mcpDetail } from './mcpConsent';

/** Where a stdio command is looked for. */
export type McpProgramSearch = ProgramSearch;

/** This process's PATH and file system, with the workspace's folders never searched. */
export const mcpProgramSearch: (workspaceFolders: readonly string[]) => McpProgramSearch = hostProgramSearch;

/** `${userHome}` and `${env:…}` as this host has them. */
export function hostMcpVariables(): Omit<McpVariables, 'workspaceFolder'> {
  return { userHome: os.homedir(), env: process.env };
}

/** The program a server's start runs, or undefined for a server reached by URL. */
export async function mcpProgram(
  server: ResolvedMcpServer,
  cwd: string | undefined,
  search: McpProgramSearch,
): Promise<ProgramResolution | undefined> {
  if (server.launch.type !== 'stdio') return undefined;
  const found = await resolveProgram(server.launch.command, search, cwd);
  return found.ok
    ? found
    : { ok: false, reason: `It cannot start: ${found.reason.replace(/^./, (c) => c.toLowerCase())}` };
}

/**
 * The launch that runs: the program by its absolute path, and an environment whose PATH leaves out
 * the workspace (unless the configuration sets PATH itself, which the consent shows), with, on
 * Windows, no program lookup in the working folder (the last word: a configuration cannot undo it).
 */
export function mcpLaunchOf(
  launch: Extract<McpLaunch, { type: 'stdio' }>,
  program: string,
  search: Omit<McpProgramSearch, 'fs'>,
): Extract<McpLaunch, { type: 'stdio' }> {
  const env: Record<string, string> = { ...launch.env };
  if (envValue(env, 'PATH', search.platform) === undefined) env.PATH = childPath(search);
  if (search.platform === 'win32')
    for (const [name, value] of Object.entries(NO_CURRENT_FOLDER_LOOKUP)) {
      for (const key of Object.keys(env)) if (key.toUpperCase() === name.toUpperCase()) delete env[key];
      env[name] = value;
    }
  return { ...launch, command: program, env };
}

/**
 * Closes a server's connection and ends every process it leaves: a wrapper (npx, uvx, `sh -c`,
 * `cmd /c`) runs the server as its child, and closing the connection signals only the wrapper, so what it started
 * is found first, while it is still below it. Returns how many were left and ended.
 */
export async function closeServerProcesses(
  pid: number | undefined,
  close: () => Promise<void>,
): Promise<number> {
  let below: number[] = [];
  if (pid !== undefined) {
    if (process.platform === 'win32') await killTree(pid);
    else below = (await descendantLevels(pid)).flat();
  }
  await close();
  if (pid !== undefined && isAlive(pid)) await killTree(pid);
  const left = below.filter(isAlive);
  await Promise.all(left.map((p) => killTree(p)));
  return left.length;
}
