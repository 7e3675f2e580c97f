/**
 * What the suites for other kinds of gateway (the simulator's dialect modes, Portkey in front of
 * it) do the same way: point the extension at a gateway, send a chat and an agent turn that reads a
 * file, make an image, and check what reached the turn and the page.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import type { MediaJob } from '../../src/core/media/mediaJob';
import type { RecordedRequest } from '../simulator';
import { gatewayApi, sendPrompt, setSetting, waitFor } from './helpers';
import { observed } from './observed';

/** The settings these suites change, to put back as they were. */
const TOUCHED = ['baseUrl', 'chat.model', 'requestHeaders', 'request.maxRetries', 'dialect'] as const;

/** Remembers the user's values of the settings the suite changes; `restore()` puts them back. */
export function rememberSettings(): { restore(): Promise<void> } {
  const configuration = vscode.workspace.getConfiguration('gateway');
  const saved = TOUCHED.map((key) => [key, configuration.inspect(key)?.globalValue] as const);
  return {
    restore: async () => {
      for (const [key, value] of saved) await setSetting(key, value);
    },
  };
}

/** Points the extension at `baseUrl` with `key` (bound to that origin) and `model`, in a new chat. */
export async function useGateway(options: {
  baseUrl: string;
  key?: string;
  model: string;
  headers?: Record<string, string>;
}): Promise<void> {
  await setSetting('requestHeaders', options.headers);
  await setSetting('baseUrl', options.baseUrl);
  // A key belongs to the origin it was entered for: entered again once the base URL is set.
  if (options.key !== undefined) await vscode.commands.executeCommand('gateway.setApiKey', options.key);
  else await vscode.commands.executeCommand('gateway.clearApiKey');
  await setSetting('chat.model', options.model);
  await vscode.commands.executeCommand('gateway.newChat');
}

/** Sends `prompt` in the panel and waits for the turn to end, however it ended. */
export async function turnFor(prompt: string, timeoutMs = 40_000): Promise<AssistantTurn> {
  const { finished } = await sendPrompt(prompt);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The turn did not end within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([finished, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks the finished turn carries the tokens the gateway counted, and that the chat page was sent
 * them (the page shows them under the reply).
 */
export async function assertTokensShown(turn: AssistantTurn): Promise<void> {
  assert.equal(turn.status, 'complete', turn.error?.message);
  assert.ok((turn.usage?.promptTokens ?? 0) > 0, `prompt tokens on the turn: ${JSON.stringify(turn.usage)}`);
  assert.ok((turn.usage?.completionTokens ?? 0) > 0, 'completion tokens on the turn');
  await waitFor(
    () =>
      observed.webviewMessages.some(
        (m) =>
          m.target === 'chat view' &&
          m.json.includes(turn.id) &&
          m.json.includes(`"completionTokens":${turn.usage?.completionTokens}`),
      ),
    'the page to be sent the turn with its tokens',
    20_000,
  );
}

export const AGENT_FILE = 'gateway-modes-fixture/notes.txt';
export const AGENT_FILE_TEXT = 'alpha\nbeta\ngamma\n';

function workspaceFile(relative: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite runs with a workspace folder');
  return vscode.Uri.joinPath(folder.uri, ...relative.split('/'));
}

export async function writeAgentFile(): Promise<void> {
  await vscode.workspace.fs.writeFile(workspaceFile(AGENT_FILE), new TextEncoder().encode(AGENT_FILE_TEXT));
}

export async function deleteAgentFile(): Promise<void> {
  await vscode.workspace.fs
    .delete(workspaceFile(AGENT_FILE.split('/')[0]), { recursive: true })
    .then(undefined, () => undefined);
}

/**
 * An agent turn with the simulator's scripted model (test/simulator/agentScript.ts): it reads
 * the fixture file, then answers with what the read gave it. Returns the turn.
 */
export function readFileTurn(): Promise<AssistantTurn> {
  const steps = [
    { calls: [{ name: 'read_file', arguments: { path: AGENT_FILE } }] },
    { text: 'The file says: {{results}}' },
  ];
  return turnFor(`Read the notes.\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``);
}

/** Checks the agent turn read the file: the read's text went back to the model and into the answer. */
export function assertReadFile(turn: AssistantTurn, requests: RecordedRequest[]): void {
  assert.equal(turn.status, 'complete', turn.error?.message);
  // A body field a strict gateway refuses is learned from its 400 and the request sent again
  // without it; nothing else may be refused.
  for (const refused of requests.filter((r) => r.wireProblem !== undefined))
    assert.match(refused.wireProblem ?? '', /^Unrecognized request argument supplied: /);
  const answered = requests.filter((r) => r.agentStep !== undefined);
  assert.ok(answered.length >= 2, `two steps of the loop reached the gateway (${answered.length})`);
  const read = answered.at(-1)?.toolMessages?.find((m) => m.name === 'read_file');
  assert.match(read?.content ?? '', /alpha[\s\S]*beta/, 'the file text went back to the model');
  assert.match(turn.content, /alpha/, 'the answer quotes what it read');
}

/** Starts an image job with `model` through Generate Media and waits until it ends; the job. */
export async function imageJob(model: string, prompt: string): Promise<MediaJob> {
  const api = await gatewayApi();
  await api.media.whenLoaded();
  const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', { model, prompt });
  assert.ok(typeof id === 'string' && id.length > 0, 'the command returns the job id');
  return waitFor(
    () => {
      const found = api.media.model.get(id);
      return found && !['queued', 'processing'].includes(found.status) && found;
    },
    `job ${id} to end`,
    30_000,
  );
}
