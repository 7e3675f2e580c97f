/**
 * An MCP client over any transport, through the official SDK: the handshake within a time bound,
 * its tools listed (and listed again when it says they changed), its tools called. Shared by the
 * desktop connection (stdio and Streamable HTTP, `mcpConnection.ts`) and the browser's (HTTP only,
 * `mcpConnection.web.ts`); only these files import the SDK, and only the MCP bundle holds it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { parseExternalTools } from '../../../core/agent/externalTools';
import type { ExternalToolInfo } from '../../../core/agent/externalTools';
import type { McpLaunch } from '../../../core/agent/mcpConfig';

export interface McpConnectOptions {
  /** The launch with its variables substituted; stdio's `env` already holds the env file's. */
  launch: McpLaunch;
  /** How long starting and the handshake may take. */
  connectTimeoutMs: number;
  /** Our extension's version, told to the server. */
  clientVersion: string;
  /** A chunk of the server's stderr (stdio). */
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

/**
 * The SDK validates a tool's `structuredContent` against its `outputSchema` with ajv, which the
 * build leaves out. We read tool output as untrusted text whatever its shape, so every value is
 * accepted here and parsed by type where it is used.
 */
const acceptAll: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** The longest a single tool call may run before the SDK gives up on it (Stop ends it sooner). */
const CALL_TIMEOUT_MS = 10 * 60_000;

/** A server reached by URL: Streamable HTTP, with the configuration's headers. */
export function httpTransport(launch: Exclude<McpLaunch, { type: 'stdio' }>): Transport {
  return new StreamableHTTPClientTransport(new URL(launch.url), {
    requestInit: { headers: launch.headers },
  });
}

/** Connects over `transport`; `pid` is the server's process, for a stdio server. */
export async function connectOver(
  transport: Transport,
  options: McpConnectOptions,
  pid: () => number | undefined = () => undefined,
): Promise<McpConnection> {
  const client = new Client(
    { name: 'gateway-ai', version: options.clientVersion },
    { capabilities: {}, jsonSchemaValidator: acceptAll },
  );
  let closing = false;
  client.onclose = () => {
    if (!closing) options.onClosed('the server stopped');
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged());

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.connectTimeoutMs);
  try {
    await client.connect(transport, { signal: controller.signal, timeout: options.connectTimeoutMs });
  } catch (error) {
    closing = true;
    await client.close().catch(() => undefined);
    if (controller.signal.aborted)
      throw new Error(`the server did not answer within ${Math.round(options.connectTimeoutMs / 1000)} s`);
    throw error;
  } finally {
    clearTimeout(timer);
  }

  return {
    pid: pid(),
    async listTools(signal) {
      const tools: unknown[] = [];
      let cursor: string | undefined;
      // Pages, with a bound: a server that never stops paging is cut off.
      for (let page = 0; page < 50; page++) {
        const result = await client.listTools(
          cursor ? { cursor } : undefined,
          signal ? { signal } : undefined,
        );
        tools.push(...(Array.isArray(result.tools) ? result.tools : []));
        cursor = typeof result.nextCursor === 'string' && result.nextCursor ? result.nextCursor : undefined;
        if (!cursor) break;
      }
      return parseExternalTools(tools);
    },
    callTool: (name, args, signal) =>
      client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      }),
    async close() {
      closing = true;
      await client.close();
    },
  };
}
