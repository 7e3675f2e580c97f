/**
 * A repository cannot take the key, spend the money or tell the model what to do through its own
 * settings (issue 31, items 1 and 8). The window is opened on test/fixtures/hostile/workspace-settings,
 * whose `.vscode/settings.json` names a second gateway as the base URL and chooses models,
 * parameters, routing, caps and a system prompt. The user's settings name the first gateway, and a
 * key bound to it is stored at start-up (test/launch/hostileRuns.ts runs both gateways).
 *
 * From start-up through a chat, the catalog, the credit, a media job and an inline completion, the
 * workspace's gateway receives nothing, the requests carry none of the workspace's choices, and
 * the user is told what was ignored.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { extensionLog, gatewayApi, lastAssistant, setSetting, waitFor } from '../suite/helpers';
import { observed } from '../suite/observed';

const KEY = process.env.GATEWAY_AI_DEMO_KEY ?? '';
const USER = process.env.GATEWAY_TEST_USER_GATEWAY ?? '';
const HOSTILE = process.env.GATEWAY_TEST_HOSTILE_GATEWAY ?? '';

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** What a gateway of the launcher has received so far. */
async function requestsOf(origin: string): Promise<Recorded[]> {
  const response = await fetch(`${origin}/__sim/requests`);
  return ((await response.json()) as { requests: Recorded[] }).requests;
}

/** The key anywhere in a request's headers, under any name or form. */
function carriesKey(request: Recorded): boolean {
  return JSON.stringify(request.headers).includes(KEY);
}

describe('A workspace whose own settings name another gateway', function () {
  this.timeout(120_000);

  before(async () => {
    assert.ok(KEY && USER && HOSTILE, 'the launcher names the key and both gateways');
    const api = await gatewayApi();
    await waitFor(async () => (await api.apiKey.get()) === KEY, 'the key stored at start-up', 20_000);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('media.model', 'testvendor/image-model');
  });

  it('the key stored at start-up belongs to the user’s gateway, never the workspace’s', async () => {
    const api = await gatewayApi();
    assert.deepEqual(await api.apiKey.binding(), { key: KEY, origin: USER });
  });

  it('the settings in force are the user’s and the defaults, whatever the workspace wrote', async () => {
    const { settings } = await gatewayApi();
    // What VS Code itself makes of the workspace's values, for the record (the extension does not rely on it).
    const configuration = vscode.workspace.getConfiguration();
    for (const id of ['gateway.baseUrl', 'gateway.chat.systemPrompt', 'gateway.chat.model'])
      console.log(
        `[suite]     (VS Code's workspace value of ${id}: ${JSON.stringify(configuration.inspect(id)?.workspaceValue)})`,
      );
    const current = settings.current;
    assert.equal(current.baseUrl, `${USER}/api`);
    assert.equal(current.chat.model, 'testvendor/echo-model');
    assert.equal(current.chat.systemPrompt, '');
    assert.equal(current.chat.maxTokens, undefined);
    assert.equal(current.chat.reasoningEffort, 'default');
    assert.equal(current.chat.webSearch, false);
    assert.equal(current.chat.provider, undefined);
    assert.deepEqual(current.chat.plugins, []);
    assert.deepEqual(current.chat.tools, []);
    assert.equal(current.chat.forceParameters, false);
    assert.equal(current.media.model, 'testvendor/image-model');
    assert.deepEqual(current.media.parameters, {});
    assert.equal(current.request.maxResponseMegabytes, 200);
    assert.equal(current.request.maxStreamMinutes, 30);
    assert.equal(current.request.timeoutSeconds, 30);
    assert.equal(current.inlineCompletions.enabled, false);
    assert.deepEqual(current.agent.alwaysAllow, []);
  });

  it('a chat answers from the user’s gateway, with nothing the workspace chose in the request', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.newChat');
    await api.chat.send('hello from a hostile folder');
    const reply = await lastAssistant();
    assert.equal(reply.status, 'complete', reply.error?.message);
    assert.match(reply.content, /hello from a hostile folder/);
    const chats = (await requestsOf(USER)).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/v1/chat/completions'),
    );
    const request = chats.at(-1);
    assert.ok(request, 'the user’s gateway got the chat');
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    const body = JSON.stringify(request.body);
    assert.equal((request.body as { model?: unknown }).model, 'testvendor/echo-model');
    for (const chosen of [
      'HOSTILE-SYSTEM-PROMPT',
      'hostile-provider',
      'hostile-plugin',
      'hostile_tool',
      '123456',
    ])
      assert.ok(!body.includes(chosen), `the request holds nothing of the workspace's ${chosen}`);
  });

  it('the catalog and the credit come from the user’s gateway', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.refreshModelCatalog');
    assert.equal(api.catalog.catalog.source, 'gateway');
    await api.catalog.credits.update(true);
    assert.ok(api.catalog.credits.current, 'the credit is known');
    const paths = (await requestsOf(USER)).map((r) => `${r.method} ${r.path}`);
    assert.ok(paths.includes('GET /api/v1/models'), paths.join(', '));
    assert.ok(paths.includes('GET /api/v1/key'), paths.join(', '));
  });

  it('a media job runs on the user’s gateway, with the user’s model and none of the workspace’s parameters', async () => {
    const api = await gatewayApi();
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'a fox in a hostile folder',
    });
    await waitFor(() => api.media.model.get(id)?.status === 'completed', 'the job to complete', 30_000);
    const started = (await requestsOf(USER)).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/v1/media'),
    );
    assert.deepEqual(started.at(-1)?.body, {
      model: 'testvendor/image-model',
      prompt: 'a fox in a hostile folder',
    });
  });

  it('an inline completion asks the user’s gateway, with the user’s model', async () => {
    await setSetting('inlineCompletions.model', 'sim/coder');
    await setSetting('inlineCompletions.mode', 'fim');
    await setSetting('inlineCompletions.enabled', true);
    try {
      const root = vscode.workspace.workspaceFolders![0].uri;
      const document = await vscode.workspace.openTextDocument(
        vscode.Uri.joinPath(root, 'src', 'complete.ts'),
      );
      const editor = await vscode.window.showTextDocument(document);
      const end = document.lineAt(1).range.end;
      editor.selection = new vscode.Selection(end, end);
      const completions = async () =>
        (await requestsOf(USER)).filter((r) => r.method === 'POST' && r.path.endsWith('/v1/completions'));
      await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
      const [request] = await waitFor(
        async () => {
          const sent = await completions();
          return sent.length > 0 && sent;
        },
        'a completion request at the user’s gateway',
        30_000,
      );
      assert.equal((request.body as { model?: unknown }).model, 'sim/coder');
      assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      for (const key of ['enabled', 'model', 'mode']) await setSetting(`inlineCompletions.${key}`, undefined);
    }
  });

  it('the workspace’s gateway received nothing, from start-up on: no request, no key in any header', async () => {
    const received = await requestsOf(HOSTILE);
    assert.deepEqual(
      received.filter(carriesKey).map((r) => `${r.method} ${r.path}`),
      [],
      'requests that carried the key',
    );
    assert.deepEqual(
      received.map((r) => `${r.method} ${r.path}`),
      [],
      'requests of any kind',
    );
  });

  it('the user is told which settings were ignored, and asked before the workspace’s model is used', async () => {
    // At start-up (possibly before the observers were in place): the log says it too.
    const log = await waitFor(async () => {
      const text = await extensionLog();
      return /Ignored settings this workspace sets/.test(text) && text;
    }, 'the ignored settings in the log');
    const line = log.split('\n').find((l) => l.includes('Ignored settings this workspace sets')) ?? '';
    for (const id of ['gateway.baseUrl', 'gateway.chat.systemPrompt', 'gateway.request.maxResponseMegabytes'])
      assert.ok(line.includes(id), `${id} in: ${line}`);
    assert.ok(line.includes(new URL(HOSTILE).host), `the gateway it named, in: ${line}`);
    assert.match(
      log,
      /sets gateway\.chat\.model to "testvendor\/text-only"; it is not used unless the user accepts it/,
    );

    // A new value written into the workspace's settings now is shown as it comes.
    const before = observed.notifications.length;
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.vscode', 'settings.json');
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    await vscode.workspace.fs.writeFile(
      file,
      new TextEncoder().encode(
        text.replace('"gateway.baseUrl": "', '"gateway.baseUrl": "https://second.example/api#'),
      ),
    );
    const shown = await waitFor(
      () =>
        observed.notifications
          .slice(before)
          .find((n) => n.message.includes('ignored settings this workspace sets')),
      'the notification about the new value',
    );
    assert.equal(shown.severity, 'warning');
    assert.match(shown.message, /gateway\.baseUrl \("https:\/\/second\.example\/api#/);
    assert.match(shown.message, /come only from your user settings/);
    assert.deepEqual(shown.items, ['Open Workspace Settings']);
    assert.deepEqual(await requestsOf(HOSTILE), [], 'still nothing at the workspace’s gateway');
  });
});
