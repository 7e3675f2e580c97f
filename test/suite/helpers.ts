import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import type { GatewayTestApi } from '../../src/extension';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { observed } from './observed';

export const EXTENSION_ID = 'gateway-ai.gateway-ai';
export const TEST_KEY = 'sk-test-integration-0123456789';

/** The extension's internals (exported only to an extension under development or test). */
export async function gatewayApi(): Promise<GatewayTestApi> {
  const extension = vscode.extensions.getExtension<GatewayTestApi | undefined>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not loaded`);
  const api = await extension.activate();
  if (!api) throw new Error('The extension exported nothing: is it running in production mode?');
  return api;
}

/**
 * Opens the chat view and waits until its page has loaded and asked for its state: only from then
 * on is it sent each change, which the tests read from what was posted to it. (A prompt sent
 * before that reaches the page as part of its first state instead.)
 */
export async function openChatView(): Promise<vscode.WebviewView> {
  const api = await gatewayApi();
  await vscode.commands.executeCommand('gateway.chat.focus');
  const view = await waitFor(() => api.chatView.webviewView, 'the chat view to resolve', 20_000);
  // Its page asks for its state once loaded; the host answers with `init` (and sends it again
  // when the chat is switched, only ever to a page that asked).
  await waitFor(
    () =>
      observed.webviewMessages
        .slice(observed.chatViewBuiltAt)
        .some(
          (m) =>
            m.target === 'chat view' &&
            m.json.includes('"type":"init"') &&
            (JSON.parse(m.json) as { type?: unknown }).type === 'init',
        ),
    'the chat page to be ready',
    20_000,
  );
  return view;
}

/** The open chat's last turn, which must be the assistant's. */
export async function lastAssistant(): Promise<AssistantTurn> {
  const turns = (await (await gatewayApi()).chat.current()).turns;
  const last = turns.at(-1);
  assert.equal(last?.role, 'assistant');
  return last;
}

export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Sends a prompt in the panel; `finished` resolves with the reply once it has ended, however it ended. */
export async function sendPrompt(prompt: string): Promise<{ finished: Promise<AssistantTurn> }> {
  const api = await gatewayApi();
  const finished = new Promise<AssistantTurn>((resolve, reject) => {
    const listener = api.chat.onDidFinishTurn((turn) => {
      listener.dispose();
      resolve(turn);
    });
    api.chat.send(prompt).catch((error: unknown) => {
      listener.dispose();
      reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
  return { finished };
}

export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('gateway').update(key, value, vscode.ConfigurationTarget.Global);
}

/** The extension's own log file: the "Gateway AI" LogOutputChannel writes it into the extension's log folder. */
export async function extensionLog(): Promise<string> {
  const api = await gatewayApi();
  const file = vscode.Uri.joinPath(api.context.logUri, 'Gateway AI.log');
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    return '';
  }
}

/** Waits until the log file shows `pattern`: lines reach the file shortly after they are logged. */
export function logShows(pattern: RegExp, what: string): Promise<string> {
  return waitFor(async () => {
    const text = await extensionLog();
    return pattern.test(text) ? text : undefined;
  }, what);
}

/**
 * A chat suite's gateway: a simulator (1 ms between chunks) set as the base URL with the echo
 * model and the test key, and a new chat open; all undone after the suite.
 */
export function withChatGateway(): { readonly sim: GatewaySimulator } {
  const holder: { sim?: GatewaySimulator } = {};
  before(async () => {
    const sim = (holder.sim = await startGatewaySimulator({ chunkDelayMs: 1 }));
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await vscode.commands.executeCommand('gateway.newChat');
  });
  after(async () => {
    await setSetting('chat.model', undefined);
    await holder.sim?.close();
  });
  return {
    get sim(): GatewaySimulator {
      if (!holder.sim) throw new Error('The chat gateway starts in the suite’s before hook.');
      return holder.sim;
    },
  };
}

/**
 * Whether a process still runs. An exited process its parent has not reaped yet (a zombie) has
 * ended: on a machine whose init never reaps orphans, a killed command's children stay zombies.
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Answers the extension's information messages that match `pattern` with the button whose label
 * starts with `choose`, as a user clicking it would; records them. Others are shown as usual.
 */
export function answerInformation(
  pattern: RegExp,
  choose: string,
): { shown: Array<{ message: string; items: unknown[] }>; dispose(): void } {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
  const original = window.showInformationMessage;
  const shown: Array<{ message: string; items: unknown[] }> = [];
  window.showInformationMessage = function (this: unknown, ...args: unknown[]) {
    const message = String(args[0]);
    if (!pattern.test(message)) return original.apply(this, args);
    shown.push({ message, items: args.slice(1) });
    return Promise.resolve(args.slice(1).find((item) => String(item).startsWith(choose)));
  };
  return {
    shown,
    dispose: () => {
      window.showInformationMessage = original;
    },
  };
}
