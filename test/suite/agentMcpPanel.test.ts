/**
 * The MCP must-show through the panel itself: a real MCP server from npm that nobody here wrote
 * (`@modelcontextprotocol/server-everything`), named in the workspace's `.vscode/mcp.json`, shows
 * in the tool picker; turning it on there starts it (the user's consent to that exact launch is
 * remembered per workspace, seeded here as the consent dialog would record it); and the model,
 * in the panel, calls one of its tools, which asks first and runs once allowed.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { StorageKey } from '../../src/core/ids';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { gatewayApi, openChatView, waitFor, withChatGateway } from './helpers';
import { observed } from './observed';
import { consentKeyOf, everythingMcpJson, fromView, mcpJson, posts } from './panelMessages';

describe('Agent: an MCP server from the panel', function () {
  this.timeout(120_000);
  const gateway = withChatGateway();

  after(async () => {
    const api = await gatewayApi();
    await api.agentMcp.setEnabled('everything', false).catch(() => undefined);
    await vscode.workspace.fs.delete(mcpJson()).then(undefined, () => undefined);
  });

  it("shows the workspace's server in the tool picker, starts it there, and the model calls its tool", async () => {
    const api = await gatewayApi();
    const text = await everythingMcpJson();
    // What the consent dialog records for this exact launch (the hub keeps only its hash).
    const key = await consentKeyOf(text);
    await api.context.workspaceState.update(StorageKey.mcpConsent, [key]);
    // From before the file is written: a page that loads after it gets the list in its first
    // state, one already open gets it when the file is read again.
    let mark = observed.webviewMessages.length;
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(text));

    await openChatView();
    await vscode.commands.executeCommand('gateway.newChat');
    // The picker lists the server, off, with the exact command line it would start.
    const listed = await waitFor(
      () =>
        posts(mark, 'agentTools')
          .flatMap((m) => m.sources)
          .find((s) => s.id === 'everything'),
      'the tool picker to list the MCP server',
      30_000,
    );
    assert.equal(listed.kind, 'mcp');
    assert.equal(listed.state, 'off');
    assert.match(listed.detail ?? '', /server-everything/);

    // The user turns it on in the picker.
    mark = observed.webviewMessages.length;
    await fromView({ type: 'setToolSource', sourceId: 'everything', enabled: true });
    const running = await waitFor(
      () =>
        posts(mark, 'agentTools')
          .flatMap((m) => m.sources)
          .find((s) => s.id === 'everything' && s.state === 'running' && s.tools.length > 0),
      'the picker to show the server running with its tools',
      60_000,
    );
    assert.ok(running.tools.includes('mcp_everything_get-sum'), running.tools.join(', '));
    assert.equal(running.enabled, true);

    // The model, in the panel, calls one of the server's tools; it asks first.
    const requestMark = gateway.sim.requests.length;
    mark = observed.webviewMessages.length;
    const finished = new Promise<AssistantTurn>((resolve) => {
      const listener = api.chat.onDidFinishTurn((turn) => {
        listener.dispose();
        resolve(turn);
      });
    });
    void api.chat.send(
      `Add two and three with the server.\n\`\`\`sim-agent\n${JSON.stringify([
        { calls: [{ name: 'mcp_everything_get-sum', arguments: { a: 2, b: 3 } }] },
        { text: 'The server said: {{results}}' },
      ])}\n\`\`\``,
    );
    const waiting = await waitFor(
      () =>
        posts(mark, 'agentStep').find((m) =>
          m.step.calls.some((c) => c.name === 'mcp_everything_get-sum' && c.state === 'awaitingApproval'),
        ),
      'the MCP call to await approval',
      30_000,
    );
    const call = waiting.step.calls.find((c) => c.name === 'mcp_everything_get-sum');
    assert.equal(call?.confirmation?.kind, 'tool');
    assert.equal(call?.startedAt, undefined, 'nothing ran before the user allowed it');
    assert.ok(call);
    await fromView({ type: 'toolDecision', turnId: waiting.turnId, callId: call.id, choice: 'once' });

    const turn = await finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    assert.match(turn.content, /The sum of 2 and 3 is 5/);
    const offered = gateway.sim.requests.slice(requestMark).flatMap((r) => r.offeredTools ?? []);
    assert.ok(offered.includes('mcp_everything_get-sum'), 'the server tool was offered to the model');
  });
});
