import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, SimulatorOptions } from '../simulator';
import { gatewayApi, lastAssistant, setSetting, TEST_KEY, waitFor } from './helpers';

type Window = Record<string, (...args: unknown[]) => Thenable<unknown>>;

/**
 * A user going through Connect: answers the dialogs it shows, as a person would, and records them.
 * `answers` maps what a box asks to what is typed or picked.
 */
function user(answers: { key?: string; model: string }): {
  asked: string[];
  details: string[];
  dispose(): void;
} {
  const window = vscode.window as unknown as Window;
  const originals = {
    showWarningMessage: window.showWarningMessage,
    showInputBox: window.showInputBox,
    showQuickPick: window.showQuickPick,
  };
  const asked: string[] = [];
  const details: string[] = [];
  window.showWarningMessage = function (this: unknown, ...args: unknown[]) {
    const message = String(args[0]);
    if (!/^Gateway AI: Connect to /.test(message) && !/^Connect to /.test(message))
      return originals.showWarningMessage.apply(this, args);
    details.push(String((args[1] as { detail?: string }).detail));
    return Promise.resolve('Connect');
  };
  window.showInputBox = (options: unknown) => {
    const prompt = String((options as { prompt?: string }).prompt);
    asked.push(prompt);
    return Promise.resolve(/API key/.test(prompt) ? answers.key : undefined);
  };
  window.showQuickPick = (items: unknown) =>
    Promise.resolve(items).then((list) =>
      (list as Array<{ label: string }>).find((item) => item.label === answers.model),
    );
  return {
    asked,
    details,
    dispose: () => Object.assign(window, originals),
  };
}

describe('Connect a Gateway', function () {
  this.timeout(60_000);
  let previous: { baseUrl?: string; model?: string };

  before(() => {
    const inspect = (key: string) =>
      vscode.workspace.getConfiguration('gateway').inspect<string>(key)?.globalValue;
    previous = { baseUrl: inspect('baseUrl'), model: inspect('chat.model') };
  });
  after(async () => {
    await setSetting('authHeader', undefined);
    await setSetting('baseUrl', previous.baseUrl);
    await setSetting('chat.model', previous.model);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  async function connectTo(options: SimulatorOptions, answers: { key?: string; model: string }) {
    const sim = await startGatewaySimulator({ chunkDelayMs: 0, ...options });
    const person = user(answers);
    try {
      const done = await vscode.commands.executeCommand<boolean>('gateway.connect', sim.baseUrl);
      return { sim, person, done };
    } finally {
      person.dispose();
    }
  }

  async function firstReply(sim: GatewaySimulator): Promise<string> {
    await waitFor(
      () => sim.requests.some((r) => r.path.endsWith('/chat/completions')),
      'the first prompt to be sent',
    );
    const turn = await waitFor(async () => {
      const last = await lastAssistant();
      return last.status !== 'streaming' && last;
    }, 'the first reply to finish');
    assert.equal(turn.status, 'complete', turn.error?.message);
    return turn.content;
  }

  it('a strict OpenAI-style gateway at …/v1: shows what it offers, asks for the key, lists its own ids, and answers a first prompt', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const { sim, person, done } = await connectTo(
      { dialect: 'strict-openai' },
      { key: TEST_KEY, model: 'gpt-4o' },
    );
    try {
      assert.equal(done, true);
      assert.equal(person.details.length, 1);
      assert.match(person.details[0], /Key: needed/);
      assert.match(person.details[0], /Tools \(the agent\): .*offered/);
      assert.equal(api.settings.current.request.authHeader, 'bearer');
      assert.equal(person.asked.filter((p) => /API key/.test(p)).length, 1);
      assert.equal(api.settings.current.baseUrl, sim.baseUrl);
      assert.deepEqual(await api.apiKey.binding(), { key: TEST_KEY, origin: sim.origin });
      assert.equal(api.settings.current.chat.model, 'gpt-4o');
      const text = await firstReply(sim);
      assert.ok(text.length > 0, 'the first prompt was answered');
      const asked = sim.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1);
      assert.equal(asked?.path, '/api/v1/chat/completions');
      assert.equal((asked?.body as { model?: string }).model, 'gpt-4o');
      const probe = sim.requests.find((r) => r.path.endsWith('/models'));
      assert.equal(probe?.headers.authorization, undefined, 'the first look carries no key');
    } finally {
      await sim.close();
    }
  });

  it('a local server: no key is asked for, and its ids with a colon are taken', async () => {
    const api = await gatewayApi();
    const { sim, person, done } = await connectTo({ dialect: 'local' }, { model: 'llama3.2:3b' });
    try {
      assert.equal(done, true);
      assert.match(person.details[0], /Key: not needed/);
      assert.equal(
        api.settings.current.request.authHeader,
        'none',
        'no key is read for a gateway that needs none',
      );
      assert.equal(person.asked.filter((p) => /API key/.test(p)).length, 0);
      assert.equal(api.settings.current.chat.model, 'llama3.2:3b');
      assert.ok((await firstReply(sim)).length > 0);
    } finally {
      await sim.close();
    }
  });
});
