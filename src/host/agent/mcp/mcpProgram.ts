/**
 * What a stdio MCP server's start runs, decided before the user is asked: its command found as an
 * absolute path outside the workspace (`resolveProgram`), the consent's text naming that path, the
 * key the consent is kept against (the launch as written and the program), and the environment
 * the process gets (PATH without the workspace; on Windows, no lookup in the working folder).
 * No `vscode` here, so the Windows rules are tested on any machine.
 */
import { describeMcpServer } from '../../../core/agent/mcpConfig';
import type { McpLaunch, ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import { sha256Hex } from '../../../core/util/sha256';
import { childPath, envValue, NO_CURRENT_FOLDER_LOOKUP, resolveProgram } from '../../programPath';
import type { ProgramResolution, ProgramSearch } from '../../programPath';

/** The program a server's start runs, or undefined for a server reached by URL. */
export async function mcpProgram(
  server: ResolvedMcpServer,
  cwd: string | undefined,
  search: ProgramSearch,
): Promise<ProgramResolution | undefined> {
  if (server.launch.type !== 'stdio') return undefined;
  const found = await resolveProgram(server.launch.command, search, cwd);
  return found.ok
    ? found
    : { ok: false, reason: `It cannot start: ${found.reason.replace(/^./, (c) => c.toLowerCase())}` };
}

/** What the consent and the tool picker show: the launch, with the program found in its command's place. */
export function mcpDetail(
  server: ResolvedMcpServer,
  program: ProgramResolution | undefined,
  folder?: string,
): string {
  return describeMcpServer(server, program?.ok ? program.program : undefined, folder);
}

/** What consent is kept against: the launch as written and, for stdio, the exact program it runs. */
export function mcpConsentKey(identity: string, program: ProgramResolution | undefined): string {
  const runs = program?.ok ? `\u0000${program.program}` : '';
  return sha256Hex(identity + runs);
}

/**
 * The launch that runs: the program by its absolute path, and an environment whose PATH leaves out
 * the workspace (unless the configuration sets PATH itself, which the consent shows), with, on
 * Windows, no program lookup in the working folder (the last word: a configuration cannot undo it).
 */
export function mcpLaunchOf(
  launch: Extract<McpLaunch, { type: 'stdio' }>,
  program: string,
  search: Omit<ProgramSearch, 'fs'>,
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
