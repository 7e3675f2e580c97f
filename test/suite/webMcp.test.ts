/**
 * MCP in the browser build, in the desktop extension host: the hub with the browser's platform
 * (`platform.web.ts`) and the browser's connection (`mcpConnection.web.ts`, HTTP only) reads the
 * workspace's `.vscode/mcp.json`, lists its stdio server with the reason it cannot start there
 * (and never asks to start it), and starts its HTTP server, a real one from npm, and calls a tool.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpSourceStatus } from '../../src/host/agent/mcp/mcpHub';
import { McpHub, STDIO_NEEDS_DESKTOP } from '../../src/host/agent/mcp/mcpHub';
import * as webConnection from '../../src/host/agent/mcp/mcpConnection.web';
import * as webProgram from '../../src/host/agent/mcp/mcpProgram.web';
import { HOST_PLATFORM as WEB_PLATFORM } from '../../src/host/platform.web';
import { gatewayApi } from './helpers';
import { everythingScript, startEverythingHttp } from './mcpEverything';

const CONFIG = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.vscode', 'mcp.json');

describe('MCP in the browser build: HTTP servers start, stdio servers are listed with the reason', function () {
  this.timeout(60_000);
  let server: { url: string; stop: () => void };
  let script: string;

  before(async () => {
    const api = await gatewayApi();
    script = everythingScript(api.context.extensionUri.fsPath);
    server = await startEverythingHttp(script);
    await vscode.workspace.fs.writeFile(
      CONFIG,
      new TextEncoder().encode(
        JSON.stringify({
          servers: {
            local: {
              type: 'stdio',
              command: process.execPath,
              args: [script],
              env: { ELECTRON_RUN_AS_NODE: '1' },
            },
            remote: { type: 'http', url: server.url, headers: { 'X-Home': '${env:HOME}' } },
          },
        }),
      ),
    );
  });

  after(async () => {
    server?.stop();
    await vscode.workspace.fs.delete(CONFIG).then(
      () => undefined,
      () => undefined,
    );
  });

  it('lists both, refuses the stdio one with the reason and never asks, starts the HTTP one and calls its tool', async () => {
    const api = await gatewayApi();
    const asked: McpSourceStatus[] = [];
    const log: string[] = [];
    const hub = new McpHub({
      logger: { info: (m) => log.push(m), warn: (m) => log.push(m), debug: () => undefined },
      workspaceState: api.context.workspaceState,
      globalStorageUri: api.context.globalStorageUri,
      clientVersion: '0.0.0-test',
      confirmStart: (status) => {
        asked.push(status);
        return Promise.resolve(true);
      },
      platform: WEB_PLATFORM,
      loadClient: () => webConnection,
      programSearch: () => webProgram.mcpProgramSearch([]) as never,
    });
    try {
      await hub.ready();
      const listed = Object.fromEntries(hub.sources().map((s) => [s.source.id, s]));
      assert.deepEqual(Object.keys(listed).sort(), ['local', 'remote']);
      assert.equal(listed.local.state, 'off');
      assert.equal(listed.local.error, STDIO_NEEDS_DESKTOP);
      assert.match(listed.local.error ?? '', /needs a desktop or remote window/);
      assert.equal(listed.remote.error, undefined);

      const local = await hub.setEnabled('local', true);
      assert.equal(local?.state, 'error');
      assert.equal(local?.error, STDIO_NEEDS_DESKTOP);
      assert.equal(asked.length, 0, 'a server that cannot start here is never offered to start');

      const remote = await hub.setEnabled('remote', true);
      assert.equal(remote?.state, 'running', remote?.error ?? log.join('\n'));
      assert.deepEqual(
        asked.map((s) => s.source.id),
        ['remote'],
      );
      const prepared = await hub.prepare(
        'mcp_remote_echo',
        { message: 'from the web build' },
        new AbortController().signal,
      );
      assert.equal((await prepared.run(new AbortController().signal)).text, 'Echo: from the web build');
    } finally {
      await hub.shutdown();
      hub.dispose();
    }
  });

  it('the browser connection refuses a stdio launch, and the browser has no environment to read', async () => {
    await assert.rejects(
      webConnection.connectMcpServer({
        launch: { type: 'stdio', command: process.execPath, args: [script], env: {} },
        connectTimeoutMs: 5_000,
        clientVersion: '0',
        onStderr: () => undefined,
        onToolsChanged: () => undefined,
        onClosed: () => undefined,
      }),
      /needs a desktop or remote window/,
    );
    assert.deepEqual(webProgram.hostMcpVariables(), { env: {} });
    assert.equal(await webProgram.closeServerProcesses(1, () => Promise.resolve()), 0);
  });
});
