/**
 * A hostile server's floods, against the real session: its notices that its tools changed, and its
 * requests (a ping each) whose answers it never takes, stay bounded in what the client sends and
 * holds at once.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHttpTransport } from '../../../../src/core/mcp/mcpHttp';
import { McpSession, MAX_SERVER_REQUESTS_ANSWERING } from '../../../../src/core/mcp/mcpSession';
import type { McpOutgoing } from '../../../../src/core/mcp/mcpSession';
import { events, ScriptedServer, server } from './scriptedServer';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Shakes hands, then holds every reply of ours to its requests open, as a server that never reads them. */
class Unread extends ScriptedServer {
  readonly held: AbortSignal[] = [];
  override send(message: McpOutgoing, signal?: AbortSignal): Promise<void> {
    if (!('method' in message) && signal) {
      this.received.push(message);
      this.held.push(signal);
      return new Promise<void>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    }
    return super.send(message);
  }
}

describe('MCP session: a flooding server', () => {
  it('a flood of "tools changed" lists its tools once at a time, and once more after', async () => {
    // tools/list requests the server has and has not answered yet.
    let open = 0;
    let most = 0;
    let lists = 0;
    const transport = server((m) => {
      if (m.method !== 'tools/list') return [];
      lists++;
      most = Math.max(most, ++open);
      // Runs just before the reply is delivered (both are queued in order).
      setImmediate(() => open--);
      return [{ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: `t${lists}` }] } }];
    });
    const { options } = events();
    let listing = 0;
    const session: McpSession = new McpSession(transport, {
      ...options,
      onToolsChanged: () => {
        listing++;
        void session.listTools().finally(() => listing--);
      },
    });
    await session.connect(5_000);
    const notice = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    // 10 lines of a batch of 100 each: 1,000 notices at once.
    for (let i = 0; i < 10; i++) transport.push(JSON.stringify(Array.from({ length: 100 }, () => notice)));
    while (listing) await tick();
    assert.equal(most, 1, 'one listing at a time');
    assert.ok(lists <= 2, `listed ${lists} times for one burst`);
    // A notice after the burst is heard again.
    const before = lists;
    transport.push(notice);
    while (listing) await tick();
    assert.equal(lists, before + 1);
    await session.close();
  });

  it("answers a bounded number of the server's requests at once, each within a time bound", async () => {
    const transport = new Unread((m) =>
      m.method === 'initialize'
        ? [{ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {} } }]
        : [],
    );
    const { seen, options } = events({ requestTimeoutMs: 200 });
    const session = new McpSession(transport, options);
    await session.connect(5_000);
    const pings = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: `p${i}`, method: 'ping' }));
    for (let i = 0; i < 10; i++) transport.push(JSON.stringify(pings));
    assert.equal(transport.held.length, MAX_SERVER_REQUESTS_ANSWERING);
    assert.ok(
      seen.problems.some((p) => /requests? .*unanswered/.test(p)),
      seen.problems.join('\n'),
    );
    // Each answer gives up within its bound, and then the next request is answered again.
    while (!transport.held.every((s) => s.aborted)) await tick();
    transport.push({ jsonrpc: '2.0', id: 'late', method: 'ping' });
    await tick();
    assert.deepEqual(transport.received.at(-1), { jsonrpc: '2.0', id: 'late', result: {} });
    await session.close();
  });

  it('over HTTP: 100 pings on its own stream get 8 answers at once, each POST given up in time', async () => {
    const held: { req: IncomingMessage; closed: boolean }[] = [];
    const pings = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: `p${i}`, method: 'ping' }));
    const server = createServer((req, res: ServerResponse) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += String(chunk)));
      req.on('end', () => {
        if (req.method === 'DELETE') return void res.writeHead(200).end();
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          return void res.write(`data: ${JSON.stringify(pings)}\n\n`);
        }
        const body = JSON.parse(text) as Record<string, unknown>;
        if (body.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
          return void res.end(
            JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-06-18' } }),
          );
        }
        if (body.method === 'notifications/initialized') return void res.writeHead(202).end();
        // An answer to its ping: held open, never answered.
        const entry = { req, closed: false };
        res.on('close', () => (entry.closed = true));
        held.push(entry);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const { seen, options } = events({ requestTimeoutMs: 300 });
      const session = new McpSession(new McpHttpTransport(url, {}, (u, init) => fetch(u, init)), options);
      await session.connect(5_000);
      while (
        seen.problems.length < 100 - MAX_SERVER_REQUESTS_ANSWERING ||
        held.length < MAX_SERVER_REQUESTS_ANSWERING
      )
        await tick();
      assert.equal(held.length, MAX_SERVER_REQUESTS_ANSWERING);
      // Each held POST is given up by the client within the bound, not kept until close.
      while (!held.every((h) => h.closed)) await tick();
      await session.close();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
