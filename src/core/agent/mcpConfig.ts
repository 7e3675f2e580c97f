/**
 * MCP server configuration as VS Code keeps it: the workspace's `.vscode/mcp.json`, the user's
 * profile `mcp.json` (VS Code 1.102+) and the older `mcp` user setting (1.100–1.101), all of the
 * shape `{ servers: { <name>: <server> }, inputs? }`. Parsed by type at this one boundary,
 * tolerant of comments, trailing commas and wrong-typed fields; a server that cannot be understood
 * is reported, never guessed at. Pure: the host reads the files and supplies the variables.
 */
import { isRecord } from '../../api/json';
import { visibleText } from './hiddenText';

/** Which configuration named the server. */
export type McpConfigOrigin = 'workspace' | 'user';

export type McpLaunch =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
      envFile?: string;
    }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

export interface McpServerConfig {
  /** The name the configuration gives it: the source id and the tool-name prefix. */
  name: string;
  origin: McpConfigOrigin;
  launch: McpLaunch;
}

export interface McpConfigParse {
  servers: McpServerConfig[];
  /** What was skipped, and why, one line each (for the log). */
  problems: string[];
}

/** The variables `${...}` may name. Unknown ones are left as written. */
export interface McpVariables {
  workspaceFolder?: string;
  userHome?: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** A server with its variables substituted, or why it cannot start yet. */
export interface ResolvedMcpServer extends McpServerConfig {
  /** `${input:…}` names still in it: VS Code prompts for these in its own chat; we cannot. */
  needsInput: string[];
  /** The launch as the configuration writes it: what consent and approvals are keyed on. */
  template: McpLaunch;
  /**
   * The launch to show: `${workspaceFolder}` and `${userHome}` substituted (they are not secret
   * and say where it runs), `${env:…}` and `${input:…}` left as written, never their values.
   */
  shown: McpLaunch;
}

/**
 * JSONC as VS Code reads it: `//` and `/* *\/` comments and trailing commas, outside strings,
 * are dropped; the rest is JSON. Returns `undefined` for text that is not JSON even then.
 */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      out += ' ';
    } else if (c === ',') {
      // A trailing comma: the next significant character closes the object or array.
      let j = i + 1;
      for (;;) {
        while (j < n && /\s/.test(text[j])) j++;
        if (text[j] === '/' && text[j + 1] === '/') {
          while (j < n && text[j] !== '\n') j++;
        } else if (text[j] === '/' && text[j + 1] === '*') {
          const end = text.indexOf('*/', j + 2);
          j = end < 0 ? n : end + 2;
        } else break;
      }
      if (text[j] !== '}' && text[j] !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  try {
    return JSON.parse(out) as unknown;
  } catch {
    return undefined;
  }
}

/** Names the model sees are built from server names; these are the ones we keep. */
const MAX_SERVER_NAME = 64;

/**
 * The servers of one configuration: `{ servers: {...} }` (mcp.json) or the `mcp` setting's value,
 * which has the same shape. `inputs` are not read: a server that uses one says so when resolved.
 */
export function parseMcpConfig(value: unknown, origin: McpConfigOrigin): McpConfigParse {
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  if (value === undefined || value === null) return { servers, problems };
  if (!isRecord(value)) return { servers, problems: ['the configuration is not a JSON object'] };
  const table = value.servers;
  if (table === undefined) return { servers, problems };
  if (!isRecord(table)) return { servers, problems: ['"servers" is not an object'] };
  for (const [name, raw] of Object.entries(table)) {
    const shown = JSON.stringify(name.slice(0, MAX_SERVER_NAME));
    if (!name.trim() || name.length > MAX_SERVER_NAME) {
      problems.push(`a server name is empty or longer than ${MAX_SERVER_NAME} characters`);
      continue;
    }
    // A colon would let a name pass for another source's id (`vscode-mcp:github`).
    if (name.includes(':')) {
      problems.push(`server ${shown}: a server name cannot hold ":"`);
      continue;
    }
    const launch = parseLaunch(raw);
    if (typeof launch === 'string') problems.push(`server ${shown}: ${launch}`);
    else servers.push({ name, origin, launch });
  }
  return { servers, problems };
}

function parseLaunch(raw: unknown): McpLaunch | string {
  if (!isRecord(raw)) return 'not an object';
  const type = raw.type;
  if (type === 'http' || type === 'sse' || (type === undefined && typeof raw.url === 'string')) {
    if (typeof raw.url !== 'string' || !raw.url) return 'no "url"';
    return { type: type === 'sse' ? 'sse' : 'http', url: raw.url, headers: stringMap(raw.headers) };
  }
  if (type !== undefined && type !== 'stdio')
    return `unknown type ${JSON.stringify(typeof type === 'string' ? type : typeof type)}`;
  if (typeof raw.command !== 'string' || !raw.command.trim()) return 'no "command"';
  const launch: McpLaunch = {
    type: 'stdio',
    command: raw.command,
    args: Array.isArray(raw.args)
      ? raw.args.filter((a) => typeof a === 'string' || typeof a === 'number').map(String)
      : [],
    env: stringMap(raw.env),
  };
  if (typeof raw.cwd === 'string' && raw.cwd) launch.cwd = raw.cwd;
  if (typeof raw.envFile === 'string' && raw.envFile) launch.envFile = raw.envFile;
  return launch;
}

/** A `{name: value}` map of strings; numbers and booleans as text; `null` values dropped. */
function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

const VARIABLE = /\$\{([^}]*)\}/g;

function mapLaunch(l: McpLaunch, sub: (text: string) => string): McpLaunch {
  const subMap = (map: Record<string, string>) =>
    Object.fromEntries(Object.entries(map).map(([k, v]) => [k, sub(v)]));
  return l.type === 'stdio'
    ? {
        type: 'stdio',
        command: sub(l.command),
        args: l.args.map(sub),
        env: subMap(l.env),
        ...(l.cwd !== undefined ? { cwd: sub(l.cwd) } : {}),
        ...(l.envFile !== undefined ? { envFile: sub(l.envFile) } : {}),
      }
    : { type: l.type, url: sub(l.url), headers: subMap(l.headers) };
}

/** Substitutes `${workspaceFolder}`, `${userHome}` and `${env:X}`; collects `${input:…}`. */
export function resolveMcpServer(server: McpServerConfig, vars: McpVariables): ResolvedMcpServer {
  const needsInput = new Set<string>();
  const place = (name: string): string | undefined => {
    if (name === 'workspaceFolder') return vars.workspaceFolder;
    if (name === 'userHome') return vars.userHome;
    return undefined;
  };
  const launch = mapLaunch(server.launch, (text) =>
    text.replace(VARIABLE, (whole, name: string) => {
      if (name.startsWith('env:')) return vars.env[name.slice(4)] ?? '';
      if (name.startsWith('input:')) needsInput.add(name.slice(6));
      return place(name) ?? whole;
    }),
  );
  const shown = mapLaunch(server.launch, (text) =>
    text.replace(VARIABLE, (whole, name: string) => place(name) ?? whole),
  );
  return { ...server, launch, needsInput: [...needsInput], template: server.launch, shown };
}

/** The `${env:…}` variables a launch reads from the user's environment, sorted, each once. */
export function environmentReads(launch: McpLaunch): string[] {
  const texts =
    launch.type === 'stdio'
      ? [launch.command, ...launch.args, ...Object.values(launch.env), launch.cwd ?? '', launch.envFile ?? '']
      : [launch.url, ...Object.values(launch.headers)];
  const names = new Set<string>();
  for (const text of texts)
    for (const m of text.matchAll(VARIABLE)) if (m[1].startsWith('env:')) names.add(m[1].slice(4));
  return [...names].sort();
}

/** One argument as a POSIX shell would need it, so the line shown is the line that runs. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Text with its `${env:X}` references as `$X`, and its other pieces through `literal`: the shell
 * quoting of a command line, or a mask for a value that may be a credential.
 */
function showText(text: string, literal: (piece: string) => string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(VARIABLE)) {
    const index = m.index ?? 0;
    if (index > last) out += literal(text.slice(last, index));
    const name = m[1].startsWith('env:') ? m[1].slice(4) : undefined;
    const next = text.slice(index + m[0].length);
    if (name === undefined) out += literal(m[0]);
    else
      out +=
        /^[A-Za-z0-9_]/.test(next) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `\${${name}}` : `$${name}`;
    last = index + m[0].length;
  }
  if (last < text.length) out += literal(text.slice(last));
  return out;
}

const MASK = '•••';
const masked = (value: string): string => showText(value, () => MASK).replace(/(•••)+/g, MASK);

/**
 * What the user consents to, as inert text on one line: the working folder, the environment the
 * config sets and the exact command line; or the URL and the headers. A value taken from the
 * user's environment is shown as `$NAME` (which of their variables goes to the server, never its
 * value), an `${input:…}` as written. Give it the `shown` launch, never the resolved one.
 *
 * `verbatim` (a workspace's server): every value the configuration wrote is shown as written,
 * environment and header values and a URL's user-info included: `NODE_OPTIONS=--require ./x.js`
 * or `LD_PRELOAD` is what the user must see. Characters that would hide text (controls, bidi,
 * zero-width, line breaks) are written out as `⟨U+XXXX⟩`. Without it (the user's own
 * configuration), values of the environment and of the headers are `•••`: often the user's
 * credentials, and nothing a repository chose.
 */
export function describeLaunch(launch: McpLaunch, verbatim = false, program?: string): string {
  const plain = (piece: string) => visibleText(piece);
  if (launch.type !== 'stdio') {
    const headers = Object.entries(launch.headers).map(([k, v]) => {
      if (verbatim) return `header ${visibleText(k)}: ${showText(v, plain)}`;
      const reads = environmentReads({ type: 'http', url: '', headers: { k: v } });
      return reads.length
        ? `sends ${reads.map((n) => `$${n}`).join(', ')} in header ${k}`
        : `header ${k}: ${MASK}`;
    });
    return [`${launch.type.toUpperCase()} ${showText(launch.url, plain)}`, ...headers].join(', ');
  }
  const quote = (text: string) => showText(text, (piece) => shellQuote(visibleText(piece)));
  const env = Object.entries(launch.env).map(
    ([k, v]) => `${visibleText(k)}=${verbatim ? quote(v) : masked(v)} `,
  );
  const cwd = launch.cwd ? `cd ${quote(launch.cwd)} && ` : '';
  const envFile = launch.envFile ? ` (environment from ${showText(launch.envFile, plain)})` : '';
  // The program found for the command (its absolute path), as written: it is what runs.
  const first = program === undefined ? quote(launch.command) : shellQuote(visibleText(program));
  return `${cwd}${env.join('')}${[first, ...launch.args.map(quote)].join(' ')}${envFile}`;
}

/**
 * The text the tool picker and the consent show for a server: its launch, and first, for a
 * server a workspace names, every variable of the user's environment it reads: a repository's
 * configuration can send `${env:GITHUB_TOKEN}` anywhere, and the user must see that before it does.
 * A workspace's server is shown verbatim (see `describeLaunch`). `program` is the absolute path
 * the command was found at, shown in its place: the program the user agrees to run.
 */
export function describeMcpServer(server: ResolvedMcpServer, program?: string, folder?: string): string {
  const reads = environmentReads(server.template);
  const workspace = server.origin === 'workspace';
  const warning =
    workspace && reads.length
      ? `Reads your environment variable${reads.length > 1 ? 's' : ''} ${reads.map((n) => `$${n}`).join(', ')} and passes ${reads.length > 1 ? 'them' : 'it'} to the server. `
      : '';
  const launch = server.shown;
  // A stdio server with no folder of its own starts in its workspace folder: shown, since a package
  // runner there (npx, uvx, python -m) takes that folder's own packages and settings first.
  const inFolder = launch.type === 'stdio' && !launch.cwd && folder !== undefined;
  const shown = inFolder ? { ...launch, cwd: folder } : launch;
  const note = inFolder
    ? ' (It starts in the workspace folder, so a package runner such as npx or uvx uses that folder\u2019s own packages and settings, such as node_modules and .npmrc, before any other.)'
    : '';
  return `${warning}${describeLaunch(shown, workspace, program)}${workspace ? note : ''}`;
}

/**
 * Why a server a workspace names may not start here, or undefined. An `envFile` is refused: its
 * variables (`NODE_OPTIONS`, `LD_PRELOAD`…) would reach the process without being part of what
 * the user saw and agreed to, and the file can change after the consent.
 */
export function workspaceLaunchRefusal(server: McpServerConfig): string | undefined {
  if (server.origin !== 'workspace' || server.launch.type !== 'stdio' || !server.launch.envFile)
    return undefined;
  return `It sets its environment from a file ("envFile": ${JSON.stringify(visibleText(server.launch.envFile))}), which a workspace's server may not do here: what it sets would not be shown before it starts. Put the variables in its "env" (values from your environment as \${env:NAME}).`;
}

/**
 * The launch as canonical JSON (keys sorted): what consent is remembered against, so any change
 * (a different argument, variable, header or URL) asks again. The host stores only its hash.
 * Give it the server as written (a `ResolvedMcpServer`'s `template`): a changed `${env:…}`
 * reference asks again, and no value of the user's environment goes into it.
 */
export function launchIdentity(server: McpServerConfig): string {
  const canonical = (value: unknown): unknown =>
    isRecord(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, canonical(value[k])]),
        )
      : Array.isArray(value)
        ? value.map(canonical)
        : value;
  return JSON.stringify(canonical({ name: server.name, origin: server.origin, launch: server.launch }));
}

/** Parses `KEY=value` lines of an env file (`#` comments, optional quotes, `export ` prefix). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    let value = m[2];
    if (/^(['"]).*\1$/.test(value) && value.length >= 2) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    out[m[1]] = value;
  }
  return out;
}
