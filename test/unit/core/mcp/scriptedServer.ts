/** A scripted MCP server for the client's protocol tests, and the session's events as seen. */
import { MCP_PROTOCOL_VERSIONS } from '../../../../src/core/mcp/mcpMessages';
import type {
  McpOutgoing,
  McpSessionOptions,
  McpTransport,
  McpTransportSink,
} from '../../../../src/core/mcp/mcpSession';

export type Reply = string | Record<string, unknown>;

/** A server as a function of each message it receives: what it sends back (JSON texts or objects). */
export class ScriptedServer implements McpTransport {
  readonly repliesInline = false;
  readonly received: McpOutgoing[] = [];
  sink: McpTransportSink | undefined;
  version: string | undefined;
  closed = false;

  constructor(private readonly answer: (message: McpOutgoing) => Reply[]) {}

  start(sink: McpTransportSink): Promise<void> {
    this.sink = sink;
    return Promise.resolve();
  }

  send(message: McpOutgoing): Promise<void> {
    this.received.push(message);
    const replies = this.answer(message);
    setImmediate(() => {
      for (const reply of replies)
        this.sink?.message(typeof reply === 'string' ? reply : JSON.stringify(reply));
    });
    return Promise.resolve();
  }

  setProtocolVersion(version: string): void {
    this.version = version;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** Sends a message unasked. */
  push(message: Reply): void {
    this.sink?.message(typeof message === 'string' ? message : JSON.stringify(message));
  }
}

export function initialized(version = MCP_PROTOCOL_VERSIONS[0]) {
  return (message: McpOutgoing): Reply[] | undefined =>
    message.method === 'initialize'
      ? [
          {
            jsonrpc: '2.0',
            id: message.id,
            result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 's' } },
          },
        ]
      : message.method === 'notifications/initialized' || message.method === 'notifications/cancelled'
        ? []
        : undefined;
}

/** A server that shakes hands, then answers as `rest` says. */
export function server(rest: (message: McpOutgoing) => Reply[], version?: string): ScriptedServer {
  const hello = initialized(version);
  return new ScriptedServer((message) => hello(message) ?? rest(message));
}

export function events(overrides: Partial<McpSessionOptions> = {}) {
  const seen = { changed: 0, closed: [] as string[], problems: [] as string[] };
  const options: McpSessionOptions = {
    clientName: 'test',
    clientVersion: '1',
    onToolsChanged: () => seen.changed++,
    onClosed: (reason) => seen.closed.push(reason),
    onProblem: (reason) => seen.problems.push(reason),
    ...overrides,
  };
  return { seen, options };
}
