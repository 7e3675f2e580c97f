/**
 * Every MCP server the user runs, through the panel: a real MCP server from npm that nobody here
 * wrote (`@modelcontextprotocol/server-everything`), named in the workspace's `.vscode/mcp.json`
 * and started by VS Code itself, the way the user starts it: the *Start* above the server in
 * `mcp.json` (VS Code's own `workbench.mcp.startServer`, as *MCP: List Servers → Start Server*
 * does, under VS Code's own trust rules). We start nothing. Its tools reach us only
 * through `vscode.lm.tools`; the panel then lists the server as run by VS Code, offers its tools
 * to the model, asks before the model's call runs, and the answer reaches the model. When the user
 * also turns on our own copy of the same server in the picker, its tools are offered once.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { StorageKey } from '../../src/core/ids';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { gatewayApi, openChatView, waitFor, withChatGateway } from './helpers';
import { observed } from './observed';
import { consentKeyOf, everythingMcpJson, fromView, mcpJson, posts } from './panelMessages';

/** A reply to the next prompt; listened for before it is sent. */
function nextTurn(): Promise<AssistantTurn> {
  return gatewayApi().then(
    (api) =>
      new Promise<AssistantTurn>((resolve) => {
        const listener = api.chat.onDidFinishTurn((turn) => {
          listener.dispose();
          resolve(turn);
        });
      }),
  );
}

function script(steps: unknown[]): string {
  return `\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``;
}

const VSCODE_SOURCE = 'vscode-mcp:everything';
/** VS Code 1.139 names a tool's MCP server (`fullReferenceName`); 1.100 does not (tested: these two). */
const NAMES_SERVERS = Number(vscode.version.split('.')[1]) >= 139;

describe('Agent: an MCP server VS Code runs', function () {
  this.timeout(150_000);
  const gateway = withChatGateway();
  /** VS Code's id of the server, from the lens that started it. */
  let definitionId: string | undefined;
  /** The name VS Code gave the server's echo tool. */
  let firstEcho = '';

  after(async () => {
    const api = await gatewayApi();
    await api.agentMcp.setEnabled('everything', false).catch(() => undefined);
    if (definitionId)
      await vscode.commands
        .executeCommand('workbench.mcp.stopServer', definitionId)
        .then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(mcpJson()).then(undefined, () => undefined);
  });

  it('offers the tools of a server VS Code started, asks before its call, and brings its answer back', async () => {
    const api = await gatewayApi();
    const text = await everythingMcpJson();
    await vscode.workspace.fs.writeFile(mcpJson(), new TextEncoder().encode(text));

    // The user opens mcp.json and clicks *Start* above the server, once VS Code shows it.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(mcpJson()));
    const start = await waitFor(
      async () =>
        (
          (await vscode.commands.executeCommand<vscode.CodeLens[]>(
            'vscode.executeCodeLensProvider',
            mcpJson(),
          )) ?? []
        ).find((lens) => lens.command?.command === 'workbench.mcp.startServer')?.command,
      "VS Code's Start above the server in mcp.json",
      30_000,
    );
    definitionId = String(start.arguments?.[0]);
    await vscode.commands.executeCommand(start.command, ...((start.arguments ?? []) as unknown[]));
    const listed = await waitFor(
      () => vscode.lm.tools.find((tool) => tool.tags.includes('mcp') && /_echo$/.test(tool.name)),
      "the server's echo tool in vscode.lm.tools",
      60_000,
    );
    // VS Code 1.139 names the tool from the server's name for itself (mcp_everything_re_echo)
    // and gives its mcp.json name in the reference name; 1.100 prefixes a hash (f1e_echo).
    console.log(`[suite] VS Code ${vscode.version} lists the echo tool as ${listed.name}`);
    const reference = (listed as { fullReferenceName?: unknown }).fullReferenceName;
    if (NAMES_SERVERS) assert.equal(reference, 'everything/echo');
    firstEcho = listed.name;

    // Our panel, opened afterwards: the picker lists the server as VS Code's, on.
    await openChatView();
    let mark = observed.webviewMessages.length;
    await vscode.commands.executeCommand('gateway.newChat');
    const source = await waitFor(
      () =>
        posts(mark, 'agentTools')
          .flatMap((m) => m.sources)
          .find((s) => s.tools.includes(listed.name)),
      'the tool picker to list the server VS Code runs',
      30_000,
    );
    assert.equal(source.kind, 'mcp');
    assert.equal(source.runBy, 'vscode');
    assert.equal(source.enabled, true);
    if (NAMES_SERVERS) {
      assert.equal(source.id, VSCODE_SOURCE);
      assert.equal(source.label, 'everything (MCP in VS Code)');
    }

    // The model calls its echo tool; our approval comes first.
    const requestMark = gateway.sim.requests.length;
    mark = observed.webviewMessages.length;
    const finished = nextTurn();
    void api.chat.send(
      `Echo it.${script([
        { calls: [{ name: listed.name, arguments: { message: 'hello from the panel' } }] },
        { text: 'The server said: {{results}}' },
      ])}`,
    );
    const waiting = await waitFor(
      () =>
        posts(mark, 'agentStep').find((m) =>
          m.step.calls.some((c) => c.name === listed.name && c.state === 'awaitingApproval'),
        ),
      'the call to await approval',
      30_000,
    );
    const offered = gateway.sim.requests[requestMark]?.offeredTools ?? [];
    assert.ok(offered.includes(listed.name), `offered: ${offered.join(', ')}`);
    const call = waiting.step.calls.find((c) => c.name === listed.name);
    assert.ok(call);
    assert.equal(call.confirmation?.kind, 'tool');
    assert.equal(call.source, source.label);
    assert.equal(call.startedAt, undefined, 'nothing ran before the user allowed it');
    await fromView({ type: 'toolDecision', turnId: waiting.turnId, callId: call.id, choice: 'once' });

    const turn = await finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    assert.match(turn.content, /The server said: .*Echo: hello from the panel/);
    const answered = gateway.sim.requests.slice(requestMark).flatMap((r) => r.toolMessages ?? []);
    assert.deepEqual(
      answered.map((m) => [m.name, m.content]),
      [[listed.name, 'Echo: hello from the panel']],
    );
  });

  it('offers the server once when the user also starts our own copy of it', async function () {
    if (!NAMES_SERVERS) {
      console.log(
        `[suite] skipped in VS Code ${vscode.version}: its MCP tools name no server (a hash prefix), so our copy cannot be matched`,
      );
      this.skip();
    }
    const api = await gatewayApi();
    // What our consent dialog records for this exact launch (the hub keeps only its hash).
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(mcpJson()));
    const key = await consentKeyOf(text);
    await api.context.workspaceState.update(StorageKey.mcpConsent, [key]);
    let mark = observed.webviewMessages.length;
    await fromView({ type: 'setToolSource', sourceId: 'everything', enabled: true });
    const sources = await waitFor(
      () =>
        posts(mark, 'agentTools')
          .map((m) => m.sources)
          .find((list) =>
            list.some((s) => s.id === 'everything' && s.state === 'running' && s.tools.length > 0),
          ),
      'our copy of the server to run',
      60_000,
    );
    assert.deepEqual(
      sources.filter((s) => s.id === VSCODE_SOURCE),
      [],
      'the picker lists the server once',
    );

    const requestMark = gateway.sim.requests.length;
    mark = observed.webviewMessages.length;
    const finished = nextTurn();
    void api.chat.send(`Which tools?${script([{ text: 'Listed.' }])}`);
    const turn = await finished;
    assert.equal(turn.status, 'complete', turn.error?.message);
    // Offered once, from our own connection; VS Code's copy, which the chat called before, is
    // declared only as gone (providers refuse a history calling an undeclared tool).
    const body = gateway.sim.requests[requestMark]?.body as { tools?: unknown[] } | undefined;
    const declared = (body?.tools ?? []).map((tool) => {
      const fn = (tool as { function: { name: string; description?: string } }).function;
      return { name: fn.name, gone: /^No longer available/.test(fn.description ?? '') };
    });
    assert.deepEqual(
      declared.filter((t) => !t.gone && /_echo$/.test(t.name)).map((t) => t.name),
      ['mcp_everything_echo'],
    );
    assert.deepEqual(
      declared.filter((t) => t.gone).map((t) => t.name),
      [firstEcho],
    );
    assert.equal(new Set(declared.map((t) => t.name)).size, declared.length, 'each tool declared once');
  });
});
