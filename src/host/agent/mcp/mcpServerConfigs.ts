/**
 * Where VS Code keeps MCP server configuration, read for the hub:
 * - each workspace folder's `.vscode/mcp.json` (`${workspaceFolder}` is that folder);
 * - the user's: the profile's `mcp.json` (VS Code 1.102+: `<user data>/User/mcp.json` for the
 *   default profile, `<user data>/User/profiles/<id>/mcp.json` for another, the file *MCP: Open
 *   User Configuration* opens), found beside the profile's `globalStorage` folder; and the `mcp`
 *   user setting VS Code 1.99–1.101 used (1.102 moved it into that file).
 * A name in the workspace's configuration wins over the same name in the user's.
 */
import * as vscode from 'vscode';
import { VsCodeSetting } from '../../../core/ids';
import { parseJsonc, parseMcpConfig, resolveMcpServer } from '../../../core/agent/mcpConfig';
import type { McpConfigParse, ResolvedMcpServer } from '../../../core/agent/mcpConfig';
import { textOf } from '../../boundedRead';
import { readWorkspaceFile } from '../../workspaceFile';
import { hostMcpVariables } from './mcpProgram';

/** The largest `mcp.json` read; a larger one (or a link to `/dev/zero`) is skipped, and the user told. */
export const MAX_MCP_CONFIG_BYTES = 1024 * 1024;

export interface McpConfigSources {
  /** The profile's `mcp.json`, or `undefined` where it cannot be found. */
  userFile: vscode.Uri | undefined;
}

/**
 * The profile's `mcp.json`: `globalStorageUri` is `<profile>/globalStorage/<extension id>`, on
 * disk (`file`) or, in the browser, in VS Code's user data (`vscode-userdata`).
 */
export function profileMcpFile(globalStorageUri: vscode.Uri): vscode.Uri | undefined {
  if (globalStorageUri.scheme !== 'file' && globalStorageUri.scheme !== 'vscode-userdata') return undefined;
  return vscode.Uri.joinPath(globalStorageUri, '..', '..', 'mcp.json');
}

/** The folder file of one workspace folder. */
export function workspaceMcpFile(folder: vscode.WorkspaceFolder): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
}

/** The file's text; undefined when it is missing (no servers there) or skipped (said in `skipped`). */
async function readText(uri: vscode.Uri, skipped: SkippedFile[]): Promise<string | undefined> {
  const read = await readWorkspaceFile(uri, MAX_MCP_CONFIG_BYTES);
  if (read.ok) return textOf(read.bytes);
  if (!read.missing) skipped.push({ file: shown(uri), reason: read.reason });
  return undefined;
}

/** A file as messages name it: its path on disk, else its URI (a browser has no paths). */
function shown(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString(true);
}

/** A configuration file that exists but was not read, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

export interface ReadMcpServers {
  servers: ResolvedMcpServer[];
  /** The folder each workspace server belongs to (its default working folder). */
  folders: Map<string, vscode.WorkspaceFolder>;
  problems: string[];
  /** Files not read (not a regular file, too large): the user is told. */
  skipped: SkippedFile[];
}

/** Reads every configuration now, in order: workspace folders first, then the user's. */
export async function readMcpServers(sources: McpConfigSources): Promise<ReadMcpServers> {
  const { userHome, env } = hostMcpVariables();
  const servers: ResolvedMcpServer[] = [];
  const folders = new Map<string, vscode.WorkspaceFolder>();
  const problems: string[] = [];
  const skipped: SkippedFile[] = [];
  const add = (parse: McpConfigParse, where: string, folder?: vscode.WorkspaceFolder) => {
    problems.push(...parse.problems.map((p) => `${where}: ${p}`));
    for (const server of parse.servers) {
      if (servers.some((s) => s.name === server.name)) {
        problems.push(`${where}: server "${server.name}" is named earlier too; the first one is used`);
        continue;
      }
      const workspaceFolder = folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
      servers.push(resolveMcpServer(server, { workspaceFolder, userHome, env }));
      if (folder) folders.set(server.name, folder);
    }
  };
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const file = workspaceMcpFile(folder);
    const text = await readText(file, skipped);
    if (text === undefined) continue;
    const value = parseJsonc(text);
    if (value === undefined) problems.push(`${shown(file)}: not valid JSON`);
    else add(parseMcpConfig(value, 'workspace'), shown(file), folder);
  }
  if (sources.userFile) {
    const text = await readText(sources.userFile, skipped);
    if (text !== undefined) {
      const value = parseJsonc(text);
      if (value === undefined) problems.push(`${shown(sources.userFile)}: not valid JSON`);
      else add(parseMcpConfig(value, 'user'), shown(sources.userFile));
    }
  }
  // Only the user's value: a workspace's settings.json must not add servers by this older route.
  const setting = vscode.workspace.getConfiguration().inspect<unknown>(VsCodeSetting.mcp)?.globalValue;
  add(parseMcpConfig(setting, 'user'), `the "${VsCodeSetting.mcp}" user setting`);
  return { servers, folders, problems, skipped };
}
