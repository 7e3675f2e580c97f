import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, withChatGateway } from './helpers';

type Part = { type: string; text?: string; image_url?: { url: string } };

function lastUserParts(sim: GatewaySimulator): Part[] {
  const request = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
  assert.ok(request, 'a chat request reached the simulator');
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = messages.filter((m) => m.role === 'user').at(-1);
  assert.ok(Array.isArray(last?.content), 'the user message is sent as content parts');
  return last.content as Part[];
}

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Attachments', function () {
  const gateway = withChatGateway();
  let folder: string;

  before(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-attach-'));
  });

  after(async () => {
    await setSetting('chat.imageInput', undefined);
    rmSync(folder, { recursive: true, force: true });
  });

  it('Add Selection, Add File and Add Problems attach, and the request carries fenced text parts', async () => {
    const api = await gatewayApi();
    const file = path.join(folder, 'sample.ts');
    writeFileSync(file, 'export const answer = 42;\nexport const other = 1;\n');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(0, 0, 0, 25);
    assert.equal(await vscode.commands.executeCommand('gateway.addSelectionToChat'), 1);
    assert.equal(await vscode.commands.executeCommand('gateway.addFileToChat', vscode.Uri.file(file)), 1);
    const diagnostics = vscode.languages.createDiagnosticCollection('attach-test');
    diagnostics.set(doc.uri, [new vscode.Diagnostic(new vscode.Range(1, 0, 1, 5), 'Unused export', 0)]);
    assert.equal(await vscode.commands.executeCommand('gateway.addProblemsToChat', doc.uri), 1);
    diagnostics.dispose();

    await vscode.commands.executeCommand('gateway.ask', 'Review these');
    const parts = lastUserParts(gateway.sim);
    assert.equal(parts[0].text, 'Review these');
    assert.equal(parts.length, 4);
    assert.match(parts[1].text ?? '', /sample\.ts:1-1\n```typescript\nexport const answer = 42;\n```/);
    assert.match(
      parts[2].text ?? '',
      /sample\.ts\n```typescript\nexport const answer = 42;\nexport const other = 1;\n\n```/,
    );
    assert.match(parts[3].text ?? '', /Problems in .*sample\.ts\n```\n.*sample\.ts:2:1 error: Unused export/);
    const turns = (await api.chat.current()).turns;
    const user = turns.filter((t) => t.role === 'user').at(-1);
    assert.equal(
      user?.role === 'user' ? user.attachments?.length : 0,
      3,
      'the sent turn keeps what it carried',
    );
  });

  it('Add Image sends an image_url part the simulator reports; the image is a file, not inline in the index', async () => {
    const api = await gatewayApi();
    const image = path.join(folder, 'dot.png');
    writeFileSync(image, PNG_1x1);
    assert.equal(await vscode.commands.executeCommand('gateway.addImageToChat', vscode.Uri.file(image)), 1);
    await vscode.commands.executeCommand('gateway.ask', 'What is in the image?');
    const parts = lastUserParts(gateway.sim);
    assert.match(parts[1].image_url?.url ?? '', /^data:image\/png;base64,iVBOR/);
    const reply = (await api.chat.current()).turns.at(-1);
    assert.match(
      reply?.content ?? '',
      new RegExp(`Images received: 1 \\(image/png ${PNG_1x1.length} bytes\\)`),
    );
    const user = (await api.chat.current()).turns.filter((t) => t.role === 'user').at(-1);
    const stored = user?.role === 'user' ? user.attachments?.[0] : undefined;
    assert.ok(stored?.file && !stored.text, 'kept by file name');
    const bytes = await vscode.workspace.fs.readFile(
      vscode.Uri.joinPath(api.context.globalStorageUri, 'images', stored.file),
    );
    assert.equal(bytes.length, PNG_1x1.length);
  });

  it('images are refused for a model whose catalog entry takes none, unless overridden', async () => {
    const api = await gatewayApi();
    await api.catalog.catalog.refresh();
    await setSetting('chat.model', 'testvendor/text-only');
    const image = path.join(folder, 'dot2.png');
    writeFileSync(image, PNG_1x1);
    assert.equal(await vscode.commands.executeCommand('gateway.addImageToChat', vscode.Uri.file(image)), 0);
    await setSetting('chat.imageInput', 'always');
    assert.equal(await vscode.commands.executeCommand('gateway.addImageToChat', vscode.Uri.file(image)), 1);
    await vscode.commands.executeCommand('gateway.ask', 'Forced image');
    assert.match(lastUserParts(gateway.sim)[1].image_url?.url ?? '', /^data:image\/png;base64,/);
    await setSetting('chat.model', 'testvendor/echo-model');
    await vscode.commands.executeCommand('gateway.newChat');
  });

  it('"Drop oldest turns" leaves the oldest exchange out of requests, keeps it in the chat, and can include it again', async () => {
    const api = await gatewayApi();
    await api.catalog.catalog.refresh();
    await setSetting('chat.model', 'testvendor/tiny-context');
    await vscode.commands.executeCommand('gateway.newChat');
    const first = `first ${'a'.repeat(800)}`;
    await vscode.commands.executeCommand('gateway.ask', first);
    await vscode.commands.executeCommand('gateway.ask', 'second question');
    const sentTexts = () => {
      const request = gateway.sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
      const messages = (request?.body as { messages: Array<{ content: unknown }> }).messages;
      return messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    };
    assert.ok(sentTexts().includes(first), 'sent while it fits');

    // A prompt of 1,500 tokens would overflow the 2,000-token context: the first exchange goes.
    const ids = await api.chat.leaveOutOldestTurns(1500);
    const turns = (await api.chat.current()).turns;
    assert.deepEqual(
      ids,
      turns.slice(0, 2).map((t) => t.id),
      'just the oldest exchange',
    );
    assert.equal(turns.length, 4, 'nothing is removed from the chat');
    assert.ok(turns[0].leftOut && turns[1].leftOut && !turns[2].leftOut);

    await vscode.commands.executeCommand('gateway.ask', 'third question');
    assert.ok(!sentTexts().includes(first), 'left out of the request');
    assert.ok(sentTexts().includes('second question'));
    const stored = (await api.chat.current()).turns;
    assert.equal(stored[0].content, first, 'still in the conversation');

    await api.chat.includeLeftOutTurns();
    await vscode.commands.executeCommand('gateway.ask', 'fourth question');
    assert.ok(sentTexts().includes(first), 'sent again once included');
    await setSetting('chat.model', 'testvendor/echo-model');
    await vscode.commands.executeCommand('gateway.newChat');
  });
});
