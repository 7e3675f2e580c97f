/**
 * The agent's tools from outside, in a real extension host: a real MCP server from npm that no one
 * here wrote (`@modelcontextprotocol/server-everything`), named in the workspace's
 * `.vscode/mcp.json`, started through the hub as the tool picker starts it (consent asked once per
 * launch), its tools listed and one called through the tool set, over stdio and Streamable HTTP;
 * and `vscode.lm.tools` as a tool set. The hub and the tool set come from the chat feature as it
 * ships in the host bundle, which loads the MCP client as it would for a user.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { launchIdentity, parseJsonc, parseMcpConfig } from '../../src/core/agent/mcpConfig';
import type { McpConfigOrigin } from '../../src/core/agent/mcpConfig';
import type { McpSourceStatus } from '../../src/host/agent/mcp/mcpHub';
import { hostProgramSearch, resolveProgram } from '../../src/host/programPath';
import { gatewayApi, waitFor } from './helpers';
import { everythingScript, startEverythingHttp } from './mcpEverything';

/**
 * The launch a consent shows, without what it adds for a workspace's server that names no folder:
 * the `cd` into its workspace folder, and the note on what a package runner takes from there.
 */
function launchShown(detail: string | undefined): string | undefined {
  return detail
    ?.replace(/(^|to the server\. )cd .*? && /, '$1')
    .replace(/ \(It starts in the workspace folder[^)]*\)$/, '');
}

type ChatBundle = typeof import('../../src/host/chat/chatBundle');
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function folder(): vscode.WorkspaceFolder {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (!first) throw new Error('The integration suite runs with a workspace folder');
  return first;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Running: it exists and is not a zombie (an orphan some containers' init never reaps). */
function processRuns(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * A launcher as npx or uvx is: it runs the real server as its child, on the same stdin and stdout,
 * and here also leaves a helper process of its own running that does nothing.
 */
const WRAPPER = `
const { spawn } = require('node:child_process');
const [pidFile, server] = process.argv.slice(2);
const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
const child = spawn(process.execPath, [server, 'stdio'], { stdio: 'inherit' });
require('node:fs').writeFileSync(pidFile, JSON.stringify([child.pid, helper.pid]));
child.on('exit', (code) => process.exit(code ?? 0));
`;

async function writeMcpJson(text: string): Promise<void> {
  const file = vscode.Uri.joinPath(folder().uri, '.vscode', 'mcp.json');
  await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(text));
}

describe('Agent: MCP servers and VS Code tools', function () {
  this.timeout(120_000);
  let bundle: ChatBundle;
  let serverScript: string;
  let stopHttp: (() => void) | undefined;
  let httpUrl: string;
  const log: string[] = [];
  const logger = {
    info: (m: string) => log.push(m),
    warn: (m: string) => log.push(m),
    debug: (m: string) => log.push(m),
  };

  before(async () => {
    const api = await gatewayApi();
    const root = api.context.extensionUri.fsPath;
    bundle = api.chatModule;
    serverScript = everythingScript(root);
    // The same server in its Streamable HTTP mode, on a free loopback port, started by the test.
    const server = await startEverythingHttp(serverScript);
    httpUrl = server.url;
    stopHttp = server.stop;
  });

  after(async () => {
    stopHttp?.();
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder().uri, '.vscode', 'mcp.json')).then(
      () => undefined,
      () => undefined,
    );
  });

  /** A hub over this workspace and profile, as the chat makes one; `answer` plays the user's consent. */
  async function newHub(answer: (status: McpSourceStatus) => boolean) {
    const api = await gatewayApi();
    return new bundle.McpHub({
      logger,
      workspaceState: api.context.workspaceState,
      globalStorageUri: api.context.globalStorageUri,
      clientVersion: '0.0.0-test',
      confirmStart: (status) => Promise.resolve(answer(status)),
    });
  }

  function config(extraArg?: string): string {
    const args = JSON.stringify(extraArg ? [serverScript, 'stdio', extraArg] : [serverScript]);
    return `{
      // JSONC, as VS Code writes it
      "servers": {
        "everything": {
          "type": "stdio",
          "command": ${JSON.stringify(process.execPath)},
          "args": ${args},
          "env": { "ELECTRON_RUN_AS_NODE": "1" },
        },
        "everything-http": { "type": "http", "url": ${JSON.stringify(httpUrl)} },
        "asks-for-input": { "command": "node", "args": ["\${input:token}"] },
        "missing": { "command": "/nonexistent/mcp-server", "env": { "TOKEN": "s3cret-value-123" } },
      },
    }`;
  }

  it("lists the workspace's servers, starts one on consent, lists its tools and calls one", async () => {
    await writeMcpJson(config());
    const asked: McpSourceStatus[] = [];
    let lastPid: number | undefined;
    const hub = await newHub((status) => {
      asked.push(status);
      return true;
    });
    try {
      await hub.ready();
      const before = hub.sources();
      assert.deepEqual(
        before.map((s) => [s.source.kind, s.source.id, s.state, s.origin]),
        [
          ['mcp', 'everything', 'off', 'workspace'],
          ['mcp', 'everything-http', 'off', 'workspace'],
          ['mcp', 'asks-for-input', 'off', 'workspace'],
          ['mcp', 'missing', 'off', 'workspace'],
        ],
      );
      assert.equal(
        launchShown(before[0].detail),
        `ELECTRON_RUN_AS_NODE=1 ${process.execPath} ${serverScript}`,
      );
      // It starts in its workspace folder, and the consent says so.
      assert.match(before[0].detail, /^cd .+ && ELECTRON_RUN_AS_NODE=1 /);
      assert.match(before[0].detail, /\(It starts in the workspace folder, .*node_modules and \.npmrc/);
      assert.deepEqual(before[0].environment, []);
      assert.match(before[2].error ?? '', /\$\{input:token\}/);
      assert.deepEqual(hub.specs(), [], 'nothing runs before the user turns it on');

      const changes: number[] = [];
      const listener = hub.onDidChange(() => changes.push(hub.specs().length));
      const running = await hub.setEnabled('everything', true);
      listener.dispose();
      assert.equal(running?.state, 'running', running?.error);
      assert.equal(asked.length, 1);
      assert.equal(asked[0].detail, before[0].detail, 'the consent shows the exact command line');
      assert.ok(changes.length >= 2, 'the picker hears of starting and of running');

      const names = hub.specs().map((s) => s.name);
      assert.ok(names.includes('mcp_everything_get-sum'), names.join(', '));
      assert.ok(names.includes('mcp_everything_echo'), names.join(', '));
      for (const spec of hub.specs()) {
        assert.match(spec.name, NAME);
        assert.equal(spec.readOnly, false);
        assert.equal(spec.parameters.type, 'object');
      }
      assert.equal(new Set(names).size, names.length);

      // Each tool carries its server's fingerprint: the launch as written, with where it is
      // written, so a workspace's "everything" never shares an approval with the user's.
      const written = parseMcpConfig(parseJsonc(config()), 'workspace').servers[0];
      const fingerprint = (origin: McpConfigOrigin) =>
        createHash('sha256')
          .update(launchIdentity({ ...written, origin }))
          .digest('hex')
          .slice(0, 16);
      assert.match(fingerprint('workspace'), /^[0-9a-f]{16}$/);
      assert.notEqual(fingerprint('workspace'), fingerprint('user'));
      for (const spec of hub.specs())
        assert.deepEqual(spec.source, {
          kind: 'mcp',
          id: 'everything',
          label: 'everything (workspace)',
          fingerprint: fingerprint('workspace'),
        });
      assert.deepEqual(running?.source, hub.specs()[0].source);

      const prepared = await hub.prepare(
        'mcp_everything_get-sum',
        { a: 2, b: 3 },
        new AbortController().signal,
      );
      assert.deepEqual(prepared.confirmation, {
        kind: 'tool',
        name: 'get-sum',
        source: 'everything (workspace)',
        arguments: '{\n  "a": 2,\n  "b": 3\n}',
      });
      const output = await prepared.run(new AbortController().signal);
      assert.equal(output.isError, false);
      assert.equal(output.text, 'The sum of 2 and 3 is 5.');

      await assert.rejects(hub.prepare('mcp_everything_get-sum', [1], new AbortController().signal), {
        name: 'ToolInputError',
      });
      await assert.rejects(hub.prepare('mcp_nothing_here', {}, new AbortController().signal), {
        name: 'ToolInputError',
      });

      // Off, then on again: the same launch in the same workspace does not ask again.
      assert.equal((await hub.setEnabled('everything', false))?.state, 'off');
      assert.deepEqual(hub.specs(), []);
      assert.equal((await hub.setEnabled('everything', true))?.state, 'running');
      assert.equal(asked.length, 1);

      // A changed launch stops the server and asks again before it starts.
      await writeMcpJson(config('--changed'));
      await hub.reload();
      assert.equal(hub.sources()[0].state, 'off');
      assert.deepEqual(hub.specs(), []);
      assert.match(launchShown(hub.sources()[0].detail) ?? '', /--changed$/);
      assert.equal((await hub.setEnabled('everything', true))?.state, 'running');
      assert.equal(asked.length, 2);
      assert.match(launchShown(asked[1].detail) ?? '', /--changed$/);

      // A server that dies shows as stopped, its tools gone.
      const pid = hub.sources()[0].pid;
      assert.ok(pid, 'a running stdio server has a process');
      const crashed = new Promise<McpSourceStatus>((resolve) => {
        const listener = hub.onDidChange(() => {
          const everything = hub.sources()[0];
          if (everything.state === 'error') {
            listener.dispose();
            resolve(everything);
          }
        });
      });
      process.kill(pid, 'SIGKILL');
      const afterCrash = await crashed;
      assert.match(afterCrash.error ?? '', /stopped/);
      assert.deepEqual(hub.specs(), []);
      assert.equal(afterCrash.pid, undefined);

      // A server that needs VS Code's input prompt does not start, and says why.
      const refused = await hub.setEnabled('asks-for-input', true);
      assert.equal(refused?.state, 'error');
      assert.match(refused?.error ?? '', /input:token/);
      assert.equal(asked.length, 2);

      // Turned on again after the crash (no new question), then the hub goes: the process goes too.
      const again = await hub.setEnabled('everything', true);
      assert.equal(again?.state, 'running');
      assert.equal(asked.length, 2);
      lastPid = again?.pid;
    } finally {
      hub.dispose();
    }
    const gone = lastPid;
    assert.ok(gone);
    // Closing ends stdin, then signals after 2 s and again after 4 s (mcpStdio.ts).
    await waitFor(() => !processExists(gone), `the server process ${gone} to end after dispose`, 15_000);
    assert.ok(
      log.some((line) => /\[MCP everything\] /.test(line)),
      "the server's stderr reaches the log",
    );
  });

  it("a workspace server that reads the user's environment names each variable, shows no value, and asks again when a reference changes", async () => {
    const secret = 'ghp_suite_secret_0123456789';
    process.env.GATEWAY_SUITE_MCP_TOKEN = secret;
    process.env.GATEWAY_SUITE_MCP_OTHER = secret;
    const configWith = (variable: string) =>
      JSON.stringify({
        servers: {
          'with-token': {
            type: 'http',
            url: httpUrl,
            headers: { Authorization: `Bearer \${env:${variable}}` },
          },
          'stdio-token': {
            command: process.execPath,
            args: [serverScript],
            env: { ELECTRON_RUN_AS_NODE: '1', TOKEN: '${env:GATEWAY_SUITE_MCP_TOKEN}' },
          },
        },
      });
    await writeMcpJson(configWith('GATEWAY_SUITE_MCP_TOKEN'));
    const asked: McpSourceStatus[] = [];
    const hub = await newHub((status) => {
      asked.push(status);
      return true;
    });
    try {
      await hub.ready();
      const [http, stdio] = hub.sources();
      assert.equal(
        http.detail,
        `Reads your environment variable $GATEWAY_SUITE_MCP_TOKEN and passes it to the server. HTTP ${httpUrl}, header Authorization: Bearer $GATEWAY_SUITE_MCP_TOKEN`,
      );
      assert.deepEqual(http.environment, ['GATEWAY_SUITE_MCP_TOKEN']);
      assert.equal(
        launchShown(stdio.detail),
        `Reads your environment variable $GATEWAY_SUITE_MCP_TOKEN and passes it to the server. ELECTRON_RUN_AS_NODE=1 TOKEN=$GATEWAY_SUITE_MCP_TOKEN ${process.execPath} ${serverScript}`,
      );
      for (const status of hub.sources()) assert.ok(!JSON.stringify(status).includes(secret));

      assert.equal((await hub.setEnabled('with-token', true))?.state, 'running');
      assert.equal(asked.length, 1);
      assert.equal(asked[0].detail, http.detail, 'the consent shows what the picker shows');

      // The same value under another name is another launch: it stops and asks again.
      await writeMcpJson(configWith('GATEWAY_SUITE_MCP_OTHER'));
      await hub.reload();
      assert.equal(hub.sources()[0].state, 'off');
      assert.deepEqual(hub.sources()[0].environment, ['GATEWAY_SUITE_MCP_OTHER']);
      assert.equal((await hub.setEnabled('with-token', true))?.state, 'running');
      assert.equal(asked.length, 2);
      assert.match(asked[1].detail, /header Authorization: Bearer \$GATEWAY_SUITE_MCP_OTHER$/);
      for (const status of hub.sources()) assert.ok(!JSON.stringify(status).includes(secret));
    } finally {
      hub.dispose();
      delete process.env.GATEWAY_SUITE_MCP_TOKEN;
      delete process.env.GATEWAY_SUITE_MCP_OTHER;
    }
  });

  it('stopping a server started through a launcher ends every process below it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-mcp-wrapper-'));
    const wrapper = path.join(dir, 'wrapper.js');
    const pidFile = path.join(dir, 'pids.json');
    fs.writeFileSync(wrapper, WRAPPER);
    await writeMcpJson(
      JSON.stringify({
        servers: {
          wrapped: {
            command: process.execPath,
            args: [wrapper, pidFile, serverScript],
            env: { ELECTRON_RUN_AS_NODE: '1' },
          },
        },
      }),
    );
    const hub = await newHub(() => true);
    try {
      const running = await hub.setEnabled('wrapped', true);
      assert.equal(running?.state, 'running', running?.error);
      const launcher = running?.pid;
      assert.ok(launcher);
      const [server, helper] = JSON.parse(fs.readFileSync(pidFile, 'utf8')) as number[];
      const all = [launcher, server, helper];
      assert.ok(all.every(processRuns), `all of ${all.join(', ')} run`);

      assert.equal((await hub.setEnabled('wrapped', false))?.state, 'off');
      await waitFor(
        () => !all.some(processRuns),
        `the launcher ${launcher}, the server ${server} and the helper ${helper} to end`,
        5_000,
      );

      // Once more, and the hub goes: its shutdown (what deactivate waits on) ends them all too.
      fs.rmSync(pidFile);
      const again = await hub.setEnabled('wrapped', true);
      assert.equal(again?.state, 'running', again?.error);
      const pids = [again?.pid ?? 0, ...(JSON.parse(fs.readFileSync(pidFile, 'utf8')) as number[])];
      assert.ok(pids.every(processRuns), `all of ${pids.join(', ')} run`);
      await hub.shutdown();
      await waitFor(() => !pids.some(processRuns), `${pids.join(', ')} to end after shutdown`, 2_000);
    } finally {
      hub.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server whose command is missing shows why it did not start', async () => {
    await writeMcpJson(config());
    const hub = await newHub(() => true);
    try {
      const status = await hub.setEnabled('missing', true);
      assert.equal(status?.state, 'error');
      assert.match(
        status?.error ?? '',
        /cannot start: the program "\/nonexistent\/mcp-server" does not exist/,
      );
      assert.deepEqual(hub.specs(), []);
      assert.ok(!log.some((line) => line.includes('s3cret-value-123')));
    } finally {
      hub.dispose();
    }
  });

  it("shows everything a hostile workspace's mcp.json wrote, verbatim, and refuses its envFile", async () => {
    // test/fixtures/hostile/mcp-json: NODE_OPTIONS, LD_PRELOAD, a bidi control and a URL's
    // user-info, which the consent used to show as ••• or [redacted] while it spawned them.
    const fixture = path.join(
      path.resolve(__dirname, '..', '..', '..'),
      'test',
      'fixtures',
      'hostile',
      'mcp-json',
      'mcp.json',
    );
    await writeMcpJson(fs.readFileSync(fixture, 'utf8'));
    const asked: McpSourceStatus[] = [];
    const hub = await newHub((status) => {
      asked.push(status);
      return false;
    });
    try {
      await hub.ready();
      const byId = new Map(hub.sources().map((s) => [s.source.id, s]));
      // `node` as the program found for it on PATH outside the workspace: what would run.
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const node = await resolveProgram('node', hostProgramSearch(folders));
      assert.ok(node.ok, node.ok ? '' : node.reason);
      const preload = `NODE_OPTIONS='--require ./x.js' LD_PRELOAD=./evil.so HIDDEN='a⟨U+202E⟩b' ${node.program} server.js`;
      const userinfo =
        'HTTP https://openrouter.ai:sk-or-v1-payload0123456789abcdef@evil.example/mcp, header Authorization: Bearer sk-or-v1-0123456789abcdef0123';
      assert.equal(launchShown(byId.get('preload')?.detail), preload);
      assert.equal(byId.get('userinfo')?.detail, userinfo);

      // The consent shows the same text, and declining starts nothing.
      assert.equal((await hub.setEnabled('preload', true))?.state, 'off');
      assert.equal((await hub.setEnabled('userinfo', true))?.state, 'off');
      assert.deepEqual(
        asked.map((s) => launchShown(s.detail)),
        [preload, userinfo],
      );
      assert.deepEqual(hub.specs(), []);

      // An envFile's variables would reach the process unseen: refused before any consent.
      const envFile = await hub.setEnabled('env-file', true);
      assert.equal(envFile?.state, 'error');
      assert.match(envFile?.error ?? '', /"envFile"/);
      assert.equal(asked.length, 2, 'no consent asked for the envFile server');
    } finally {
      hub.dispose();
    }
  });

  it('calls a tool of a server over Streamable HTTP', async () => {
    await writeMcpJson(config());
    const hub = await newHub(() => true);
    try {
      const status = await hub.setEnabled('everything-http', true);
      assert.equal(status?.state, 'running', status?.error);
      assert.equal(status?.detail, `HTTP ${httpUrl}`);
      const prepared = await hub.prepare(
        'mcp_everything-http_echo',
        { message: 'over HTTP' },
        new AbortController().signal,
      );
      assert.equal((await prepared.run(new AbortController().signal)).text, 'Echo: over HTTP');
    } finally {
      hub.dispose();
    }
  });

  it("reads the user's servers from the profile's mcp.json, the workspace's winning on a shared name", async () => {
    const api = await gatewayApi();
    await writeMcpJson(config());
    // VS Code keeps the profile's mcp.json beside its globalStorage folder (MCP: Open User Configuration).
    const userFile = vscode.Uri.joinPath(api.context.globalStorageUri, '..', '..', 'mcp.json');
    await vscode.workspace.fs.writeFile(
      userFile,
      new TextEncoder().encode(
        JSON.stringify({
          servers: {
            'from-profile': { command: '${userHome}/bin/tool', args: ['--flag'] },
            everything: { command: 'not-this-one' },
            declined: { command: process.execPath, args: ['--flag'] },
          },
        }),
      ),
    );
    const hub = await newHub(() => false);
    try {
      await hub.ready();
      const byId = new Map(hub.sources().map((s) => [s.source.id, s]));
      assert.equal(byId.get('from-profile')?.origin, 'user');
      assert.equal(byId.get('from-profile')?.source.label, 'from-profile');
      assert.match(byId.get('from-profile')?.source.fingerprint ?? '', /^[0-9a-f]{16}$/);
      assert.equal(byId.get('everything')?.source.label, 'everything (workspace)');
      assert.equal(byId.get('from-profile')?.detail, `${os.homedir()}/bin/tool --flag`);
      assert.equal(byId.get('everything')?.origin, 'workspace');
      assert.ok(log.some((line) => /server "everything" is named earlier too/.test(line)));
      // A program that is not there is said before anything is asked.
      const missing = await hub.setEnabled('from-profile', true);
      assert.equal(missing?.state, 'error');
      assert.match(missing?.error ?? '', /cannot start: the program ".*bin\/tool" does not exist/);
      // Declining the question starts nothing.
      const declined = await hub.setEnabled('declined', false);
      assert.equal(declined?.state, 'off');
      assert.equal((await hub.setEnabled('declined', true))?.state, 'off');
      assert.deepEqual(hub.specs(), []);
    } finally {
      hub.dispose();
      await vscode.workspace.fs.delete(userFile);
    }
  });

  it("VS Code's own list of tools holds none of the workspace's MCP tools unless VS Code started the server", async () => {
    await writeMcpJson(config());
    const lm = vscode.lm as Partial<typeof vscode.lm>;
    const names = (lm.tools ?? []).map((t) => t.name);
    console.log(
      `[suite] VS Code ${vscode.version}: vscode.lm.tools has ${names.length} tool(s): ${names.join(', ')}`,
    );
    assert.deepEqual(
      names.filter((n) => /everything/i.test(n)),
      [],
    );
  });

  it('sees a server VS Code starts later although VS Code sends extensions no change event', async () => {
    // VS Code 1.100.3 and 1.139.1 have no `vscode.lm.onDidChangeTools` for extensions: only the
    // list itself. A server the user starts through *MCP: List Servers* after the panel loaded
    // must show on the next read all the same.
    const lm = vscode.lm as Partial<typeof vscode.lm> & { onDidChangeTools?: unknown };
    console.log(
      `[suite] VS Code ${vscode.version}: vscode.lm.onDidChangeTools is ${typeof lm.onDidChangeTools}`,
    );
    let tools: unknown[] = [];
    const set = new bundle.LmToolSet({
      get tools() {
        return tools;
      },
    });
    try {
      assert.deepEqual(set.specs(), []);
      const heard = new Promise<void>((resolve) => set.onDidChange(() => resolve()));
      tools = [{ name: 'mcp_everything_re_echo', description: 'Echoes', inputSchema: { type: 'object' } }];
      assert.deepEqual(
        set.sources().map((s) => [s.source.id, s.tools.map((t) => t.name)]),
        [['vscode-mcp:everything', ['mcp_everything_re_echo']]],
      );
      await heard;
      assert.deepEqual(
        set.specs().map((s) => s.name),
        ['mcp_everything_re_echo'],
      );
    } finally {
      set.dispose();
    }
  });

  it("offers vscode.lm.tools without our own or VS Code's, asks before each call, and reads hostile metadata", async () => {
    const real = new bundle.LmToolSet();
    try {
      const names = real.specs().map((s) => s.name);
      assert.ok(!names.some((n) => n.startsWith('gateway_')), names.join(', '));
      // VS Code's own tools (listed in 1.139.1, contributed by no extension) are not offered.
      assert.ok(!names.includes('run_in_terminal'), names.join(', '));
      for (const name of names) assert.match(name, NAME);
      for (const source of real.sources()) assert.ok(source.source.label, JSON.stringify(source.source));
    } finally {
      real.dispose();
    }

    // A VS Code whose tools are odd: the names, schemas and results below are what a careless or
    // hostile extension could register; the results are VS Code's own classes.
    const changed = new vscode.EventEmitter<void>();
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    const invoked: { name: string; input: unknown }[] = [];
    let tools: unknown[] = [
      { name: 'gateway_generateMedia', description: 'ours', inputSchema: {} },
      { name: 'mcp_weird_name/with.dots', description: 42, inputSchema: cyclic },
      { name: 'run_in_terminal', description: "VS Code's own", inputSchema: { type: 'object' } },
      {
        name: 'mcp_remote_search',
        description: 'from a server VS Code runs',
        inputSchema: { type: 'object' },
      },
      { name: '' },
      null,
    ];
    const set = new bundle.LmToolSet({
      get tools() {
        return tools;
      },
      onDidChangeTools: changed.event,
      invokeTool: (name: string, options: vscode.LanguageModelToolInvocationOptions<unknown>) => {
        invoked.push({ name, input: options.input });
        return Promise.resolve(
          new vscode.LanguageModelToolResult([
            new vscode.LanguageModelTextPart(`ran ${name}`),
            new vscode.LanguageModelTextPart(JSON.stringify(options.input)),
          ]),
        );
      },
    });
    try {
      assert.deepEqual(
        set.specs().map((s) => [s.name, s.source.kind, s.source.label]),
        [
          ['mcp_weird_name_with_dots', 'mcp', 'weird (MCP in VS Code)'],
          ['mcp_remote_search', 'mcp', 'remote (MCP in VS Code)'],
        ],
      );
      assert.deepEqual(set.specs()[0].parameters, { type: 'object', properties: {} });
      const prepared = await set.prepare('mcp_weird_name_with_dots', { q: 1 }, new AbortController().signal);
      assert.deepEqual(prepared.confirmation, {
        kind: 'tool',
        name: 'mcp_weird_name/with.dots',
        source: 'weird (MCP in VS Code)',
        arguments: '{\n  "q": 1\n}',
      });
      assert.deepEqual(invoked, [], 'nothing runs before approval');
      const output = await prepared.run(new AbortController().signal);
      assert.equal(output.text, 'ran mcp_weird_name/with.dots\n{"q":1}');
      assert.deepEqual(invoked, [{ name: 'mcp_weird_name/with.dots', input: { q: 1 } }]);

      tools = [];
      const heard = new Promise<void>((resolve) => set.onDidChange(() => resolve()));
      changed.fire();
      await heard;
      assert.deepEqual(set.specs(), []);
      assert.deepEqual(set.sources(), []);
    } finally {
      set.dispose();
      changed.dispose();
    }

    // A VS Code without the API: an empty set, no throw.
    const none = new bundle.LmToolSet(null);
    assert.deepEqual(none.specs(), []);
    none.dispose();
  });
});
