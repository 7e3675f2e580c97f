/**
 * Restricted Mode is supported, limited (issue 31, item 2). The window is opened with workspace
 * trust on, on test/fixtures/hostile/untrusted, which is never trusted: its settings set values of
 * ours and its `.vscode/mcp.json` names a server. (VS Code runs a development extension there
 * whatever its manifest says; that the installed package runs is test/e2e/restricted.test.ts.)
 * The chat answers with none of the folder's values, Explain Selection and media work (VS Code's
 * agents may not save media into it), the agent is offered only the tools that read, the
 * folder's MCP server does not start, and the chat panel says why.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { EXTENSION_ID, gatewayApi, lastAssistant, setSetting, TEST_KEY, waitFor } from '../suite/helpers';
import { observed } from '../suite/observed';

const WRITING_TOOLS = ['create_file', 'edit_file', 'run_command', 'generate_media'];

function folder(): vscode.Uri {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (!first) throw new Error('The run opens a folder');
  return first.uri;
}

function chatRequests(sim: GatewaySimulator) {
  return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/chat/completions'));
}

describe('Restricted Mode: an untrusted folder', function () {
  this.timeout(120_000);
  let sim: GatewaySimulator;

  before(async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the folder opens in Restricted Mode');
    sim = await startGatewaySimulator({
      chunkDelayMs: 1,
      mediaTimings: { queuedMs: 300, processingMs: 600 },
    });
    // The user's own settings and key: those count in Restricted Mode too.
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('media.model', 'testvendor/image-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  after(async () => {
    await sim?.close();
  });

  it('the extension runs there, and takes none of the folder’s own settings', async () => {
    const api = await gatewayApi();
    assert.equal(vscode.extensions.getExtension(EXTENSION_ID)?.isActive, true);
    const current = api.settings.current;
    assert.equal(current.chat.model, 'testvendor/echo-model');
    assert.equal(current.chat.temperature, undefined);
    assert.equal(current.chat.responseFormat, 'text');
    assert.equal(current.chat.systemPrompt, '');
    assert.equal(current.media.saveFolder, 'assets/generated');
  });

  it('the chat answers, and the panel says what Restricted Mode turns off', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.chat.focus');
    await waitFor(() => api.chatView.webviewView, 'the chat view to resolve', 20_000);
    await vscode.commands.executeCommand('gateway.newChat');
    await api.chat.send('hello from an untrusted folder');
    const reply = await lastAssistant();
    assert.equal(reply.status, 'complete', reply.error?.message);
    assert.match(reply.content, /hello from an untrusted folder/);
    const body = chatRequests(sim).at(-1)?.body as Record<string, unknown>;
    assert.equal(body.model, 'testvendor/echo-model');
    assert.equal(body.temperature, undefined);
    assert.equal(body.response_format, undefined);
    assert.ok(!JSON.stringify(body).includes('HOSTILE-SYSTEM-PROMPT'));
    const toView = () => observed.webviewMessages.filter((m) => m.target === 'chat view').map((m) => m.json);
    await waitFor(
      () => toView().some((json) => json.includes('"type":"workspaceTrust","restricted":true')),
      'the Restricted Mode notice in the panel',
    );
    await waitFor(
      () =>
        toView().some((json) => json.includes('"type":"agentTools"') && json.includes('"restricted":true')),
      'the tool picker in Restricted Mode',
    );
  });

  it('the agent is offered only the tools that read, and the folder’s MCP server does not start', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.newChat');
    await api.chat.send('what can you do here?');
    const offered = chatRequests(sim).at(-1)?.offeredTools ?? [];
    assert.ok(offered.includes('read_file'), `offered: ${offered.join(', ')}`);
    for (const tool of WRITING_TOOLS) assert.ok(!offered.includes(tool), `${tool} is not offered`);

    const hub = api.agentMcp;
    await hub.ready();
    const server = hub.sources().find((s) => s.source.label.startsWith('hostile'));
    assert.ok(server, `the folder's server is listed: ${JSON.stringify(hub.sources().map((s) => s.source))}`);
    const status = await hub.setEnabled(server.source.id, true);
    assert.equal(status?.state, 'error');
    assert.match(status?.error ?? '', /Restricted Mode/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const started = await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder(), 'mcp-started.txt')).then(
      () => true,
      () => false,
    );
    assert.equal(started, false, 'the server never ran');
    assert.ok(!offered.some((name) => name.includes('hostile')));
  });

  it('Explain Selection and a media job work', async () => {
    const api = await gatewayApi();
    const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder(), 'notes.md'));
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, document.lineCount, 0);
    await vscode.commands.executeCommand('gateway.explainSelection');
    const explained = await lastAssistant();
    assert.equal(explained.status, 'complete', explained.error?.message);
    assert.match(explained.content, /alpha, beta, gamma/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'a fox, untrusted',
    });
    await waitFor(() => api.media.model.get(id)?.status === 'completed', 'the media job to complete', 30_000);

    // VS Code's agents may not save media into the folder: the tool refuses before any job starts.
    const started = sim.requests.filter((r) => r.path.endsWith('/v1/media')).length;
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('gateway_generateMedia', {
          toolInvocationToken: undefined,
          input: { prompt: 'an agent’s fox, untrusted' },
        }),
      ),
      (error: Error) => /Restricted Mode/.test(error.message),
    );
    assert.equal(sim.requests.filter((r) => r.path.endsWith('/v1/media')).length, started);
  });
});
