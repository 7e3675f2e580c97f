/**
 * The Streamable HTTP transport's rules, against a loopback HTTP server of the test's: the headers
 * it sends (the configuration's, under ours; the session and version once known), JSON and
 * event-stream replies, 202, a forgotten session, redirects refused, bounds, and the DELETE on close.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpHttpTransport, readEvents, SseParser } from '../../../../src/core/mcp/mcpHttp';
import { McpSession } from '../../../../src/core/mcp/mcpSession';
import { events } from './scriptedServer';

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

type Handler = (seen: Seen, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += String(chunk)));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
      };
      seen.push(entry);
      handler(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen, server };
}

function json(res: ServerResponse, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/** A server that shakes hands with a session id, and answers tools/list as `tools` says. */
const mcpServer =
  (tools: Handler): Handler =>
  (seen, res) => {
    const body = seen.body;
    if (seen.method === 'DELETE') return void res.writeHead(200).end();
    // No stream of its own.
    if (seen.method === 'GET') return void res.writeHead(405).end();
    if (body?.method === 'initialize')
      return json(
        res,
        { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-06-18', capabilities: {} } },
        { 'mcp-session-id': 'session-1' },
      );
    // A notification, or a reply to the server's request.
    if (body && (!('id' in body) || !('method' in body))) return void res.writeHead(202).end();
    tools(seen, res);
  };

const fetchOf = (url: string, init: RequestInit) => fetch(url, init);

async function connected(url: string, headers: Record<string, string> = {}) {
  const { seen, options } = events({ requestTimeoutMs: 5_000 });
  const transport = new McpHttpTransport(url, headers, fetchOf);
  const session = new McpSession(transport, options);
  await session.connect(5_000);
  return { session, problems: seen.problems };
}

describe('MCP over Streamable HTTP', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  it("sends the configuration's headers under its own, then the session and version, and ends with a DELETE", async () => {
    const { url, seen, server } = await listen(
      mcpServer((s, res) =>
        json(res, { jsonrpc: '2.0', id: s.body?.id, result: { tools: [{ name: 't' }] } }),
      ),
    );
    servers.push(server);
    const { session, problems } = await connected(url, {
      Authorization: 'Bearer abc',
      Accept: 'text/html',
      'X-Other': '1',
    });
    assert.deepEqual(await session.listTools(), [{ name: 't' }]);
    for (let i = 0; i < 100 && !seen.some((s) => s.method === 'GET'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await session.close();
    // The server's own stream was asked for; its 405 (none) is no problem.
    assert.equal(seen.filter((s) => s.method === 'GET').length, 1);
    assert.deepEqual(problems, []);
    const [init, done, list, end] = seen.filter((s) => s.method !== 'GET');
    assert.equal(init.headers.authorization, 'Bearer abc');
    assert.equal(init.headers['x-other'], '1');
    assert.equal(init.headers.accept, 'application/json, text/event-stream');
    assert.equal(init.headers['content-type'], 'application/json');
    assert.equal(init.headers['mcp-session-id'], undefined);
    assert.equal(init.headers['mcp-protocol-version'], undefined);
    for (const later of [done, list, end]) {
      assert.equal(later.headers['mcp-session-id'], 'session-1');
      assert.equal(later.headers['mcp-protocol-version'], '2025-06-18');
      assert.equal(later.headers.authorization, 'Bearer abc');
    }
    assert.deepEqual(
      seen.filter((s) => s.method !== 'GET').map((s) => s.method),
      ['POST', 'POST', 'POST', 'DELETE'],
    );
  });

  it("opens the server's own stream after the handshake, hears its tools changed and answers its ping there", async () => {
    const { url, seen, server } = await listen((s, res) => {
      if (s.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
        res.write('data: {"jsonrpc":"2.0","id":"g1","method":"ping"}\n\n');
        return;
      }
      mcpServer(() => undefined)(s, res);
    });
    servers.push(server);
    const { seen: heard, options } = events();
    const session = new McpSession(new McpHttpTransport(url, {}, fetchOf), options);
    await session.connect(5_000);
    for (let i = 0; i < 100 && !seen.some((s) => s.body?.id === 'g1'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const get = seen.find((s) => s.method === 'GET');
    assert.equal(get?.headers.accept, 'text/event-stream');
    assert.equal(get?.headers['mcp-session-id'], 'session-1');
    assert.equal(heard.changed, 1);
    assert.ok(seen.some((s) => s.method === 'POST' && s.body?.id === 'g1' && 'result' in s.body));
    await session.close();
    assert.deepEqual(heard.problems, []);
  });

  it("reads an event-stream reply, answering the server's ping on the way", async () => {
    const { url, seen, server } = await listen(
      mcpServer((s, res) => {
        if (s.body?.method === 'ping' || 'result' in (s.body ?? {})) return void res.writeHead(202).end();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': a comment\r\n\r\n');
        res.write('event: message\r\ndata: {"jsonrpc":"2.0","id":"srv","method":"ping"}\r\n\r\n');
        res.write(
          `id: 1\ndata: {"jsonrpc":"2.0","id":${String(s.body?.id)},\ndata: "result":{"tools":[{"name":"sse"}]}}\n\n`,
        );
        res.end();
      }),
    );
    servers.push(server);
    const { session } = await connected(url);
    assert.deepEqual(await session.listTools(), [{ name: 'sse' }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(
      seen.some((s) => s.body?.id === 'srv' && 'result' in s.body),
      'the ping was answered',
    );
    await session.close();
  });

  it('a session the server forgot (404) is a clear error; other statuses and a reply without an answer too', async () => {
    let status = 404;
    const { url, server } = await listen(
      mcpServer((_s, res) => {
        if (status === 200) return json(res, { jsonrpc: '2.0', id: 'someone-else', result: {} });
        res.writeHead(status, { 'content-type': 'text/plain' }).end('no');
      }),
    );
    servers.push(server);
    const { session } = await connected(url);
    await assert.rejects(
      session.listTools(),
      /the server ended the session \(HTTP 404\); turn the server off and on again/,
    );
    status = 500;
    await assert.rejects(session.listTools(), /the server answered HTTP 500 Internal Server Error/);
    status = 200;
    await assert.rejects(session.listTools(), /the server's reply to tools\/list held no answer/);
    await session.close();
  });

  it('refuses a redirect: the headers go only to the URL the user agreed to', async () => {
    const target = await listen((_s, res) => json(res, {}));
    const { url, seen, server } = await listen((_s, res) =>
      res.writeHead(307, { location: target.url }).end(),
    );
    servers.push(server, target.server);
    await assert.rejects(connected(url, { Authorization: 'Bearer abc' }), /redirect/);
    assert.equal(seen.length, 1);
    assert.equal(target.seen.length, 0);
  });

  it('refuses a reply that is neither JSON nor an event stream, and a session id that is not visible ASCII', async () => {
    const html = await listen((_s, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'));
    const badId = await listen((s, res) =>
      json(
        res,
        { jsonrpc: '2.0', id: s.body?.id, result: { protocolVersion: '2025-06-18' } },
        { 'mcp-session-id': 'a b' },
      ),
    );
    servers.push(html.server, badId.server);
    await assert.rejects(connected(html.url), /answered with "text\/html", not JSON or an event stream/);
    await assert.rejects(connected(badId.url), /session id that is not visible ASCII/);
  });

  it('bounds a reply and an event', async () => {
    const chunks = (texts: string[]) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const text of texts) controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
    const data: string[] = [];
    await assert.rejects(
      readEvents(chunks(['data: 0123456789\n\n']), (d) => data.push(d), 8),
      /larger than 8 bytes/,
    );
    await readEvents(chunks(['data: a\r', '\ndata: b\r\n\r', '\nevent: other\ndata: x\n\ndata: last']), (d) =>
      data.push(d),
    );
    assert.deepEqual(data, ['a\nb', 'last']);
    const parser = new SseParser(() => undefined);
    assert.throws(() => parser.feed(`data: ${'x'.repeat(17 * 1024 * 1024)}`), /event line longer than/);
  });
});
