/**
 * The MCP feature's entry: our MCP client and the connection over it. Only `McpHub` requires it,
 * when the user first turns a server on, so neither activation nor a chat without MCP servers
 * evaluates it.
 */
export { connectMcpServer } from './mcpConnection';
export type { McpConnection, McpConnectOptions } from './mcpConnection';
