/**
 * The MCP servers the workspace's `.vscode/mcp.json` and the user's configuration name, as tool
 * sources of the agent. Nothing starts by itself: a server starts when the user turns it on in
 * the tool picker (`setEnabled`), which is the consent. Before the first start of a launch in a
 * workspace the user sees its exact command line or URL and agrees; the agreement is kept per
 * workspace against a hash of the whole launch, so a changed command, argument, variable, URL or
 * header asks again. Nothing starts in Restricted Mode.
 *
 * The MCP client (`mcpBundle.ts`) is evaluated on the first start. Every tool of a
 * running server is offered as `mcp_<server>_<tool>`, and every call asks first.
 */
import * as vscode from 'vscode';
import { modelToolName, prettyArguments, toolResultText } from '../../../core/agent/externalTools';
import type { ExternalToolInfo } from '../../../core/agent/externalTools';
import {
  environmentReads,
  launchIdentity,
  parseEnvFile,
  workspaceLaunchRefusal,
} from '../../../core/agent/mcpConfig';
import type { McpConfigOrigin, McpLaunch, ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import { ToolInputError } from '../../../core/agent/types';
import type { PreparedCall, ToolSet, ToolSource, ToolSpec } from '../../../core/agent/types';
import { StorageKey, VsCodeSetting } from '../../../core/ids';
import { Disposable } from '../../../core/util/lifecycle';
import { sha256Hex } from '../../../core/util/sha256';
import { textOf } from '../../boundedRead';
import { notify } from '../../notify';
import { readWorkspaceFile, reportSkipped } from '../../workspaceFile';
import { HOST_PLATFORM } from '../../platform';
import type { HostPlatform } from '../../platform';
import type { McpConnection } from './mcpBundle';
import type { McpProgram } from './mcpConsent';
import {
  closeServerProcesses,
  mcpConsentKey,
  mcpDetail,
  mcpLaunchOf,
  mcpProgram,
  mcpProgramSearch,
} from './mcpProgram';
import type { McpProgramSearch } from './mcpProgram';
import { MAX_MCP_CONFIG_BYTES, profileMcpFile, readMcpServers } from './mcpServerConfigs';

export type McpServerState = 'off' | 'starting' | 'running' | 'error';

/** One configured server as the tool picker shows it. */
export interface McpSourceStatus {
  source: ToolSource;
  state: McpServerState;
  /**
   * What starting it runs, as inert text: the command line or the URL; a workspace's values as
   * written, the user's own configuration's environment and header values hidden, values from the
   * user's environment named, never shown; and first, for a workspace's server, the user's
   * environment variables it reads.
   */
  detail: string;
  /** The user's environment variables (`${env:…}`) the launch reads, sorted. */
  environment: string[];
  origin: McpConfigOrigin;
  /** The tools it offers now (empty unless running). */
  tools: ToolSpec[];
  /** Why it is in `error`, or why it cannot start (`${input:…}` variables, Restricted Mode). */
  error?: string;
  /** The process of a running stdio server. */
  pid?: number;
}

/** What the hub needs from the extension; `confirmStart` and `loadClient` are replaceable in tests. */
export interface McpHubDeps {
  logger: { info(m: string): void; warn(m: string): void; debug(m: string): void };
  /** Where consent is remembered (the workspace's state). */
  workspaceState: vscode.Memento;
  /** The extension's `globalStorageUri`, to find the profile's `mcp.json`. */
  globalStorageUri: vscode.Uri;
  clientVersion: string;
  /** Asks the user to start a server, showing `detail`; the default is a modal dialog. */
  confirmStart?: (status: McpSourceStatus) => Promise<boolean>;
  /** The MCP client; the default requires `mcpBundle.ts` (evaluated on first use). */
  loadClient?: () => typeof import('./mcpBundle');
  connectTimeoutMs?: number;
  /** What this host can do (the browser build's `HOST_PLATFORM` by default there; tests pass either). */
  platform?: Pick<HostPlatform, 'stdioMcp'>;
  /** Where a command's program is looked for; the default is this process's PATH, outside the workspace folders. */
  programSearch?: (workspaceFolders: readonly string[]) => McpProgramSearch;
}

interface Entry {
  server: ResolvedMcpServer;
  folder: vscode.WorkspaceFolder | undefined;
  identity: string;
  state: McpServerState;
  error?: string;
  tools: ExternalToolInfo[];
  connection?: McpConnection;
  /** Bumped on every start and stop, so a late answer of an older start is dropped. */
  generation: number;
  stderrLogged: number;
  /** The program a stdio launch runs (an absolute path), or why it cannot run; found on each reload and start. */
  program?: McpProgram;
}

/** Why a server started as a program is listed but never started in the browser. */
export const STDIO_NEEDS_DESKTOP =
  'It starts a program (stdio), which a browser window cannot: it needs a desktop or remote window (a Codespace, a tunnel), where Gateway AI can start it. Servers reached by URL (HTTP) work here.';

/** How much of one server's stderr reaches our log, per start. */
const MAX_STDERR_LOGGED = 32_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
/** How long `shutdown` waits: closing gives a server up to 4 s to end (mcpStdio.ts), then the tree goes. */
const SHUTDOWN_BOUND_MS = 6_000;

export class McpHub extends Disposable implements ToolSet {
  private entries = new Map<string, Entry>();
  private specList: ToolSpec[] = [];
  private readonly byName = new Map<string, { entry: Entry; tool: ExternalToolInfo; spec: ToolSpec }>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when a server's state or tools change, or the configuration does. */
  readonly onDidChange = this.changed.event;
  private loading: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly userFile: vscode.Uri | undefined;

  constructor(private readonly deps: McpHubDeps) {
    super();
    this.userFile = profileMcpFile(deps.globalStorageUri);
    const reload = () => void this.reload();
    const watch = (pattern: vscode.GlobPattern) => {
      const watcher = this.register(vscode.workspace.createFileSystemWatcher(pattern));
      this.register(watcher.onDidChange(reload));
      this.register(watcher.onDidCreate(reload));
      this.register(watcher.onDidDelete(reload));
    };
    watch('**/.vscode/mcp.json');
    if (this.userFile)
      watch(new vscode.RelativePattern(vscode.Uri.joinPath(this.userFile, '..'), 'mcp.json'));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(VsCodeSetting.mcp)) reload();
      }),
    );
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(reload));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.fire()));
    this.loading = this.reload();
  }

  /** The configured servers, read at least once. */
  async ready(): Promise<void> {
    await this.loading;
  }

  sources(): McpSourceStatus[] {
    return [...this.entries.values()].map((e) => this.status(e));
  }

  /**
   * Turns a server on (asking first, the first time this launch starts in this workspace) or
   * off. Resolves with its state once it is running, failed or off.
   */
  async setEnabled(serverId: string, on: boolean): Promise<McpSourceStatus | undefined> {
    await this.loading;
    const entry = this.entries.get(serverId);
    if (!entry) return undefined;
    if (!on) {
      await this.stop(entry, 'off');
      return this.status(entry);
    }
    if (entry.state === 'running' || entry.state === 'starting') return this.status(entry);
    const refusal = this.refusal(entry);
    if (refusal) {
      this.setState(entry, 'error', refusal);
      return this.status(entry);
    }
    // Found again now: the consent names this program, and this program is what starts.
    const program = (entry.program = await this.findProgram(entry));
    if (program && !program.ok) {
      this.setState(entry, 'error', program.reason);
      return this.status(entry);
    }
    if (!(await this.consent(entry, program))) return this.status(entry);
    await this.start(entry, program);
    return this.status(entry);
  }

  specs(): readonly ToolSpec[] {
    return this.specList;
  }

  prepare(name: string, args: unknown, _signal?: AbortSignal): Promise<PreparedCall> {
    const found = this.byName.get(name);
    if (!found) return Promise.reject(new ToolInputError(`There is no MCP tool named "${name}" running.`));
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return Promise.reject(new ToolInputError('The arguments must be a JSON object.'));
    const { entry, tool, spec } = found;
    const input = args as Record<string, unknown>;
    return Promise.resolve({
      confirmation: {
        kind: 'tool',
        name: tool.name,
        source: spec.source.label,
        arguments: prettyArguments(input),
      },
      run: async (signal) => {
        const connection = entry.state === 'running' ? entry.connection : undefined;
        if (!connection)
          return { text: `The MCP server "${entry.server.name}" is not running.`, isError: true };
        try {
          return toolResultText(await connection.callTool(tool.name, input, signal));
        } catch (error) {
          if (signal.aborted) throw error;
          return {
            text: `The MCP server "${entry.server.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
            isError: true,
          };
        }
      },
    });
  }

  /** Reads the configuration again; servers whose launch changed or went away are stopped. */
  reload(): Promise<void> {
    const next = (this.loading ?? Promise.resolve()).then(async () => {
      if (this.isDisposed) return;
      const read = await readMcpServers({ userFile: this.userFile });
      for (const problem of read.problems) this.deps.logger.warn(`MCP configuration: ${problem}`);
      for (const { file, reason } of read.skipped)
        reportSkipped(this.deps.logger, 'the MCP configuration', file, reason);
      const entries = new Map<string, Entry>();
      for (const server of read.servers) {
        const identity = identityOf(server);
        const old = this.entries.get(server.name);
        if (old && old.identity === identity) {
          old.server = server;
          entries.set(server.name, old);
          continue;
        }
        if (old) await this.stop(old, 'off');
        entries.set(server.name, {
          server,
          folder: read.folders.get(server.name),
          identity,
          state: 'off',
          tools: [],
          generation: 0,
          stderrLogged: 0,
        });
      }
      for (const [name, old] of this.entries) if (!entries.has(name)) await this.stop(old, 'off');
      for (const entry of entries.values()) entry.program = await this.findProgram(entry);
      this.entries = entries;
      this.fire();
    });
    this.loading = next.catch((error: unknown) =>
      this.deps.logger.warn(`MCP configuration could not be read: ${String(error)}`),
    );
    return this.loading;
  }

  /**
   * Stops every server with everything it started, for the extension's `deactivate` to wait on;
   * resolves when they are gone or after `boundMs`, whichever is first.
   */
  shutdown(boundMs = SHUTDOWN_BOUND_MS): Promise<void> {
    this.stopping ??= Promise.all([...this.entries.values()].map((e) => this.stop(e, 'off'))).then(
      () => undefined,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    return Promise.race([this.stopping, bound]).finally(() => clearTimeout(timer));
  }

  override dispose(): void {
    void this.shutdown();
    super.dispose();
  }

  private refusal(entry: Entry): string | undefined {
    if (entry.server.launch.type === 'stdio' && !(this.deps.platform ?? HOST_PLATFORM).stdioMcp)
      return STDIO_NEEDS_DESKTOP;
    if (!vscode.workspace.isTrusted)
      return 'MCP servers do not start in Restricted Mode. Trust the workspace first.';
    const workspaceRefusal = workspaceLaunchRefusal(entry.server);
    if (workspaceRefusal) return workspaceRefusal;
    if (entry.server.needsInput.length)
      return `It asks for ${entry.server.needsInput.map((i) => `\${input:${i}}`).join(', ')}, which only VS Code's own chat can prompt for. Put the value in the configuration (or an envFile) to start it here.`;
    return undefined;
  }

  /** Where a stdio launch's command is found: its absolute path outside the workspace, or why none. */
  private findProgram(entry: Entry): Promise<McpProgram | undefined> {
    return mcpProgram(entry.server, this.cwdOf(entry), this.programSearch());
  }

  /** PATH and the file system, with the workspace's folders as the places never searched. */
  private programSearch(): McpProgramSearch {
    const folders = (vscode.workspace.workspaceFolders ?? []).flatMap((f) =>
      f.uri.scheme === 'file' ? [f.uri.fsPath] : [],
    );
    return (this.deps.programSearch ?? mcpProgramSearch)(folders);
  }

  /** A stdio server's working folder: the configuration's, or its workspace folder. */
  private cwdOf(entry: Entry): string | undefined {
    const launch = entry.server.launch;
    if (launch.type !== 'stdio') return undefined;
    return launch.cwd ?? (entry.folder?.uri.scheme === 'file' ? entry.folder.uri.fsPath : undefined);
  }

  private async consent(entry: Entry, program: McpProgram | undefined): Promise<boolean> {
    const key = mcpConsentKey(entry.identity, program);
    const agreed = this.deps.workspaceState.get<unknown>(StorageKey.mcpConsent);
    const list = Array.isArray(agreed) ? agreed.filter((k): k is string => typeof k === 'string') : [];
    if (list.includes(key)) return true;
    const ask = this.deps.confirmStart ?? askToStart;
    if (!(await ask(this.status(entry)))) return false;
    // Newest last; a bounded list, so a workspace whose config changes often does not grow it forever.
    await this.deps.workspaceState.update(StorageKey.mcpConsent, [...list, key].slice(-100));
    return true;
  }

  private async start(entry: Entry, program: McpProgram | undefined): Promise<void> {
    const generation = ++entry.generation;
    entry.stderrLogged = 0;
    this.setState(entry, 'starting');
    const name = entry.server.name;
    const secrets = secretsOf(entry.server.launch);
    let connection: McpConnection | undefined;
    try {
      const launch = await this.launchOf(entry, program);
      const client = (this.deps.loadClient ?? loadMcpBundle)();
      connection = await client.connectMcpServer({
        launch,
        connectTimeoutMs: this.deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        clientVersion: this.deps.clientVersion,
        onStderr: (text) => this.logStderr(entry, generation, text, secrets),
        onToolsChanged: () => void this.refreshTools(entry, generation),
        onClosed: (reason) => {
          if (entry.generation !== generation) return;
          entry.connection = undefined;
          this.deps.logger.warn(`MCP server "${name}": ${reason}`);
          this.setState(entry, 'error', `The server stopped. See the Gateway AI log for its output.`);
        },
      });
      if (entry.generation !== generation) {
        await connection.close().catch(() => undefined);
        return;
      }
      entry.connection = connection;
      entry.tools = await connection.listTools();
      if (entry.generation !== generation) return;
      this.deps.logger.info(`MCP server "${name}" started with ${entry.tools.length} tool(s).`);
      this.setState(entry, 'running');
    } catch (error) {
      if (entry.generation !== generation) return;
      entry.connection = undefined;
      await connection?.close().catch(() => undefined);
      const message = redactAll(error instanceof Error ? error.message : String(error), secrets);
      this.deps.logger.warn(`MCP server "${name}" did not start: ${message}`);
      this.setState(entry, 'error', `It did not start: ${message}`);
    }
  }

  /**
   * The launch with the env file's variables under the config's own, the folder as cwd, and the
   * program the user agreed to by its absolute path.
   */
  private async launchOf(entry: Entry, program: McpProgram | undefined): Promise<McpLaunch> {
    const launch = entry.server.launch;
    if (launch.type !== 'stdio') return launch;
    if (!program?.ok) throw new Error(program?.reason ?? 'its program was not found');
    let fromFile: Record<string, string> = {};
    if (launch.envFile) {
      const absolute = /^([\\/]|[A-Za-z]:[\\/])/.test(launch.envFile);
      const file =
        !absolute && entry.folder
          ? vscode.Uri.joinPath(entry.folder.uri, launch.envFile)
          : vscode.Uri.file(launch.envFile);
      const read = await readWorkspaceFile(file, MAX_MCP_CONFIG_BYTES);
      if (!read.ok) throw new Error(`its envFile ${file.fsPath} was not read: ${read.reason}`);
      fromFile = parseEnvFile(textOf(read.bytes));
    }
    const cwd = this.cwdOf(entry);
    return mcpLaunchOf(
      { ...launch, env: { ...fromFile, ...launch.env }, ...(cwd ? { cwd } : {}) },
      program.program,
      this.programSearch(),
    );
  }

  private async refreshTools(entry: Entry, generation: number): Promise<void> {
    const connection = entry.connection;
    if (!connection || entry.generation !== generation) return;
    try {
      const tools = await connection.listTools();
      if (entry.generation !== generation) return;
      entry.tools = tools;
      this.fire();
    } catch (error) {
      this.deps.logger.warn(`MCP server "${entry.server.name}": listing its tools failed: ${String(error)}`);
    }
  }

  private async stop(entry: Entry, state: 'off'): Promise<void> {
    entry.generation++;
    const connection = entry.connection;
    entry.connection = undefined;
    entry.tools = [];
    this.setState(entry, state);
    if (!connection) return;
    const left = await closeServerProcesses(connection.pid, () =>
      connection
        .close()
        .catch((error: unknown) =>
          this.deps.logger.warn(`MCP server "${entry.server.name}" did not stop cleanly: ${String(error)}`),
        ),
    );
    if (left) this.deps.logger.info(`MCP server "${entry.server.name}": ended ${left} process(es) it left.`);
  }

  private logStderr(entry: Entry, generation: number, text: string, secrets: string[]): void {
    if (entry.generation !== generation || entry.stderrLogged >= MAX_STDERR_LOGGED) return;
    const room = MAX_STDERR_LOGGED - entry.stderrLogged;
    entry.stderrLogged += text.length;
    const cut =
      text.length > room ? `${text.slice(0, room)}\n[further output of this server is not logged]` : text;
    for (const line of redactAll(cut, secrets).split(/\r?\n/))
      if (line.trim()) this.deps.logger.debug(`[MCP ${entry.server.name}] ${line.slice(0, 2_000)}`);
  }

  private setState(entry: Entry, state: McpServerState, error?: string): void {
    entry.state = state;
    entry.error = error;
    if (state !== 'running') entry.tools = [];
    this.fire();
  }

  private fire(): void {
    this.rebuildSpecs();
    this.changed.fire();
  }

  /** The model's names for every running server's tools, unique across servers, in config order. */
  private rebuildSpecs(): void {
    const taken = new Set<string>();
    this.byName.clear();
    this.specList = [];
    for (const entry of this.entries.values()) {
      if (entry.state !== 'running') continue;
      for (const tool of entry.tools) {
        const spec: ToolSpec = {
          name: modelToolName(`mcp_${entry.server.name}`, tool.name, taken),
          description: tool.description,
          parameters: tool.inputSchema,
          source: sourceOf(entry),
          readOnly: false,
        };
        this.specList.push(spec);
        this.byName.set(spec.name, { entry, tool, spec });
      }
    }
  }

  private status(entry: Entry): McpSourceStatus {
    const status: McpSourceStatus = {
      source: sourceOf(entry),
      state: entry.state,
      detail: mcpDetail(entry.server, entry.program, this.cwdOf(entry)),
      environment: environmentReads(entry.server.template),
      origin: entry.server.origin,
      tools: this.specList.filter((s) => this.byName.get(s.name)?.entry === entry),
    };
    const unfound = entry.program && !entry.program.ok ? entry.program.reason : undefined;
    const error = entry.error ?? (entry.state === 'off' ? (this.refusal(entry) ?? unfound) : undefined);
    if (error) status.error = error;
    const pid = entry.state === 'running' ? entry.connection?.pid : undefined;
    if (pid !== undefined) status.pid = pid;
    return status;
  }
}

/** What consent is kept against: the launch as written, with the name and where it is written. */
function identityOf(server: ResolvedMcpServer): string {
  return launchIdentity({ name: server.name, origin: server.origin, launch: server.template });
}

function sourceOf(entry: Entry): ToolSource {
  const { name, origin } = entry.server;
  return {
    kind: 'mcp',
    id: name,
    label: origin === 'workspace' ? `${name} (workspace)` : name,
    // A workspace's "github" is not the user's "github": approvals are kept per launch.
    fingerprint: fingerprintOf(entry.identity),
  };
}

/** `ToolSource.fingerprint`: the start of the hash consent is kept against. */
function fingerprintOf(identity: string): string {
  return sha256Hex(identity).slice(0, 16);
}

/** Values in a launch that may be credentials (environment values, header values), for redaction. */
function secretsOf(launch: McpLaunch): string[] {
  const values = launch.type === 'stdio' ? Object.values(launch.env) : Object.values(launch.headers);
  return values.filter((v) => v.length >= 8);
}

function redactAll(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => t.split(s).join('[redacted]'), text);
}

/** The default consent: a modal dialog with the exact launch, as plain text. */
function askToStart(status: McpSourceStatus): Promise<boolean> {
  const where =
    status.origin === 'workspace' ? "this workspace's .vscode/mcp.json" : 'your MCP configuration';
  const reads = status.environment.map((n) => `$${n}`).join(', ');
  // A workspace's launch is shown as written, not redacted: it is what will run (its values
  // verbatim, the user's own environment only by name; see describeMcpServer).
  const message =
    status.origin === 'workspace' && reads
      ? `Start the MCP server "${status.source.label}"? It reads ${reads} from your environment.`
      : `Start the MCP server "${status.source.label}"?`;
  const detail = `As ${where} says, this runs with your permissions:\n\n${status.detail}\n\nGateway AI asks again if this configuration changes.`;
  return status.origin === 'workspace'
    ? notify.confirmVerbatim(message, detail, 'Start')
    : notify.confirm(message, detail, 'Start');
}

function loadMcpBundle(): typeof import('./mcpBundle') {
  // Bundled in, and evaluated only on this first `require` (esbuild keeps a required module's body
  // unrun until then), so activation does not run it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./mcpBundle') as typeof import('./mcpBundle');
}
