/**
 * Workspace files the extension reads on its own are bounded (issue 43, item 3). The window is in
 * Restricted Mode, with instruction files read there by the user's own setting, on
 * test/fixtures/hostile/huge-files, to which the run adds `.vscode/mcp.json` as a link to
 * /dev/zero and `AGENTS.md` as a 1 GB sparse file. Loading the chat (which reads the MCP
 * configuration) and a chat turn (which reads the instruction files) leave the extension host's
 * memory within 100 MB of where it was, and the user is told which files were skipped and why.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, lastAssistant, setSetting, TEST_KEY, waitFor } from '../suite/helpers';
import { observed } from '../suite/observed';

const MB = 1024 * 1024;

describe('Hostile workspace: a .vscode/mcp.json linked to /dev/zero and a 1 GB AGENTS.md', function () {
  this.timeout(120_000);
  let sim: GatewaySimulator;

  before(async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the folder opens in Restricted Mode');
    sim = await startGatewaySimulator({ chunkDelayMs: 1 });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  after(async () => {
    await sim?.close();
  });

  it('the chat loads and answers, the host stays within 100 MB, and the user is told what was skipped and why', async () => {
    const api = await gatewayApi();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
    const sampler = setInterval(sample, 5);
    try {
      // The chat loads: its tool picker reads the MCP configuration (again, on reload).
      await vscode.commands.executeCommand('gateway.chat.focus');
      await waitFor(() => api.chatView.webviewView, 'the chat view to resolve', 20_000);
      const hub = api.agentMcp;
      await hub.ready();
      await hub.reload();
      assert.deepEqual(hub.sources(), [], 'no server comes of the link');

      // A turn reads the instruction files.
      await vscode.commands.executeCommand('gateway.newChat');
      await api.chat.send('hello beside huge files');
      const reply = await lastAssistant();
      assert.equal(reply.status, 'complete', reply.error?.message);
      assert.match(reply.content, /hello beside huge files/);
      assert.equal(reply.instructions, undefined, 'AGENTS.md went with no turn');
    } finally {
      clearInterval(sampler);
    }
    sample();
    assert.ok(
      peak - before < 100 * MB,
      `the extension host's memory grew from ${Math.round(before / MB)} MB to ${Math.round(peak / MB)} MB`,
    );

    const said = () => observed.notifications.map((n) => n.message);
    await waitFor(
      () =>
        said().some((m) =>
          /^Gateway AI skipped the MCP configuration \S*[\\/]\.vscode[\\/]mcp\.json: it is a device, not a regular file \(it links to \/dev\/zero\)\.$/.test(
            m,
          ),
        ),
      `the notice that mcp.json was skipped, among: ${JSON.stringify(said())}`,
    );
    await waitFor(
      () =>
        said().some(
          (m) =>
            m === 'Gateway AI skipped the instruction file AGENTS.md: it is 1 GB, over the 256 KB limit.',
        ),
      `the notice that AGENTS.md was skipped, among: ${JSON.stringify(said())}`,
    );
    // Each is said once, however often the files are read.
    await api.chat.send('again');
    await lastAssistant();
    await api.agentMcp.reload();
    assert.equal(said().filter((m) => m.includes('skipped the instruction file AGENTS.md')).length, 1);
    assert.equal(said().filter((m) => m.includes('skipped the MCP configuration')).length, 1);
  });
});
