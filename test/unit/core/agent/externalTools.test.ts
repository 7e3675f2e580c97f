import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MAX_TOOL_DESCRIPTION,
  modelToolName,
  parseExternalTool,
  parseExternalTools,
  toolResultText,
  vscodeMcpServerOf,
} from '../../../../src/core/agent/externalTools';

const FUZZ_RUNS = 2000;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe('External tools', () => {
  describe('vscodeMcpServerOf', () => {
    it("takes the server from VS Code 1.139's reference name, not from the tool's name", () => {
      // As VS Code 1.139.1 lists a tool of the server the user named "everything" in mcp.json.
      const echo = { name: 'mcp_everything_re_echo', tags: ['mcp'], fullReferenceName: 'everything/echo' };
      assert.equal(vscodeMcpServerOf(echo), 'everything');
      assert.equal(
        vscodeMcpServerOf({ name: 'mcp_my_server_x', tags: ['mcp'], fullReferenceName: 'my-server/x' }),
        'my-server',
      );
    });

    it('falls back to the mcp_<server>_ names of older VS Code, and knows no server otherwise', () => {
      assert.equal(vscodeMcpServerOf({ name: 'mcp_github_search' }), 'github');
      assert.equal(vscodeMcpServerOf({ name: 'mcp_github_search', fullReferenceName: 'x/y' }), 'github');
      // VS Code 1.100.3 lists the echo tool of server-everything so.
      assert.equal(vscodeMcpServerOf({ name: 'f1e_echo', tags: ['mcp'] }), 'f1e');
      assert.equal(vscodeMcpServerOf({ name: 'f1e_echo' }), undefined);
      assert.equal(vscodeMcpServerOf({ name: '_odd', tags: ['mcp'] }), 'unnamed');
      assert.equal(vscodeMcpServerOf({ name: 'run_in_terminal', tags: ['vscode_editing'] }), undefined);
      assert.equal(
        vscodeMcpServerOf({ name: 'copilot_search', fullReferenceName: 'search/codebase' }),
        undefined,
      );
    });

    it('reads hostile entries without throwing, and bounds what it returns', () => {
      assert.equal(vscodeMcpServerOf(null), undefined);
      assert.equal(vscodeMcpServerOf({ name: 7, tags: ['mcp'], fullReferenceName: 'a/b' }), undefined);
      assert.equal(vscodeMcpServerOf({ name: 'x', tags: 'mcp', fullReferenceName: 'a/b' }), undefined);
      assert.equal(
        vscodeMcpServerOf({ name: 'x', tags: ['mcp'], fullReferenceName: `${'a'.repeat(65)}/b` }),
        'unnamed',
      );
      assert.equal(vscodeMcpServerOf({ name: 'x', tags: ['mcp'], fullReferenceName: '/b' }), 'unnamed');
      assert.equal(vscodeMcpServerOf({ name: 'x', tags: ['mcp'], fullReferenceName: 'a/b/c' }), 'unnamed');
      fc.assert(
        fc.property(fc.anything(), fc.string(), fc.string(), (tags, name, reference) => {
          for (const value of [
            tags,
            { name, tags, fullReferenceName: reference },
            { name, tags: ['mcp'], fullReferenceName: reference },
          ]) {
            const server = vscodeMcpServerOf(value);
            if (server !== undefined)
              assert.ok(server.length >= 1 && server.length <= 64 && !server.includes('/'));
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
    });
  });

  describe('modelToolName', () => {
    it('prefixes and cleans the name', () => {
      assert.equal(modelToolName('mcp_every thing', 'get-sum', new Set()), 'mcp_every_thing_get-sum');
      assert.equal(modelToolName('', 'a.b/c', new Set()), 'a_b_c');
    });

    it('makes names unique with a numbered suffix, within 64 characters', () => {
      const taken = new Set<string>();
      const long = 'x'.repeat(80);
      const first = modelToolName('mcp_s', long, taken);
      const second = modelToolName('mcp_s', long, taken);
      assert.equal(first.length, 64);
      assert.equal(second.length, 64);
      assert.ok(second.endsWith('_2'));
      assert.equal(modelToolName('mcp_s', 'a.b', taken), 'mcp_s_a_b');
      assert.equal(modelToolName('mcp_s', 'a/b', taken), 'mcp_s_a_b_2');
    });

    it('always gives a valid, unique name, whatever the input', () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 40 }), (pairs) => {
          const taken = new Set<string>();
          const names = pairs.map(([p, t]) => modelToolName(p, t, taken));
          for (const n of names) assert.match(n, NAME);
          assert.equal(new Set(names).size, names.length);
        }),
        { numRuns: FUZZ_RUNS },
      );
    });
  });

  describe('parseExternalTool', () => {
    it('keeps name, description, an object schema and the read-only hint', () => {
      assert.deepEqual(
        parseExternalTool({
          name: 'echo',
          description: 'Echoes',
          inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
          annotations: { readOnlyHint: true },
        }),
        {
          name: 'echo',
          description: 'Echoes',
          inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
          readOnlyHint: true,
        },
      );
    });

    it('replaces odd schemas by an empty object schema and cuts long descriptions', () => {
      const cyclic: Record<string, unknown> = { type: 'object' };
      cyclic.self = cyclic;
      for (const inputSchema of [
        undefined,
        'x',
        { type: 'string' },
        cyclic,
        { type: 'object', big: 'x'.repeat(20_000) },
      ])
        assert.deepEqual(parseExternalTool({ name: 't', inputSchema })?.inputSchema, {
          type: 'object',
          properties: {},
        });
      assert.equal(
        parseExternalTool({ name: 't', description: 'd'.repeat(5000) })?.description.length,
        MAX_TOOL_DESCRIPTION,
      );
    });

    it('drops entries without a name and repeats', () => {
      assert.deepEqual(
        parseExternalTools([{ name: 'a' }, { name: '' }, null, { name: 3 }, { name: 'a' }, 'x']).map(
          (t) => t.name,
        ),
        ['a'],
      );
      assert.deepEqual(parseExternalTools({ length: 1 }), []);
    });

    it('never throws on hostile metadata, and its schema is always a JSON object schema', () => {
      fc.assert(
        fc.property(
          fc.anything({ withObjectString: true, withNullPrototype: true }),
          fc.anything(),
          (any, schema) => {
            for (const value of [
              any,
              { name: 'n', inputSchema: schema, description: any, annotations: any },
            ]) {
              const info = parseExternalTool(value);
              if (!info) continue;
              assert.equal(info.inputSchema.type, 'object');
              assert.equal(typeof info.description, 'string');
              JSON.stringify(info.inputSchema);
            }
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    });
  });

  describe('toolResultText', () => {
    it('joins text parts and keeps isError', () => {
      assert.deepEqual(
        toolResultText({
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
          isError: true,
        }),
        { text: 'a\nb', isError: true },
      );
    });

    it('describes images, audio and resources without fetching them', () => {
      const { text } = toolResultText({
        content: [
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'audio', mimeType: 'audio/wav', data: 'AAAAAAAA' },
          { type: 'resource_link', uri: 'file:///x', name: 'x' },
          { type: 'resource', resource: { uri: 'mem://t', text: 'inline' } },
          { type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/pdf', blob: 'AAAA' } },
          { type: 'weird' },
        ],
      });
      assert.equal(
        text,
        [
          '[image: image/png, about 3 bytes; not shown]',
          '[audio: audio/wav, about 6 bytes; not played]',
          '[resource link: file:///x (x); not fetched]',
          '[resource mem://t]\ninline',
          '[resource: mem://b, application/pdf, about 3 bytes; not shown]',
          '[weird content; not shown]',
        ].join('\n'),
      );
    });

    it('reads VS Code tool result parts', () => {
      assert.equal(
        toolResultText({
          content: [{ value: 'hi' }, { mimeType: 'image/png', data: new Uint8Array(5) }, { value: {} }],
        }).text,
        'hi\n[data: image/png, 5 bytes; not shown]\n[unknown content; not shown]',
      );
    });

    it('uses structuredContent when there is no content, and caps long text', () => {
      assert.equal(toolResultText({ structuredContent: { a: 1 } }).text, '{\n  "a": 1\n}');
      const long = toolResultText({ content: [{ type: 'text', text: 'x'.repeat(100) }] }, 10).text;
      assert.equal(long, `${'x'.repeat(10)}\n[… 90 more characters cut]`);
    });

    it("a server's result nested a million deep degrades to a note, never throws", () => {
      const deep: unknown = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
      for (const result of [{ structuredContent: deep }, { toolResult: deep }])
        assert.deepEqual(toolResultText(result), {
          text: '[a value nested too deeply to show]',
          isError: false,
        });
    });

    it('never throws, whatever the result', () => {
      fc.assert(
        fc.property(fc.anything(), fc.array(fc.anything()), (any, parts) => {
          for (const value of [
            any,
            { content: parts, isError: any },
            { content: any, structuredContent: any },
          ]) {
            const r = toolResultText(value, 1000);
            assert.equal(typeof r.text, 'string');
            assert.ok(r.text.length <= 1000 + 40);
          }
        }),
        { numRuns: FUZZ_RUNS },
      );
    });
  });
});
