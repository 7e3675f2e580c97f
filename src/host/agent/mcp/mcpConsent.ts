/**
 * What the consent to start an MCP server shows and is kept against, in both builds: the launch as
 * written and, for a stdio server, the exact program it runs (desktop only; see `mcpProgram.ts`).
 */
import { describeMcpServer } from '../../../core/agent/mcpConfig';
import type { ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import { sha256Hex } from '../../../core/util/sha256';

/** The program a stdio launch runs (an absolute path), or why it cannot run. */
export type McpProgram = { ok: true; program: string } | { ok: false; reason: string };

/** What the consent and the tool picker show: the launch, with the program found in its command's place. */
export function mcpDetail(
  server: ResolvedMcpServer,
  program: McpProgram | undefined,
  folder?: string,
): string {
  return describeMcpServer(server, program?.ok ? program.program : undefined, folder);
}

/** What consent is kept against: the launch as written and, for stdio, the exact program it runs. */
export function mcpConsentKey(identity: string, program: McpProgram | undefined): string {
  const runs = program?.ok ? `\u0000${program.program}` : '';
  return sha256Hex(identity + runs);
}
