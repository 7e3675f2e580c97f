/**
 * What the client keeps of a server's long texts is only what it shows: a tool's description cut
 * to 2,000 characters, an error message to 1,000, never the 16 MB they were cut from. Measured in
 * a Node process of its own, with a collection forced, so the heap is the test's alone.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const src = path.join(__dirname, '../../../../src');

const script = `
const { parseMcpMessages } = require(${JSON.stringify(path.join(src, 'core/mcp/mcpMessages.js'))});
const { parseExternalTools } = require(${JSON.stringify(path.join(src, 'core/agent/externalTools.js'))});
const kept = [];
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < 20; i++) {
  const long = 'd'.repeat(15_000_000) + i;
  const page = parseMcpMessages(JSON.stringify({ jsonrpc: '2.0', id: i, result: { tools: [{ name: 't' + i, description: long }] } }));
  kept.push(...parseExternalTools(page.messages[0].result.tools));
  const error = parseMcpMessages(JSON.stringify({ jsonrpc: '2.0', id: i, error: { code: 1, message: long } }));
  kept.push(error.messages[0].message);
}
gc();
process.stdout.write(JSON.stringify({ kept: kept.length, mb: Math.round((process.memoryUsage().heapUsed - before) / 1e6) }));
`;

describe('MCP: what is kept of a long text', () => {
  it('keeps 2,000 characters of a 15 MB description and 1,000 of an error, not the 15 MB', () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' }),
    ) as { kept: number; mb: number };
    assert.equal(out.kept, 40);
    // 40 texts of 15 MB would be 600 MB; what is shown is under 0.1 MB.
    assert.ok(out.mb < 50, `${out.mb} MB kept`);
  });
});
