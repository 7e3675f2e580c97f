/**
 * An MCP connection over any transport, through our client (`src/core/mcp/mcpSession.ts`): the
 * handshake within a time bound, its tools listed (and listed again when it says they changed),
 * its tools called. Shared by the desktop connection (stdio and Streamable HTTP,
 * `mcpConnection.ts`) and the browser's (HTTP only, `mcpConnection.web.ts`).
 */
import { parseExternalTools } from '../../../core/agent/externalTools';
import type { ExternalToolInfo } from '../../../core/agent/externalTools';
import type { McpLaunch } from '../../../core/agent/mcpConfig';
import { McpHttpTransport } from '../../../core/mcp/mcpHttp';
import { McpSession } from '../../../core/mcp/mcpSession';
import type { McpTransport } from '../../../core/mcp/mcpSession';

export interface McpConnectOptions {
  /** The launch with its variables substituted; stdio's `env` already holds the env file's. */
  launch: McpLaunch;
  /** How long starting and the handshake may take. */
  connectTimeoutMs: number;
  /** Our extension's version, told to the server. */
  clientVersion: string;
  /** A chunk of the server's stderr (stdio), or a line about a message of its not understood. */
  onStderr(text: string): void;
  /** The server said its tools changed. */
  onToolsChanged(): void;
  /** The connection ended without `close()`: the process exited or the stream broke. */
  onClosed(reason: string): void;
}

export interface McpConnection {
  /** The server's process, for a stdio server. */
  readonly pid: number | undefined;
  listTools(signal?: AbortSignal): Promise<ExternalToolInfo[]>;
  /** The raw `CallToolResult` (outside data: parse it). */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

/** A server reached by URL: Streamable HTTP with the configuration's headers, over the host's `fetch`. */
export function httpTransport(launch: Exclude<McpLaunch, { type: 'stdio' }>): McpTransport {
  return new McpHttpTransport(launch.url, launch.headers, (url, init) => fetch(url, init));
}

/** Connects over `transport`; `pid` is the server's process, for a stdio server. */
export async function connectOver(
  transport: McpTransport,
  options: McpConnectOptions,
  pid: () => number | undefined = () => undefined,
): Promise<McpConnection> {
  const session = new McpSession(transport, {
    clientName: 'gateway-ai',
    clientVersion: options.clientVersion,
    onToolsChanged: () => options.onToolsChanged(),
    onClosed: (reason) => options.onClosed(reason),
    onProblem: (reason) => options.onStderr(`[Gateway AI] ${reason}\n`),
  });
  await session.connect(options.connectTimeoutMs);
  return {
    pid: pid(),
    listTools: async (signal) => parseExternalTools(await session.listTools(signal)),
    callTool: (name, args, signal) => session.callTool(name, args, signal),
    close: () => session.close(),
  };
}
