/**
 * Our MCP client against real servers no one here wrote: `@modelcontextprotocol/server-everything`
 * over stdio and over Streamable HTTP (sessions, event-stream replies), started by the test. Also
 * the environment a stdio server inherits and the Windows command line of a batch file.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { connectMcpServer } from '../../../../src/host/agent/mcp/mcpConnection';
import type { McpConnectOptions } from '../../../../src/host/agent/mcp/mcpConnection';
import { defaultEnvironment, spawnCommand } from '../../../../src/host/agent/mcp/mcpStdio';
import { startEverythingHttp } from '../../../suite/mcpEverything';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..', '..');
const SCRIPT = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function options(
  launch: McpConnectOptions['launch'],
  stderr: string[] = [],
  closed: string[] = [],
): McpConnectOptions {
  return {
    launch,
    connectTimeoutMs: 20_000,
    clientVersion: '0.0.0-test',
    onStderr: (text) => stderr.push(text),
    onToolsChanged: () => undefined,
    onClosed: (reason) => closed.push(reason),
  };
}

describe('MCP connection against server-everything', function () {
  this.timeout(40_000);

  it('over stdio: lists tools over its pages, calls one, reads its stderr, and ends the process on close', async () => {
    const stderr: string[] = [];
    const closed: string[] = [];
    const connection = await connectMcpServer(
      options({ type: 'stdio', command: process.execPath, args: [SCRIPT, 'stdio'], env: {} }, stderr, closed),
    );
    const pid = connection.pid;
    try {
      assert.ok(pid && isAlive(pid));
      const names = (await connection.listTools()).map((t) => t.name);
      assert.ok(names.includes('echo') && names.includes('get-sum'), names.join(', '));
      const result = await connection.callTool('get-sum', { a: 2, b: 3 }, new AbortController().signal);
      assert.deepEqual((result as { content: unknown }).content, [
        { type: 'text', text: 'The sum of 2 and 3 is 5.' },
      ]);
      // An unknown tool is the server's error, as a result or a JSON-RPC error: never a hang.
      await connection.callTool('no-such-tool', {}, new AbortController().signal).then(
        (r) => assert.equal((r as { isError?: unknown }).isError, true),
        (e: Error) => assert.match(e.message, /error/),
      );
    } finally {
      await connection.close();
    }
    assert.ok(!isAlive(pid), 'the process ended');
    assert.deepEqual(closed, [], 'a close we asked for is not reported as a stop');
    assert.ok(stderr.join('').length > 0, 'the server wrote to stderr');
  });

  it('over stdio: a server that exits is reported, and Stop ends a call', async () => {
    const closed: string[] = [];
    const connection = await connectMcpServer(
      options({ type: 'stdio', command: process.execPath, args: [SCRIPT, 'stdio'], env: {} }, [], closed),
    );
    const stop = new AbortController();
    // trigger-long-running-operation runs for `duration` seconds.
    const call = connection.callTool(
      'trigger-long-running-operation',
      { duration: 30, steps: 3 },
      stop.signal,
    );
    setTimeout(() => stop.abort(), 200);
    await assert.rejects(call, { name: 'AbortError' });
    process.kill(connection.pid!, 'SIGKILL');
    for (let i = 0; i < 100 && !closed.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(closed.length, 1);
    assert.match(closed[0], /SIGKILL/);
    await assert.rejects(connection.listTools(), /ended|stopped/);
    await connection.close();
  });

  it('over stdio: a program that does not exist fails to connect with why', async () => {
    await assert.rejects(
      connectMcpServer(options({ type: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {} })),
      /ENOENT/,
    );
  });

  it('over Streamable HTTP: a session, its tools and a call', async () => {
    const server = await startEverythingHttp(SCRIPT);
    try {
      const connection = await connectMcpServer(
        options({ type: 'http', url: server.url, headers: { 'X-Test': '1' } }),
      );
      try {
        const names = (await connection.listTools()).map((t) => t.name);
        assert.ok(names.includes('echo'), names.join(', '));
        const result = await connection.callTool(
          'echo',
          { message: 'over HTTP' },
          new AbortController().signal,
        );
        assert.deepEqual((result as { content: unknown }).content, [
          { type: 'text', text: 'Echo: over HTTP' },
        ]);
        assert.equal(connection.pid, undefined);
      } finally {
        await connection.close();
      }
    } finally {
      server.stop();
    }
  });

  it('over Streamable HTTP: nothing listening fails to connect, saying so', async () => {
    await assert.rejects(
      connectMcpServer(options({ type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} })),
      /could not be reached/,
    );
  });
});

describe('MCP stdio launch rules', () => {
  it('a server inherits only the short list of variables, never an exported shell function', () => {
    const env = { HOME: '/h', PATH: '/bin', SECRET_TOKEN: 'x', SHELL: '() { :; }', USER: 'u' };
    assert.deepEqual(defaultEnvironment(env, 'linux'), { HOME: '/h', PATH: '/bin', USER: 'u' });
    assert.deepEqual(defaultEnvironment({ PATH: 'C:\\bin', APPDATA: 'a', HOME: 'h' }, 'win32'), {
      PATH: 'C:\\bin',
      APPDATA: 'a',
    });
  });

  it('on Windows a batch file runs through cmd.exe with its arguments quoted and escaped', () => {
    assert.deepEqual(spawnCommand('C:\\node\\node.exe', ['a b'], 'win32', 'C:\\Windows\\System32\\cmd.exe'), {
      command: 'C:\\node\\node.exe',
      args: ['a b'],
      verbatim: false,
    });
    assert.deepEqual(spawnCommand('/usr/bin/npx', ['a&b'], 'linux', 'cmd.exe'), {
      command: '/usr/bin/npx',
      args: ['a&b'],
      verbatim: false,
    });
    const npx = spawnCommand(
      'C:\\Program Files\\nodejs\\npx.cmd',
      ['-y', 'a&b "c"\\'],
      'win32',
      'C:\\Windows\\system32\\cmd.exe',
    );
    assert.equal(npx.command, 'C:\\Windows\\system32\\cmd.exe');
    assert.equal(npx.verbatim, true);
    assert.deepEqual(npx.args, [
      '/d',
      '/s',
      '/c',
      '"C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"a^^^&b^^^ \\^^^"c\\^^^"\\\\^^^""',
    ]);
    // A batch file hands its arguments to cmd.exe again: escaped twice (npx.cmd above too).
    const shim = spawnCommand(
      'C:\\w\\node_modules\\.bin\\server.cmd',
      ['a&b'],
      'win32',
      'C:\\Windows\\System32\\cmd.exe',
    );
    assert.deepEqual(shim.args, ['/d', '/s', '/c', '"C:\\w\\node_modules\\.bin\\server.cmd ^^^"a^^^&b^^^""']);
    assert.equal(shim.command, 'C:\\Windows\\System32\\cmd.exe');
  });
});
