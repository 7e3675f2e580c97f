/**
 * MCP's stdio transport: the server's program started with its arguments, environment and folder,
 * one JSON-RPC message per line both ways (a line bounded in size), its stderr passed on as it
 * comes. The program is the absolute path `mcpProgram.ts` found; on Windows a batch file
 * (`npx.cmd`) runs through `cmd.exe` with its arguments quoted for it, as `cross-spawn` does.
 * Desktop only: `mcpConnection.ts` uses it, the browser build has none.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { MAX_MCP_MESSAGE_CHARS } from '../../../core/mcp/mcpMessages';
import type { McpOutgoing, McpTransport, McpTransportSink } from '../../../core/mcp/mcpSession';

/**
 * The variables of this process a server inherits when its configuration does not set them: a
 * short list (sudo's defaults on POSIX), never the user's tokens or keys. Values that start with
 * `()` (exported shell functions) are left out.
 */
export const INHERITED_ENV_VARS: Readonly<Record<'win32' | 'posix', readonly string[]>> = {
  win32: [
    'APPDATA',
    'HOMEDRIVE',
    'HOMEPATH',
    'LOCALAPPDATA',
    'PATH',
    'PROCESSOR_ARCHITECTURE',
    'SYSTEMDRIVE',
    'SYSTEMROOT',
    'TEMP',
    'USERNAME',
    'USERPROFILE',
    'PROGRAMFILES',
  ],
  posix: ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'],
};

/** The inherited part of a server's environment, from `env` (this process's). */
export function defaultEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of INHERITED_ENV_VARS[platform === 'win32' ? 'win32' : 'posix']) {
    const value = env[key];
    if (value === undefined || value.startsWith('()')) continue;
    out[key] = value;
  }
  return out;
}

/** cmd.exe's special characters, escaped with `^`. */
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/**
 * What `spawn` runs for `program args` on `platform`: itself, or on Windows a program that is not
 * an `.exe` or `.com` through `cmd.exe /d /s /c "…"` with every part quoted and escaped for it;
 * a batch file's arguments twice, since it hands them to cmd.exe's reading again (`%*` in npm's
 * `npx.cmd` and in every npm shim, global or in `node_modules\.bin`). Escaped once, an argument
 * `pkg"&calc&"` closes the batch file's quotes there and `calc` runs.
 */
export function spawnCommand(
  program: string,
  args: readonly string[],
  platform: string,
  cmd: string,
): { command: string; args: string[]; verbatim: boolean } {
  if (platform !== 'win32' || /\.(com|exe)$/i.test(program))
    return { command: program, args: [...args], verbatim: false };
  const twice = /\.(bat|cmd)$/i.test(program);
  const quote = (arg: string) => {
    let quoted = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
    quoted = `"${quoted}"`.replace(CMD_META, '^$1');
    return twice ? quoted.replace(CMD_META, '^$1') : quoted;
  };
  const line = [path.win32.normalize(program).replace(CMD_META, '^$1'), ...args.map(quote)].join(' ');
  return { command: cmd, args: ['/d', '/s', '/c', `"${line}"`], verbatim: true };
}

export interface StdioLaunch {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  onStderr(text: string): void;
}

/** How long `close` waits after ending stdin, and again after SIGTERM, before it signals harder. */
const EXIT_GRACE_MS = 2_000;

export class McpStdioTransport implements McpTransport {
  readonly repliesInline = false;
  private child: ChildProcess | undefined;
  private closing = false;
  /** The bytes of the line being read, and how many. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** The rest of an overlong line is skipped up to its end. */
  private skipping = false;

  constructor(private readonly launch: StdioLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(sink: McpTransportSink): Promise<void> {
    // cmd.exe by its full path: by name, Windows would look in the working folder (the repository) first.
    const cmd =
      process.env.ComSpec || path.win32.join(process.env.SystemRoot || 'C:\\Windows', 'System32', 'cmd.exe');
    const { command, args, verbatim } = spawnCommand(
      this.launch.command,
      this.launch.args,
      process.platform,
      cmd,
    );
    const child = spawn(command, args, {
      env: { ...defaultEnvironment(process.env, process.platform), ...this.launch.env },
      ...(this.launch.cwd ? { cwd: this.launch.cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      windowsVerbatimArguments: verbatim,
    });
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => this.launch.onStderr(String(chunk)));
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk, sink));
    // A write to a server that has exited fails here; its exit is reported by 'close'.
    child.stdin?.on('error', () => undefined);
    child.stdout?.on('error', (error: Error) => sink.problem(`its output broke: ${error.message}`));
    child.stderr?.on('error', () => undefined);
    return new Promise<void>((resolve, reject) => {
      // `on`, not `once`: a later error (a failed kill) must not go unheard and end the host.
      child.on('error', (error) => {
        reject(error);
        if (!this.closing) sink.closed(error.message);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        if (this.child === child) this.child = undefined;
        if (!this.closing)
          sink.closed(signal ? `the server was ended by ${signal}` : `the server exited with code ${code}`);
      });
    });
  }

  send(message: McpOutgoing): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable)
      return Promise.reject(new Error('the server is not running'));
    return new Promise<void>((resolve, reject) => {
      const line = `${JSON.stringify(message)}\n`;
      if (stdin.write(line, (error) => (error ? reject(error) : undefined))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends stdin, then SIGTERM, then SIGKILL, each after a grace period (what the server tree leaves is `closeServerProcesses`'). */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    this.child = undefined;
    this.chunks = [];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const grace = () =>
      Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, EXIT_GRACE_MS).unref())]);
    child.stdin?.end();
    await grace();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await grace();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Lines out of stdout's bytes; a line longer than a message may be is skipped and reported. */
  private read(chunk: Buffer, sink: McpTransportSink): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, end), sink);
      const line = this.skipping ? undefined : Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      this.size = 0;
      this.skipping = false;
      start = end + 1;
      if (line !== undefined && line.trim()) sink.message(line.replace(/\r$/, ''));
    }
    this.take(chunk.subarray(start), sink);
  }

  private take(part: Buffer, sink: McpTransportSink): void {
    if (this.skipping || !part.length) return;
    this.size += part.length;
    if (this.size > MAX_MCP_MESSAGE_CHARS) {
      this.chunks = [];
      this.skipping = true;
      sink.problem(`a line longer than ${MAX_MCP_MESSAGE_CHARS} bytes, skipped`);
      return;
    }
    this.chunks.push(part);
  }
}
