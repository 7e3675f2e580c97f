/**
 * The chat view's traffic as the panel suites read it: what the host posted to the view, parsed
 * as the page parses it, and messages sent as the page would send them.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { launchIdentity, parseJsonc, parseMcpConfig } from '../../src/core/agent/mcpConfig';
import { parseHostMessage, parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { HostMessage, WebviewMessage } from '../../src/core/protocol/chatProtocol';
import { mcpConsentKey } from '../../src/host/agent/mcp/mcpProgram';
import { hostProgramSearch, resolveProgram } from '../../src/host/programPath';
import { gatewayApi } from './helpers';
import { observed } from './observed';

export type Posted<T extends HostMessage['type']> = Extract<HostMessage, { type: T }>;

/** The messages of one type posted to the chat view since `mark` (an index into the record). */
export function posts<T extends HostMessage['type']>(mark: number, type: T): Posted<T>[] {
  return observed.webviewMessages
    .slice(mark)
    .filter((m) => m.target === 'chat view')
    .map((m) => parseHostMessage(JSON.parse(m.json)))
    .filter((m): m is Posted<T> => m?.type === type);
}

/** Hands `message` to the host as the page would post it. */
export async function fromView(message: WebviewMessage): Promise<void> {
  const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
  assert.ok(parsed, `the protocol accepts ${message.type}`);
  await (await gatewayApi()).chatRouter.handle(parsed);
}

/** The first workspace folder's `.vscode/mcp.json`. */
export function mcpJson(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite runs with a workspace folder');
  return vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
}

/**
 * `.vscode/mcp.json` naming `@modelcontextprotocol/server-everything` (from the extension's
 * dev dependencies) as the stdio server `everything`, run by the extension host's own Node.
 */
export async function everythingMcpJson(): Promise<string> {
  const api = await gatewayApi();
  const script = path.join(
    api.context.extensionUri.fsPath,
    'node_modules',
    '@modelcontextprotocol',
    'server-everything',
    'dist',
    'index.js',
  );
  const everything = {
    type: 'stdio',
    command: process.execPath,
    args: [script],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
  return JSON.stringify({ servers: { everything } });
}

/**
 * What the consent dialog records for the first server of a workspace `mcp.json` text (the hub
 * keeps only its hash): the launch as written and the program it runs, found as the hub finds it.
 */
export async function consentKeyOf(text: string): Promise<string> {
  const server = parseMcpConfig(parseJsonc(text), 'workspace').servers[0];
  assert.ok(server, 'the configuration names a server');
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const program =
    server.launch.type === 'stdio'
      ? await resolveProgram(server.launch.command, hostProgramSearch(folders), folders[0])
      : undefined;
  return mcpConsentKey(launchIdentity(server), program);
}
