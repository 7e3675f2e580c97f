import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ConversationStore } from '../../src/core/chat/conversationStore';
import { storageFolder } from '../../src/host/storage/storageFolder';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor, withChatGateway } from './helpers';

function chatRequests(sim: GatewaySimulator) {
  return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/chat/completions'));
}

async function lastAssistant(): Promise<AssistantTurn> {
  const api = await gatewayApi();
  const turns = (await api.chat.current()).turns;
  const last = turns[turns.length - 1];
  assert.equal(last?.role, 'assistant');
  return last;
}

async function statusOf(turnId: string): Promise<string | undefined> {
  const turn = (await (await gatewayApi()).chat.current()).turns.find((t) => t.id === turnId);
  return turn?.role === 'assistant' ? turn.status : undefined;
}

describe('Chat', function () {
  const gateway = withChatGateway();

  it('resolves the chat view with a strict CSP', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.chat.focus');
    const view = await waitFor(() => api.chatView.webviewView, 'the chat view to resolve', 20_000);
    const html = view.webview.html;
    assert.match(html, /default-src 'none'/);
    assert.match(html, /script-src 'nonce-[A-Za-z0-9+/=]{16,}'/);
    assert.doesNotMatch(html, /unsafe-inline[^;]*script|script-src[^;]*unsafe-eval/);
    assert.ok(!html.includes(TEST_KEY));
  });

  it('gateway.ask streams a reply into the conversation', async () => {
    await vscode.commands.executeCommand('gateway.ask', 'Hello from the integration suite');
    const reply = await lastAssistant();
    assert.equal(reply.status, 'complete');
    assert.match(reply.content, /Hello from the integration suite/);
    assert.ok(reply.reasoning.length > 0, 'reasoning deltas were kept');
    assert.ok(reply.usage?.cost !== undefined, 'usage with cost');
  });

  it('Explain Selection sends the selection with its language and file name', async () => {
    const doc = await vscode.workspace.openTextDocument({
      language: 'typescript',
      content: 'const answer = 42;\nexport function twice(n: number) { return n * 2; }\n',
    });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(1, 0, 1, doc.lineAt(1).text.length);
    const before = chatRequests(gateway.sim).length;
    await vscode.commands.executeCommand('gateway.explainSelection');
    const requests = chatRequests(gateway.sim);
    assert.equal(requests.length, before + 1);
    const request = requests[requests.length - 1];
    const body = request.body as {
      model: string;
      stream: boolean;
      messages: Array<{ role: string; content: string }>;
    };
    assert.equal(body.model, 'testvendor/echo-model');
    assert.equal(body.stream, true);
    assert.equal(request.headers.authorization, `Bearer ${TEST_KEY}`);
    const prompt = body.messages[body.messages.length - 1];
    assert.equal(prompt.role, 'user');
    assert.match(prompt.content, /typescript/);
    assert.match(prompt.content, /Untitled-\d+/);
    assert.match(prompt.content, /export function twice\(n: number\) \{ return n \* 2; \}/);
    assert.doesNotMatch(prompt.content, /const answer/);
    assert.equal((await lastAssistant()).status, 'complete');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Explain Selection without a selection sends nothing', async () => {
    const doc = await vscode.workspace.openTextDocument({
      language: 'plaintext',
      content: 'nothing selected',
    });
    await vscode.window.showTextDocument(doc);
    const before = chatRequests(gateway.sim).length;
    await vscode.commands.executeCommand('gateway.explainSelection');
    assert.equal(chatRequests(gateway.sim).length, before);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Stop aborts the request at once: the simulator sees the close, the partial reply stays', async () => {
    const api = await gatewayApi();
    const previous = (await api.chat.current()).turns.at(-1)?.id;
    const sending = api.chat.send('Tell me a long story #sim:slow');
    const turn = await waitFor(async () => {
      const last = (await api.chat.current()).turns.at(-1);
      return last?.role === 'assistant' && last.id !== previous && last.content.length > 0 ? last : undefined;
    }, 'the first streamed words');
    const request = chatRequests(gateway.sim).at(-1)!;
    const started = Date.now();
    await api.chatRouter.handle({ type: 'stop' });
    await sending;
    const closed = await gateway.sim.waitForClosedConnection(request.id, 2000);
    assert.ok(closed.time - started < 1000, `closed ${closed.time - started} ms after Stop`);
    const stopped = await lastAssistant();
    assert.equal(stopped.id, turn.id);
    assert.equal(stopped.status, 'stopped');
    assert.ok(stopped.content.length > 0);
  });

  it('Retry replaces a stopped reply with a new one', async () => {
    const api = await gatewayApi();
    const stopped = await lastAssistant();
    await api.chat.retry(stopped.id);
    const retried = await lastAssistant();
    assert.notEqual(retried.id, stopped.id);
    assert.equal(retried.status, 'complete');
  });

  it('a prompt sent while a reply streams is queued, can be edited, and is sent when the reply ends', async () => {
    const api = await gatewayApi();
    const previous = (await api.chat.current()).turns.at(-1)?.id;
    const sending = api.chat.send('Tell me a long story #sim:slow');
    const streaming = await waitFor(async () => {
      const last = (await api.chat.current()).turns.at(-1);
      return last?.role === 'assistant' && last.id !== previous && last.content.length > 0 ? last : undefined;
    }, 'the first streamed words');
    const requestsBefore = chatRequests(gateway.sim).length;

    // The way the view sends it: the router resolves at once, the reply goes on.
    await api.chatRouter.handle({ type: 'send', text: 'A follow-up, typed too early' });
    const [queued] = api.chat.queued();
    assert.equal(queued?.text, 'A follow-up, typed too early');
    await api.chatRouter.handle({ type: 'editQueued', id: queued.id, text: 'The follow-up, reworded' });
    assert.equal(chatRequests(gateway.sim).length, requestsBefore, 'nothing sent while the reply streams');
    assert.equal(await statusOf(streaming.id), 'streaming', 'the reply was not stopped');

    await sending;
    assert.equal(await statusOf(streaming.id), 'complete', 'the first reply ran to its end');
    const followUp = await waitFor(async () => {
      const last = (await api.chat.current()).turns.at(-1);
      return last?.role === 'assistant' && last.id !== streaming.id && last.status === 'complete'
        ? last
        : undefined;
    }, 'the queued prompt to be answered');
    assert.match(followUp.content, /The follow-up, reworded/);
    const request = chatRequests(gateway.sim).at(-1)!;
    const messages = (request.body as { messages: Array<{ role: string; content: string }> }).messages;
    assert.deepEqual(messages.at(-1), { role: 'user', content: 'The follow-up, reworded' });
    assert.equal(chatRequests(gateway.sim).length, requestsBefore + 1);
    assert.deepEqual(api.chat.queued(), []);
  });

  it('Explain Selection during a streaming reply queues instead of stopping it', async () => {
    const api = await gatewayApi();
    const previous = (await api.chat.current()).turns.at(-1)?.id;
    const sending = api.chat.send('Another long story #sim:slow');
    const streaming = await waitFor(async () => {
      const last = (await api.chat.current()).turns.at(-1);
      return last?.role === 'assistant' && last.id !== previous && last.content.length > 0 ? last : undefined;
    }, 'the first streamed words');
    const requestsBefore = chatRequests(gateway.sim).length;

    const doc = await vscode.workspace.openTextDocument({
      language: 'python',
      content: 'def double(n):\n    return n * 2\n',
    });
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 1, doc.lineAt(1).text.length);
    await vscode.commands.executeCommand('gateway.explainSelection');
    assert.equal(api.chat.queued().length, 1);
    assert.match(api.chat.queued()[0].text, /def double/);
    assert.equal((await api.chat.current()).turns.at(-1)?.id, streaming.id);
    assert.equal(await statusOf(streaming.id), 'streaming', 'the reply goes on');
    assert.equal(chatRequests(gateway.sim).length, requestsBefore, 'nothing sent while the reply streams');

    await sending;
    const explained = await waitFor(async () => {
      const last = (await api.chat.current()).turns.at(-1);
      return last?.role === 'assistant' && last.id !== streaming.id && last.status === 'complete'
        ? last
        : undefined;
    }, 'the queued explanation to be answered');
    assert.match(explained.content, /def double/);
    assert.equal(await statusOf(streaming.id), 'complete', 'the first reply ran to its end');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('shows errors in words a user acts on: 403 and 429', async () => {
    const api = await gatewayApi();
    await setSetting('request.maxRetries', 0);
    try {
      await api.chat.send('please #sim:429:7');
      const limited = await lastAssistant();
      assert.equal(limited.status, 'error');
      assert.equal(limited.error?.status, 429);
      assert.equal(limited.error?.retryAfter, 7);
      assert.ok(limited.error?.actions.includes('retry'));

      gateway.sim.setScenarioForKey(TEST_KEY, undefined);
      await vscode.commands.executeCommand('gateway.setApiKey', 'sk-forbidden-key-0123456789');
      await api.chat.send('am I allowed?');
      const forbidden = await lastAssistant();
      assert.equal(forbidden.error?.status, 403);
      assert.ok(!forbidden.error?.message.includes('sk-forbidden-key-0123456789'));
    } finally {
      await setSetting('request.maxRetries', undefined);
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
  });

  it('with no key for a gateway off this computer, keeps the prompt and offers Set API Key instead of calling it', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    await setSetting('baseUrl', 'https://gateway.invalid/api');
    try {
      await api.chat.send('is anyone there?');
      const turns = (await api.chat.current()).turns;
      assert.equal(turns.at(-2)?.content, 'is anyone there?');
      const reply = await lastAssistant();
      assert.match(reply.error?.message ?? '', /No API key is set/);
      assert.deepEqual(reply.error?.actions, ['setApiKey', 'retry']);
    } finally {
      await setSetting('baseUrl', gateway.sim.baseUrl);
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
  });

  it('with no key for a gateway on this computer, asks it without one; its 401 offers Set API Key', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    try {
      const before = chatRequests(gateway.sim).length;
      await api.chat.send('is a local model there?');
      assert.equal(chatRequests(gateway.sim).length, before + 1);
      assert.equal(chatRequests(gateway.sim).at(-1)?.headers.authorization, undefined);
      const reply = await lastAssistant();
      assert.equal(reply.error?.status, 401);
      assert.match(reply.error?.message ?? '', /none is set/);
      assert.deepEqual(reply.error?.actions, ['setApiKey', 'retry']);
    } finally {
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
  });

  it('conversations survive a reload of the extension state', async () => {
    const api = await gatewayApi();
    await api.chat.send('remember me');
    const current = await api.chat.current();
    // A fresh store over the same storage is what a new window reads.
    const reloaded = new ConversationStore(storageFolder(api.context.globalStorageUri, 'conversations'));
    assert.equal(await reloaded.currentId(), current.id);
    const loaded = await reloaded.load(current.id);
    assert.deepEqual(
      loaded?.turns.map((t) => [t.role, t.content]),
      current.turns.map((t) => [t.role, t.content]),
    );
    assert.ok((await reloaded.list()).some((s) => s.id === current.id));
  });

  it('New Chat starts empty; the history reopens the previous chat', async () => {
    const api = await gatewayApi();
    const previous = await api.chat.current();
    await vscode.commands.executeCommand('gateway.newChat');
    assert.equal((await api.chat.current()).turns.length, 0);
    await api.chat.open(previous.id);
    assert.equal((await api.chat.current()).id, previous.id);
  });

  it('exports the chat as Markdown', async () => {
    const api = await gatewayApi();
    const doc = await api.chat.exportMarkdown();
    assert.ok(doc);
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.getText(), /## You\n\nremember me/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
