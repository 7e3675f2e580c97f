/**
 * MCP server configuration as VS Code keeps it: the workspace's `.vscode/mcp.json`, the user's
 * profile `mcp.json` (VS Code 1.102+) and the older `mcp` user setting (1.100–1.101), all of the
 * shape `{ servers: { <name>: <server> }, inputs? }`. Parsed by type at this one boundary,
 * tolerant of comments, trailing commas and wrong-typed fields; a server that cannot be understood
 * is reported, never guessed at. Pure: the host reads the files and supplies the variables.
 */
import { isRecord } from '../../api/json';

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

/** Substitutes `${workspaceFolder}`, `${userHome}` and `${env:X}`; collects `${input:…}`. */
export function resolveMcpServer(server: McpServerConfig, vars: McpVariables): ResolvedMcpServer {
  const needsInput = new Set<string>();
  const sub = (text: string): string =>
    text.replace(VARIABLE, (whole, name: string) => {
      if (name === 'workspaceFolder' && vars.workspaceFolder !== undefined) return vars.workspaceFolder;
      if (name === 'userHome' && vars.userHome !== undefined) return vars.userHome;
      if (name.startsWith('env:')) return vars.env[name.slice(4)] ?? '';
      if (name.startsWith('input:')) needsInput.add(name.slice(6));
      return whole;
    });
  const subMap = (map: Record<string, string>) =>
    Object.fromEntries(Object.entries(map).map(([k, v]) => [k, sub(v)]));
  const l = server.launch;
  const launch: McpLaunch =
    l.type === 'stdio'
      ? {
          type: 'stdio',
          command: sub(l.command),
          args: l.args.map(sub),
          env: subMap(l.env),
          ...(l.cwd !== undefined ? { cwd: sub(l.cwd) } : {}),
          ...(l.envFile !== undefined ? { envFile: sub(l.envFile) } : {}),
        }
      : { type: l.type, url: sub(l.url), headers: subMap(l.headers) };
  return { ...server, launch, needsInput: [...needsInput] };
}

/** One argument as a POSIX shell would need it, so the line shown is the line that runs. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * What the user consents to, as inert text: the environment the config sets (names, and values
 * too: they are part of what runs), the working folder and the exact command line; or the URL
 * and the header names (their values are often credentials, and are not needed to recognise it).
 */
export function describeLaunch(launch: McpLaunch): string {
  if (launch.type !== 'stdio') {
    const headers = Object.keys(launch.headers);
    return `${launch.type.toUpperCase()} ${launch.url}${headers.length ? ` (headers: ${headers.join(', ')})` : ''}`;
  }
  const env = Object.entries(launch.env).map(([k, v]) => `${k}=${shellQuote(v)} `);
  const cwd = launch.cwd ? `cd ${shellQuote(launch.cwd)} && ` : '';
  const envFile = launch.envFile ? ` (environment from ${launch.envFile})` : '';
  return `${cwd}${env.join('')}${[launch.command, ...launch.args].map(shellQuote).join(' ')}${envFile}`;
}

/**
 * The launch as canonical JSON (keys sorted): what consent is remembered against, so any change
 * (a different argument, variable, header or URL) asks again. The host stores only its hash.
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
