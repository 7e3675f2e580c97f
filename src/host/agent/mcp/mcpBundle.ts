/**
 * The MCP feature's entry: the official MCP SDK and our connection over it.
 * Only `McpHub` requires it, when the user first turns a server on, so neither activation nor a
 * chat without MCP servers parses the SDK.
 */
export { connectMcpServer } from './mcpConnection';
export type { McpConnection, McpConnectOptions } from './mcpConnection';
