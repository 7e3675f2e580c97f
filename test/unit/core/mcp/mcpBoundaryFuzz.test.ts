/**
 * Property tests of the MCP client's boundary: whatever a server sends (any text, any JSON, any
 * message shape, an event stream split anywhere), parsing never throws, what it yields has the
 * promised types, and the session's requests end in a value or an Error, never an exception
 * thrown out of the transport's hands.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseExternalTools } from '../../../../src/core/agent/externalTools';
import { SseParser } from '../../../../src/core/mcp/mcpHttp';
import {
  parseInitializeResult,
  parseMcpMessages,
  parseToolsPage,
} from '../../../../src/core/mcp/mcpMessages';
import { McpSession } from '../../../../src/core/mcp/mcpSession';
import { events, server } from './scriptedServer';

/** JSON-RPC-ish values: right and wrong fields mixed, so the parser's every branch is reached. */
const idLike = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.constant(null),
  fc.double(),
  fc.constant(undefined),
);
const messageLike = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer()),
    id: idLike,
    method: fc.oneof(
      fc.constant('ping'),
      fc.constant('notifications/tools/list_changed'),
      fc.string(),
      fc.integer(),
    ),
    params: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
    result: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
    error: fc.oneof(
      fc.record(
        {
          code: fc.oneof(fc.integer(), fc.double(), fc.string()),
          message: fc.oneof(fc.string(), fc.integer()),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    ),
  },
  { requiredKeys: [] },
);
const serverText = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  messageLike.map((v) => JSON.stringify(v)),
  fc.array(messageLike, { maxLength: 4 }).map((v) => JSON.stringify(v)),
);

function checkMessage(message: unknown): void {
  const m = message as Record<string, unknown>;
  switch (m.kind) {
    case 'result':
      assert.ok(typeof m.id === 'string' || Number.isSafeInteger(m.id));
      assert.ok(m.result && typeof m.result === 'object' && !Array.isArray(m.result));
      return;
    case 'error':
      assert.ok(m.id === null || typeof m.id === 'string' || Number.isSafeInteger(m.id));
      assert.ok(Number.isInteger(m.code));
      assert.equal(typeof m.message, 'string');
      assert.ok((m.message as string).length <= 1_000);
      return;
    case 'request':
    case 'notification':
      assert.equal(typeof m.method, 'string');
      assert.ok(m.params && typeof m.params === 'object' && !Array.isArray(m.params));
      if (m.kind === 'request') assert.ok(typeof m.id === 'string' || Number.isSafeInteger(m.id));
      return;
    default:
      assert.fail(`unknown kind ${String(m.kind)}`);
  }
}

describe('MCP boundary (property)', () => {
  it('parses any text a server sends into typed messages or a reason, never throwing', () => {
    fc.assert(
      fc.property(serverText, (text) => {
        const parsed = parseMcpMessages(text);
        if (parsed.ok) parsed.messages.forEach(checkMessage);
        else assert.equal(typeof parsed.reason, 'string');
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any initialize result and tools page into typed values or a reason', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.jsonValue(),
        fc.jsonValue(),
        (result, tools, cursor) => {
          const init = parseInitializeResult({ ...result, protocolVersion: result.protocolVersion });
          if (typeof init !== 'string') assert.equal(typeof init.protocolVersion, 'string');
          const page = parseToolsPage({ tools, nextCursor: cursor });
          if (typeof page !== 'string') {
            assert.ok(Array.isArray(page.tools));
            assert.ok(page.nextCursor === undefined || typeof page.nextCursor === 'string');
            for (const tool of parseExternalTools(page.tools)) assert.equal(typeof tool.name, 'string');
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('an event stream split anywhere gives the same events, and any text never throws', () => {
    const event = fc.array(
      fc.string().filter((s) => !/[\r\n]/.test(s)),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 5 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.string(),
        (evs, eol, cuts, junk) => {
          const stream = evs.map((lines) => lines.map((l) => `data: ${l}${eol}`).join('') + eol).join('');
          const whole: string[] = [];
          const parser = new SseParser((d) => whole.push(d));
          parser.feed(stream);
          parser.end();
          assert.deepEqual(
            whole,
            evs.map((lines) => lines.join('\n')),
          );
          const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const split: string[] = [];
          const pieces = new SseParser((d) => split.push(d));
          let from = 0;
          for (const p of [...points, stream.length]) {
            pieces.feed(stream.slice(from, p));
            from = p;
          }
          pieces.end();
          assert.deepEqual(split, whole);
          const any = new SseParser((d) => assert.equal(typeof d, 'string'));
          any.feed(junk);
          any.end();
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('whatever a server answers to tools/list, the list ends in tools or an Error, and the session goes on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(serverText, { maxLength: 4 }), fc.boolean(), async (texts, answer) => {
        const transport = server((m) =>
          m.method === 'tools/list'
            ? [
                ...texts,
                ...(answer ? [JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })] : []),
              ]
            : [],
        );
        const session = new McpSession(transport, events({ requestTimeoutMs: 20 }).options);
        await session.connect(1_000);
        try {
          const tools = await session.listTools();
          assert.ok(Array.isArray(tools));
        } catch (error) {
          assert.ok(error instanceof Error, String(error));
        }
        await session.close();
      }),
      { numRuns: 100 },
    );
  });
});
