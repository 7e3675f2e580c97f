/**
 * One MCP server in the browser: reached over Streamable HTTP only. A web worker cannot start a
 * program, so a stdio server is refused (the hub never asks for one: it lists it with the reason).
 */
import { connectOver, httpTransport } from './mcpClient';
import type { McpConnection, McpConnectOptions } from './mcpClient';

export type { McpConnection, McpConnectOptions } from './mcpClient';

export function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const { launch } = options;
  if (launch.type === 'stdio')
    return Promise.reject(
      new Error('a server started as a program (stdio) needs a desktop or remote window'),
    );
  return connectOver(httpTransport(launch), options);
}
