/**
 * The MCP client's protocol rules, against a scripted server (what a real server does is
 * test/unit/host/mcp/mcpConnection.test.ts): the handshake and its versions, pages, errors,
 * Stop and time bounds, the server's ping and its notifications, and what is not understood.
 */
import * as assert from 'node:assert/strict';
import { MCP_PROTOCOL_VERSIONS } from '../../../../src/core/mcp/mcpMessages';
import { MAX_TOOL_PAGES, McpError, McpSession } from '../../../../src/core/mcp/mcpSession';
import type { McpOutgoing } from '../../../../src/core/mcp/mcpSession';
import { events, ScriptedServer, server } from './scriptedServer';

const reply = (message: McpOutgoing, result: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: message.id,
  result,
});

describe('MCP session', () => {
  it('asks for the newest version, takes an older one it knows, and says initialized after', async () => {
    const transport = server(() => [], '2025-03-26');
    const session = new McpSession(transport, events().options);
    await session.connect(5_000);
    const [hello, done] = transport.received;
    assert.equal(hello.method, 'initialize');
    assert.deepEqual(hello.params, {
      protocolVersion: MCP_PROTOCOL_VERSIONS[0],
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    });
    assert.deepEqual(done, { jsonrpc: '2.0', method: 'notifications/initialized', params: {} });
    assert.equal(transport.version, '2025-03-26');
  });

  it('refuses a protocol version it does not speak, and closes', async () => {
    const transport = server(() => [], '2099-01-01');
    await assert.rejects(
      new McpSession(transport, events().options).connect(5_000),
      /"2099-01-01" is not one this client speaks/,
    );
    assert.ok(transport.closed);
  });

  it('gives up a handshake the server never answers, within its bound', async () => {
    const transport = new ScriptedServer(() => []);
    await assert.rejects(
      new McpSession(transport, events().options).connect(100),
      /did not answer within 0 s/,
    );
    assert.ok(transport.closed);
    assert.ok(
      !transport.received.some((m) => m.method === 'notifications/cancelled'),
      'initialize is never cancelled',
    );
  });

  it('reads every page of tools/list, and stops at a cursor seen before or after its page bound', async () => {
    const pages: Record<string, Record<string, unknown>> = {
      '': { tools: [{ name: 'a' }], nextCursor: 'p2' },
      p2: { tools: [{ name: 'b' }], nextCursor: 'p3' },
      p3: { tools: [{ name: 'c' }], nextCursor: 'p2' },
    };
    const paging = server((m) => [reply(m, pages[String((m.params as { cursor?: string }).cursor ?? '')])]);
    const session = new McpSession(paging, events().options);
    await session.connect(5_000);
    assert.deepEqual(await session.listTools(), [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);

    let served = 0;
    const endless = server((m) => [reply(m, { tools: [], nextCursor: `c${++served}` })]);
    const forever = new McpSession(endless, events().options);
    await forever.connect(5_000);
    assert.deepEqual(await forever.listTools(), []);
    assert.equal(served, MAX_TOOL_PAGES);
  });

  it('a JSON-RPC error reply is an McpError with its code and message', async () => {
    const session = new McpSession(
      server((m) => [
        { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'Unknown tool\u202e: x' } },
      ]),
      events().options,
    );
    await session.connect(5_000);
    await assert.rejects(session.callTool('x', {}), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.equal(error.message, 'the server answered tools/call with an error: Unknown tool : x');
      return true;
    });
  });

  it('Stop ends a call at once and tells the server; a call past its bound ends too', async () => {
    const transport = server(() => []);
    const session = new McpSession(transport, events({ callTimeoutMs: 100 }).options);
    await session.connect(5_000);
    const stop = new AbortController();
    const call = session.callTool('slow', {}, stop.signal);
    stop.abort();
    await assert.rejects(call, { name: 'AbortError' });
    const callId = transport.received.find((m) => m.method === 'tools/call')?.id;
    assert.deepEqual(transport.received.at(-1), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: callId, reason: 'the user stopped it' },
    });
    await assert.rejects(session.callTool('slow', {}), /did not answer tools\/call within 0 s/);
    assert.equal(transport.received.at(-1)?.method, 'notifications/cancelled');
  });

  it("answers the server's ping, refuses other requests, and hears that its tools changed", async () => {
    const transport = server(() => []);
    const { seen, options } = events();
    const session = new McpSession(transport, options);
    await session.connect(5_000);
    transport.push({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    transport.push({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} });
    transport.push({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    transport.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(transport.received.slice(-2), [
      { jsonrpc: '2.0', id: 'p1', result: {} },
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
    ]);
    assert.equal(seen.changed, 1);
    assert.deepEqual(seen.problems, []);
  });

  it('reports what it does not understand, and a request left unanswered says so', async () => {
    const transport = server((m) => ['{"jsonrpc":"2.0","id":' + String(m.id) + ',"result":[1]}', 'not json']);
    const { seen, options } = events({ requestTimeoutMs: 100 });
    const session = new McpSession(transport, options);
    await session.connect(5_000);
    await assert.rejects(
      session.listTools(),
      /did not answer tools\/list within 0 s \(it sent something not understood: the server sent a message that is not JSON \(not json\)\)/,
    );
    assert.deepEqual(seen.problems, [
      'the server sent a reply whose result is not an object',
      'the server sent a message that is not JSON (not json)',
    ]);
  });

  it('a server that stops fails what is pending and is reported once; a close of ours is not', async () => {
    const transport = server(() => []);
    const { seen, options } = events();
    const session = new McpSession(transport, options);
    await session.connect(5_000);
    const call = session.callTool('x', {});
    transport.sink?.closed('the server exited with code 1');
    transport.sink?.closed('again');
    await assert.rejects(call, /the server stopped: the server exited with code 1/);
    await assert.rejects(session.listTools(), /the connection has ended: the server exited with code 1/);
    assert.deepEqual(seen.closed, ['the server exited with code 1']);

    const other = server(() => []);
    const quiet = events();
    const closing = new McpSession(other, quiet.options);
    await closing.connect(5_000);
    await closing.close();
    other.sink?.closed('exited');
    assert.deepEqual(quiet.seen.closed, []);
  });

  it('a server that exits during the handshake fails the start, not as a stop', async () => {
    const transport = new ScriptedServer(() => []);
    const { seen, options } = events();
    const connecting = new McpSession(transport, options).connect(5_000);
    await new Promise((resolve) => setImmediate(resolve));
    transport.sink?.closed('the server exited with code 2');
    await assert.rejects(connecting, /the server stopped: the server exited with code 2/);
    assert.deepEqual(seen.closed, []);
  });
});
