/**
 * One running MCP server on desktop: started over stdio (a program of the user's) or reached over
 * Streamable HTTP. The browser build has `mcpConnection.web.ts` (HTTP only: it cannot start
 * programs); the client over either is `mcpClient.ts`.
 */
import { connectOver, httpTransport } from './mcpClient';
import type { McpConnection, McpConnectOptions } from './mcpClient';
import { McpStdioTransport } from './mcpStdio';

export type { McpConnection, McpConnectOptions } from './mcpClient';

export function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const { launch } = options;
  if (launch.type !== 'stdio') return connectOver(httpTransport(launch), options);
  const stdio = new McpStdioTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    onStderr: (text) => options.onStderr(text),
  });
  return connectOver(stdio, options, () => stdio.pid);
}
