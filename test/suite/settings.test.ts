import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { answerInformation, gatewayApi, setSetting, TEST_KEY, waitFor, withChatGateway } from './helpers';

interface Warning {
  message: string;
  items: unknown[];
}

/**
 * Records the extension's warnings and answers those about the base URL with `answer`, as a user
 * clicking the button would. The notification is still shown; only its answer comes from here.
 */
function interceptWarnings(answer: string | undefined): { shown: Warning[]; dispose(): void } {
  const window = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
  const original = window.showWarningMessage;
  const shown: Warning[] = [];
  window.showWarningMessage = function (this: unknown, ...args: unknown[]) {
    const message = String(args[0]);
    shown.push({ message, items: args.slice(1) });
    const real = original.apply(this, args);
    return /base URL/.test(message) ? Promise.resolve(answer) : real;
  };
  return {
    shown,
    dispose: () => {
      window.showWarningMessage = original;
    },
  };
}

function settingsTab(): vscode.Tab | undefined {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).find((tab) => tab.label === 'Settings');
}

describe('Invalid base URL', function () {
  let previous: string | undefined;

  before(async () => {
    previous = vscode.workspace.getConfiguration('gateway').inspect<string>('baseUrl')?.globalValue;
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
  });

  after(async () => {
    await setSetting('baseUrl', previous);
  });

  it('is reported as soon as it is set, with Open Settings, which opens the setting', async () => {
    const warnings = interceptWarnings('Open Settings');
    try {
      await setSetting('baseUrl', 'not a url');
      const notAUrl = await waitFor(
        () => warnings.shown.find((w) => w.message.includes('"not a url"')),
        'a warning about the base URL',
      );
      assert.match(notAUrl.message, /^Gateway AI: The gateway base URL "not a url" is not a valid URL\./);
      assert.deepEqual(notAUrl.items, ['Open Settings']);
      const tab = await waitFor(settingsTab, 'the Settings editor to open');
      await vscode.window.tabGroups.close(tab);

      // Not an http(s) URL at all: another warning, saying what the URL must start with.
      await setSetting('baseUrl', 'ftp://gateway.example/api');
      const ftp = await waitFor(
        () => warnings.shown.find((w) => w.message.includes('ftp://')),
        'a warning about the ftp URL',
      );
      assert.match(ftp.message, /must start with https:\/\//);
      assert.deepEqual(ftp.items, ['Open Settings']);
      const again = await waitFor(settingsTab, 'the Settings editor to open again');
      await vscode.window.tabGroups.close(again);
    } finally {
      warnings.dispose();
    }
  });

  it('a chat request then fails at once with the same explanation and Open Settings', async () => {
    const api = await gatewayApi();
    await setSetting('baseUrl', 'not a url');
    await api.chat.send('is the gateway there?');
    const turns = (await api.chat.current()).turns;
    const reply = turns.at(-1) as AssistantTurn;
    assert.equal(reply.role, 'assistant');
    assert.equal(reply.status, 'error');
    assert.match(reply.error?.message ?? '', /base URL "not a url" is not a valid URL/);
    assert.deepEqual(reply.error?.actions, ['openSettings', 'retry']);
  });
});

describe('A model the workspace suggests', function () {
  this.timeout(60_000);
  const gateway = withChatGateway();
  const workspaceModel = () => vscode.workspace.getConfiguration('gateway').inspect<string>('chat.model');
  const setWorkspaceModel = (value: string | undefined) =>
    vscode.workspace
      .getConfiguration('gateway')
      .update('chat.model', value, vscode.ConfigurationTarget.Workspace);

  after(async () => {
    await setWorkspaceModel(undefined);
  });

  it('is not used until the user accepts that value, having seen it; then it is, in this workspace', async () => {
    const api = await gatewayApi();
    const asked = answerInformation(/this workspace's settings choose the chat model/, 'Keep');
    try {
      await setWorkspaceModel('testvendor/text-only');
      assert.equal(workspaceModel()?.workspaceValue, 'testvendor/text-only');
      const question = await waitFor(() => asked.shown[0], 'the question whether to use it');
      assert.match(
        question.message,
        /"testvendor\/text-only" \(gateway\.chat\.model\), which your API key pays for/,
      );
      assert.deepEqual(question.items, ['Use "testvendor/text-only" Here', 'Keep "testvendor/echo-model"']);
      assert.equal(api.settings.current.chat.model, 'testvendor/echo-model');
      await api.chat.send('which model?');
      const sent = gateway.sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
      assert.equal((sent?.body as { model?: unknown }).model, 'testvendor/echo-model');
    } finally {
      asked.dispose();
    }

    const accepting = answerInformation(/this workspace's settings choose the chat model/, 'Use');
    try {
      await setWorkspaceModel('anthropic/claude-sonnet-4');
      await waitFor(() => accepting.shown.length === 1, 'the question about the new value');
      await waitFor(
        () => api.settings.current.chat.model === 'anthropic/claude-sonnet-4',
        'the accepted model to be in force',
      );
      await api.chat.send('and now?');
      const sent = gateway.sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
      assert.equal((sent?.body as { model?: unknown }).model, 'anthropic/claude-sonnet-4');
      // Once accepted, the value is not asked about again, and the user's own applies when it goes.
      await setWorkspaceModel(undefined);
      await waitFor(() => api.settings.current.chat.model === 'testvendor/echo-model', 'the user model back');
      await setWorkspaceModel('anthropic/claude-sonnet-4');
      await waitFor(
        () => api.settings.current.chat.model === 'anthropic/claude-sonnet-4',
        'the accepted value, at once',
      );
      assert.equal(accepting.shown.length, 1);
    } finally {
      accepting.dispose();
    }
  });
});
