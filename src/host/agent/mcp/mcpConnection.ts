/**
 * One running MCP server on desktop: started over stdio (a program of the user's) or reached over
 * Streamable HTTP. The browser build has `mcpConnection.web.ts` (HTTP only: it cannot start
 * programs); the client over either is `mcpClient.ts`.
 */
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectOver, httpTransport } from './mcpClient';
import type { McpConnection, McpConnectOptions } from './mcpClient';

export type { McpConnection, McpConnectOptions } from './mcpClient';

export function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const { launch } = options;
  if (launch.type !== 'stdio') return connectOver(httpTransport(launch), options);
  const stdio = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: { ...getDefaultEnvironment(), ...launch.env },
    ...(launch.cwd ? { cwd: launch.cwd } : {}),
    stderr: 'pipe',
  });
  stdio.stderr?.on('data', (chunk: Buffer | string) => options.onStderr(String(chunk)));
  return connectOver(stdio, options, () => stdio.pid ?? undefined);
}
