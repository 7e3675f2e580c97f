/**
 * Inline completions in a real editor, against the simulator: VS Code's own trigger and commit
 * commands show and insert the gateway's text, through fill-in-the-middle and through chat;
 * typing closes the connection of a request in flight; a cache hit and an excluded file send
 * nothing (the simulator's log says so).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator, RecordedRequest } from '../simulator';
import type { InlineCompletionsFeature } from '../../src/host/inline/inlineFeature';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';
import { InlineTrace } from './inlineTrace';

const FIM_PATH = '/v1/completions';
const CHAT_PATH = '/v1/chat/completions';

const trace = new InlineTrace();

/** `promise`, whose failure also tells what happened since the test began. */
async function traced<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    const window = await trace.probe();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}${trace.text()}\n  the window:\n    ${window.split('\n').join('\n    ')}`,
    );
  }
}

function sent(sim: GatewaySimulator, path: string): RecordedRequest[] {
  return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith(path));
}

async function feature(): Promise<InlineCompletionsFeature> {
  const api = await gatewayApi();
  return waitFor(() => api.inline.feature.loaded, 'the inline completions feature to load');
}

/** A new file in the workspace with `text`, open in an editor with the cursor at `|`. */
async function editorAt(name: string, text: string): Promise<vscode.TextEditor> {
  const root = vscode.workspace.workspaceFolders![0].uri;
  const uri = vscode.Uri.joinPath(root, 'inline', name);
  const offset = text.indexOf('|');
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text.replace('|', '')));
  const document = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(document);
  const position = document.positionAt(offset);
  editor.selection = new vscode.Selection(position, position);
  // The keyboard focus in this editor, as a user's is before asking: VS Code's commit command acts
  // only on the editor that has it, and ghost text goes when its editor loses it.
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  return editor;
}

/** Asks VS Code for a suggestion and accepts it once it shows: the line's text after that. */
async function triggerAndAccept(editor: vscode.TextEditor, expected: string): Promise<string> {
  const line = editor.selection.active.line;
  trace.add('trigger');
  await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
  trace.add('triggered');
  return traced(
    waitFor(async () => {
      // A no-op until the ghost text shows; then it inserts it.
      await vscode.commands.executeCommand('editor.action.inlineSuggest.commit');
      const text = editor.document.lineAt(line).text;
      return text.includes(expected) && text;
    }, `the suggestion "${expected}" to show and be accepted`),
  );
}

/**
 * Triggers a suggestion in the active editor and waits for the provider to refuse with `reason`;
 * then the simulator must have seen nothing since `before` requests.
 */
async function triggerRefused(sim: GatewaySimulator, before: number, reason: string): Promise<void> {
  const inline = await feature();
  await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
  await traced(waitFor(() => inline.lastRefusal?.includes(reason), `the provider to refuse: ${reason}`));
  assert.deepEqual(
    sim.requests.slice(before).map((r) => r.path),
    [],
    `the simulator saw nothing (${reason})`,
  );
}

describe('Inline completions (ghost text)', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 0 });
    await setSetting('baseUrl', sim.baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await setSetting('inlineCompletions.model', 'sim/coder');
    await setSetting('inlineCompletions.mode', 'fim');
    await setSetting('inlineCompletions.enabled', true);
    // Loaded now rather than at VS Code's first call, so that the trace sees that call too.
    trace.watch((await gatewayApi()).inline.feature.get());
  });

  beforeEach(() => trace.reset());

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    sim.completionScript = undefined;
  });

  after(async () => {
    for (const key of ['enabled', 'model', 'mode']) await setSetting(`inlineCompletions.${key}`, undefined);
    await sim.close();
    trace.dispose();
  });

  it('shows the FIM answer on trigger, inserts it on accept, and counts the acceptance', async () => {
    sim.completionScript = { text: 'return a + b;\n}\n\nconsole.log(add(1, 2));' };
    const api = await gatewayApi();
    const acceptedBefore = api.inline.tally.accepted;
    const editor = await editorAt('add.ts', 'function add(a: number, b: number) {\n  |\n}\n');
    const line = await triggerAndAccept(editor, 'return a + b;');
    assert.equal(line, '  return a + b;', 'the block, without the brace the file already has');
    assert.equal(editor.document.getText(), 'function add(a: number, b: number) {\n  return a + b;\n}\n');
    const [request] = sent(sim, FIM_PATH);
    const body = request.body as Record<string, unknown>;
    assert.equal(body.model, 'sim/coder');
    assert.match(
      String(body.prompt),
      /\/\/ Path: inline\/add\.ts\nfunction add\(a: number, b: number\) \{\n {2}$/,
    );
    assert.equal(body.suffix, '\n}\n');
    assert.equal(body.stream, true);
    await waitFor(() => api.inline.tally.accepted === acceptedBefore + 1, 'the acceptance to be counted');
  });

  it('asks through chat for the middle only, and cleans the fenced, prefix-repeating answer', async () => {
    await setSetting('inlineCompletions.mode', 'chat');
    try {
      sim.completionScript = { text: 'Here you go:\n```ts\nconst total = items.length;\n```' };
      const before = sent(sim, FIM_PATH).length;
      const editor = await editorAt('total.ts', 'const items = [1, 2];\nconst total = |\n');
      const line = await triggerAndAccept(editor, 'items.length');
      assert.equal(line, 'const total = items.length;');
      const chats = sent(sim, CHAT_PATH);
      const messages = (chats[chats.length - 1].body as { messages: { content: string }[] }).messages;
      assert.match(messages[1].content, /const total = <CURSOR>\n/);
      assert.equal(sent(sim, FIM_PATH).length, before, 'nothing went to /v1/completions');
    } finally {
      await setSetting('inlineCompletions.mode', 'fim');
    }
  });

  it('trims the closing brackets the text after the cursor already has', async () => {
    sim.completionScript = { text: 'message);' };
    const editor = await editorAt('log.ts', 'const message = "hi";\nconsole.log(|);\n');
    const line = await triggerAndAccept(editor, 'message');
    assert.equal(line, 'console.log(message);');
  });

  it('answers from the cache after typing into a suggestion: nothing is sent', async () => {
    sim.completionScript = { text: 'compute(41) + 1;' };
    const editor = await editorAt(
      'cache.ts',
      'declare function compute(n: number): number;\nconst answer = |\n',
    );
    await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
    const engine = (await feature()).engine;
    await traced(waitFor(() => engine.stats.served > 0, 'the first suggestion'));
    const requests = sent(sim, FIM_PATH).length;
    const hits = engine.cache.hits;
    await vscode.commands.executeCommand('editor.action.inlineSuggest.hide');
    await editor.edit((edit) => edit.insert(editor.selection.active, 'comp'));
    const line = await triggerAndAccept(editor, '+ 1;');
    assert.equal(line, 'const answer = compute(41) + 1;');
    assert.ok(engine.cache.hits > hits, 'the provider answered from the cache');
    assert.equal(sent(sim, FIM_PATH).length, requests, 'no request after the first');
  });

  it('typing while a request waits for the gateway closes its connection', async () => {
    sim.completionScript = { text: 'late', firstByteDelayMs: 20_000 };
    const editor = await editorAt('slow.ts', 'let value = |\n');
    const before = sent(sim, FIM_PATH).length;
    // Not awaited: the command resolves only when the provider has answered.
    const triggered = vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
    const request = await waitFor(() => sent(sim, FIM_PATH)[before], 'the request to reach the simulator');
    await editor.edit((edit) => edit.insert(editor.selection.active, '4'));
    const closed = await sim.waitForClosedConnection(request.id, 10_000);
    assert.equal(closed.path.endsWith(FIM_PATH), true);
    await triggered;
  });

  it("adds each completion's cost, as the gateway reports it, to today's cost", async () => {
    const api = await gatewayApi();
    // One line with no line break: the stream runs to its end, where the usage comes.
    sim.completionScript = { text: 'spent(1);', cost: 0.00042 };
    const before = api.costs.today().bySource.completions ?? 0;
    const editor = await editorAt('spend.ts', 'const total = |\n');
    assert.equal(await triggerAndAccept(editor, 'spent(1);'), 'const total = spent(1);');
    await waitFor(
      () => Math.abs((api.costs.today().bySource.completions ?? 0) - before - 0.00042) < 1e-12,
      "the completion's cost in today's cost",
    );
  });

  it('never sends an excluded file', async () => {
    const before = sim.requests.length;
    await editorAt('.env', 'API_TOKEN=|\n');
    await triggerRefused(sim, before, 'exclude pattern .env*');
  });

  it('never sends a file that a link inside the workspace points to outside it', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-inline-outside-'));
    const target = path.join(outside, 'id_key.ts');
    fs.writeFileSync(target, 'const secret = \n');
    const root = vscode.workspace.workspaceFolders![0].uri;
    const link = vscode.Uri.joinPath(root, 'inline', `linked-${path.basename(outside)}.ts`);
    fs.mkdirSync(path.dirname(link.fsPath), { recursive: true });
    fs.symlinkSync(target, link.fsPath);
    try {
      sim.completionScript = { text: 'leaked();' };
      const before = sim.requests.length;
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(link));
      const end = editor.document.lineAt(0).range.end;
      editor.selection = new vscode.Selection(end, end);
      await triggerRefused(sim, before, 'outside the workspace');
    } finally {
      fs.rmSync(link.fsPath, { force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('checks an untitled document named with a file path as that file', async () => {
    const root = vscode.workspace.workspaceFolders![0].uri;
    const before = sim.requests.length;
    const document = await vscode.workspace.openTextDocument(
      root.with({ scheme: 'untitled', path: `${root.path}/inline/untitled/.env` }),
    );
    const editor = await vscode.window.showTextDocument(document);
    try {
      await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), 'API_TOKEN='));
      await triggerRefused(sim, before, 'exclude pattern .env*');
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('pauses after a 402 with one message, however many keys follow, until resumed', async () => {
    sim.setScenario('status:402');
    const inline = await feature();
    try {
      const pausedBefore = observed.notifications.filter((n) =>
        n.message.includes('inline completions are paused'),
      ).length;
      const before = sent(sim, FIM_PATH).length;
      const editor = await editorAt('credit.ts', 'let credit = |\n');
      await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
      await traced(
        waitFor(() => inline.engine.gate.currentPause, 'the pause after the 402').catch((error: Error) => {
          throw new Error(`${error.message}; requests since: ${sent(sim, FIM_PATH).length - before}`);
        }),
      );
      for (const key of ['1', '2', '3']) {
        await editor.edit((edit) => edit.insert(editor.selection.active, key));
        await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
      }
      assert.equal(sent(sim, FIM_PATH).length - before, 1, 'one request ran into the 402, none after');
      await waitFor(
        () =>
          observed.notifications.filter((n) => n.message.includes('inline completions are paused')).length ===
          pausedBefore + 1,
        'the one message',
      );
      assert.equal(inline.engine.gate.currentPause?.reason, 'credits');
    } finally {
      sim.setScenario(undefined);
      inline.engine.gate.resume();
    }
  });

  it('turns off and on through its command, and a snooze sends nothing until it ends', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.inlineCompletions.toggle');
    await waitFor(() => !api.inline.enabled, 'the setting to be off');
    await vscode.commands.executeCommand('gateway.inlineCompletions.toggle');
    await waitFor(() => api.inline.enabled, 'the setting to be on again');

    api.inline.snooze(30 * 60_000);
    assert.equal(api.inline.snoozed, true);
    sim.completionScript = { text: 'noozed();' };
    const before = sim.requests.length;
    const editor = await editorAt('snooze.ts', 'const value = |\n');
    // With no provider of ours registered, the command resolves at once with nothing to show.
    await vscode.commands.executeCommand('editor.action.inlineSuggest.trigger');
    assert.equal(sim.requests.length, before, 'nothing sent while snoozed');

    api.inline.snooze(undefined);
    // A key typed after the snooze, as a user would: VS Code asks the provider again.
    await editor.edit((edit) => edit.insert(editor.selection.active, 's'));
    assert.equal(await triggerAndAccept(editor, 'snoozed();'), 'const value = snoozed();');
  });
});
