/**
 * The entry of the chat bundle (`dist/chat.js`): the session, the view and its router, the
 * commands. Only `chatLoader.ts` requires it, when the chat view resolves or a chat command runs,
 * so activation neither parses nor evaluates any of it.
 */
export { ChatFeature } from './chatFeature';
export type { ChatFeatureDeps } from './chatFeature';
// The agent's tool sources beside the chat that uses them: the MCP servers of the workspace and
// the user (the MCP client itself loads from dist/mcp.js when a server is first turned on) and VS Code's
// `vscode.lm.tools`.
export { McpHub } from '../agent/mcp/mcpHub';
export type { McpHubDeps, McpServerState, McpSourceStatus } from '../agent/mcp/mcpHub';
export { LmToolSet } from '../agent/lmTools';
export type { LmToolSource } from '../agent/lmTools';
