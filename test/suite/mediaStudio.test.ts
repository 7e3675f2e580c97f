import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { referenceFileName } from '../../src/core/mediaStudio/referenceImage';
import { observed } from './observed';
import type { MediaGalleryPanel } from '../../src/host/media/views/galleryPanel';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

describe('Media studio: save, insert, budget, gallery, variations and the agents’ tool', function () {
  let sim: GatewaySimulator;
  let root: vscode.Uri;

  async function completedJob(prompt: string): Promise<string> {
    const api = await gatewayApi();
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', { prompt });
    await waitFor(() => api.media.model.get(id)?.status === 'completed', 'the job to complete', 15_000);
    return id;
  }

  /** Drags a job as the Media Jobs tree does and asks the drop provider for its edit. */
  async function dropJob(id: string, document: vscode.TextDocument) {
    const api = await gatewayApi();
    const { mediaJobDragController } = await import('../../src/host/media/mediaLoader');
    const transfer = new vscode.DataTransfer();
    await mediaJobDragController.handleDrag!(
      [api.media.model.get(id)!],
      transfer,
      new vscode.CancellationTokenSource().token,
    );
    return api.media.studio.dropEdit(document, transfer);
  }

  function mediaPosts() {
    return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/media'));
  }

  before(async () => {
    sim = await startGatewaySimulator({ mediaTimings: { queuedMs: 300, processingMs: 500 } });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('media.model', 'testvendor/image-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    root = vscode.workspace.workspaceFolders![0].uri;
  });

  after(async () => {
    await setSetting('media.model', undefined);
    await setSetting('media.storageLimitMB', undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await sim.close();
  });

  it('Insert into Editor saves the PNG under assets/generated and writes a Markdown image at the cursor, never overwriting', async () => {
    const id = await completedJob('A red square!');
    const docUri = vscode.Uri.joinPath(root, 'notes.md');
    await vscode.workspace.fs.writeFile(docUri, new TextEncoder().encode('# Notes\n\n'));
    const editor = await vscode.window.showTextDocument(docUri);
    editor.selection = new vscode.Selection(2, 0, 2, 0);

    const first = await vscode.commands.executeCommand<string[]>('gateway.insertMediaResult', id);
    assert.deepEqual(first, ['assets/generated/a-red-square.png']);
    const second = await vscode.commands.executeCommand<string[]>('gateway.insertMediaResult', id);
    assert.deepEqual(second, ['assets/generated/a-red-square-2.png'], 'a second save takes a new name');

    const text = editor.document.getText();
    assert.match(text, /!\[A red square!\]\(assets\/generated\/a-red-square\.png\)/);
    assert.match(text, /!\[A red square!\]\(assets\/generated\/a-red-square-2\.png\)/);
    for (const name of ['a-red-square.png', 'a-red-square-2.png']) {
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, 'assets/generated', name));
      assert.deepEqual([...bytes.subarray(0, 8)], PNG_SIGNATURE, `${name} is the PNG`);
    }
    const api = await gatewayApi();
    assert.ok(api.media.studio.saved.has(id), 'the job is remembered as saved');
  });

  it('each job has a thumbnail file of its own, whatever characters its id holds', async () => {
    const { studio } = (await gatewayApi()).media;
    const ids = ['gen/1', 'gen_1', 'gen:1', 'gen.1', `${'x'.repeat(80)}a`, `${'x'.repeat(80)}b`];
    const names = ids.map((id) => studio.thumbnailFile(id).path);
    assert.equal(new Set(names).size, ids.length, names.join('\n'));
    assert.ok(names.every((name) => name.startsWith(studio.thumbnailFolder.path)));
  });

  it('storage cleanup deletes thumbnails no job has any more, once they are an hour old', async function () {
    const { studio } = (await gatewayApi()).media;
    if (studio.thumbnailFolder.scheme !== 'file') this.skip();
    const id = await completedJob('thumbnail keeper');
    await vscode.workspace.fs.createDirectory(studio.thumbnailFolder);
    const HOURS_2 = 2 * 60 * 60_000;
    const place = async (uri: vscode.Uri, ageMs: number) => {
      await vscode.workspace.fs.writeFile(uri, new Uint8Array([1, 2, 3]));
      const time = (Date.now() - ageMs) / 1000;
      fs.utimesSync(uri.fsPath, time, time);
    };
    const ofAJob = studio.thumbnailFile(id);
    // Named the way before thumbnails were named by the id's hash, and one another window
    // may have cached a moment ago for a job this window has not heard of yet.
    const oldOrphan = vscode.Uri.joinPath(studio.thumbnailFolder, 'gen_1.webp');
    const freshOrphan = vscode.Uri.joinPath(studio.thumbnailFolder, 'just-cached.webp');
    await place(ofAJob, HOURS_2);
    await place(oldOrphan, HOURS_2);
    await place(freshOrphan, 0);

    await studio.enforceBudget();
    const exists = (uri: vscode.Uri) =>
      Promise.resolve(vscode.workspace.fs.stat(uri)).then(
        () => true,
        () => false,
      );
    assert.deepEqual(
      [await exists(ofAJob), await exists(oldOrphan), await exists(freshOrphan)],
      [true, false, true],
      'kept: the job’s own and the fresh one; deleted: the hour-old orphan',
    );
  });

  it('in another language the relative path is inserted, from the document’s folder', async () => {
    const id = await completedJob('logo');
    const docUri = vscode.Uri.joinPath(root, 'src', 'app.ts');
    await vscode.workspace.fs.writeFile(docUri, new TextEncoder().encode('const logo = "";\n'));
    const editor = await vscode.window.showTextDocument(docUri);
    editor.selection = new vscode.Selection(0, 14, 0, 14);
    await vscode.commands.executeCommand('gateway.insertMediaResult', id);
    assert.equal(editor.document.lineAt(0).text, 'const logo = "../assets/generated/logo.png";');
  });

  it('a drop of a job from the tree into an editor saves it and inserts the reference', async () => {
    const id = await completedJob('dropped cat');
    const docUri = vscode.Uri.joinPath(root, 'drop.md');
    await vscode.workspace.fs.writeFile(docUri, new TextEncoder().encode(''));
    const document = await vscode.workspace.openTextDocument(docUri);
    const edit = await dropJob(id, document);
    assert.equal(edit?.insertText, '![dropped cat](assets/generated/dropped-cat.png)');
    // The file comes with the edit, as VS Code applies it.
    const file = vscode.Uri.joinPath(root, 'assets/generated/dropped-cat.png');
    assert.ok(edit?.additionalEdit, 'the edit creates the file');
    assert.ok(await vscode.workspace.applyEdit(edit.additionalEdit));
    assert.deepEqual([...(await vscode.workspace.fs.readFile(file)).subarray(0, 8)], PNG_SIGNATURE);
  });

  it('Suspected, confirmed: a drop edit that is never applied leaves no file behind', async () => {
    // The provider used to save while VS Code was still collecting drop edits: a drop cancelled,
    // replaced by another option or undone left the file, and the job marked saved.
    const id = await completedJob('dropped dog');
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: '' });
    const edit = await dropJob(id, document);
    assert.equal(edit?.insertText, '![dropped dog](assets/generated/dropped-dog.png)');
    const file = vscode.Uri.joinPath(root, 'assets/generated/dropped-dog.png');
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.stat(file)),
      'nothing is written before the edit applies',
    );
  });

  // Found as a flake of the test below: each save wrote the job's result file again, and the
  // replacing rename left a moment with no file while the other save copied it.
  it('a result file is written once: a second write joins the first or keeps the file', async () => {
    const api = await gatewayApi();
    const file = vscode.Uri.joinPath(api.media.store.folder, 'write-once-test-1.png');
    const first = new Uint8Array([1, 2, 3]);
    await Promise.all([
      api.media.store.writeResult(file, first),
      api.media.store.writeResult(file, new Uint8Array([4, 5, 6])),
    ]);
    assert.deepEqual([...(await vscode.workspace.fs.readFile(file))], [...first]);
    await api.media.store.writeResult(file, new Uint8Array([7, 8, 9]));
    assert.deepEqual([...(await vscode.workspace.fs.readFile(file))], [...first]);
    await vscode.workspace.fs.delete(file);
  });

  it('two saves of one result at once get a file each: neither replaces the other', async () => {
    const api = await gatewayApi();
    const job = api.media.model.get(await completedJob('twin cat'))!;
    const [first, second] = await Promise.all([api.media.studio.save(job), api.media.studio.save(job)]);
    // Which one gets the plain name depends on which download ends first.
    assert.deepEqual([first[0].relativePath, second[0].relativePath].sort(), [
      'assets/generated/twin-cat-2.png',
      'assets/generated/twin-cat.png',
    ]);
    for (const file of [first[0], second[0]])
      assert.deepEqual([...(await vscode.workspace.fs.readFile(file.uri)).subarray(0, 8)], PNG_SIGNATURE);
  });

  it('a drop that names no completed job (unknown ids, junk, another type) inserts nothing', async () => {
    const api = await gatewayApi();
    const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: '' });
    for (const raw of ['["no-such-job"]', 'not json', '{"ids":["x"]}', '[7]', '']) {
      const transfer = new vscode.DataTransfer();
      transfer.set('application/vnd.code.tree.gateway.mediajobs', new vscode.DataTransferItem(raw));
      assert.equal(await api.media.studio.dropEdit(document, transfer), undefined, raw);
    }
    assert.equal(await api.media.studio.dropEdit(document, new vscode.DataTransfer()), undefined);
  });

  it('Re-run repeats the prompt and parameters; Variation sends the result as a reference image', async () => {
    const id = await completedJob('a blue circle');
    const before = mediaPosts().length;
    const rerunId = await vscode.commands.executeCommand<string>('gateway.rerunMediaJob', id);
    assert.ok(rerunId && rerunId !== id);
    const variationId = await vscode.commands.executeCommand<string>('gateway.mediaVariation', id);
    assert.ok(variationId);
    const [rerun, variation] = mediaPosts().slice(before);
    assert.deepEqual(rerun.body, { model: 'testvendor/image-model', prompt: 'a blue circle' });
    const body = variation.body as Record<string, unknown>;
    assert.equal(body.prompt, 'a blue circle');
    assert.match(String(body.image_url), /^data:image\/png;base64,iVBORw0KGgo/, 'the PNG as a data URL');
    // F8: the job keeps the image as a file, with only its name in the jobs file; a re-run of
    // the variation sends the image again, as it was.
    const kept = (await gatewayApi()).media.model.get(variationId)!.parameters ?? {};
    assert.ok(!JSON.stringify(kept).includes('base64'), 'no data URL in the stored job');
    await vscode.commands.executeCommand<string>('gateway.rerunMediaJob', variationId);
    const again = mediaPosts().at(-1)!.body as Record<string, unknown>;
    assert.equal(again.image_url, body.image_url);

    await setSetting('media.referenceImageParameter', { 'testvendor/*': 'input_image' });
    try {
      await vscode.commands.executeCommand<string>('gateway.mediaVariation', id);
      const configured = mediaPosts().at(-1)!.body as Record<string, unknown>;
      assert.match(String(configured.input_image), /^data:image\/png;base64,/);
      assert.equal(configured.image_url, undefined);
    } finally {
      await setSetting('media.referenceImageParameter', undefined);
    }

    const fromImage = await vscode.commands.executeCommand<string>(
      'gateway.generateMediaFromImage',
      vscode.Uri.joinPath(root, 'assets/generated/a-red-square.png'),
      'make it green',
    );
    assert.ok(fromImage);
    const attached = mediaPosts().at(-1)!.body as Record<string, unknown>;
    assert.equal(attached.prompt, 'make it green');
    assert.match(String(attached.image_url), /^data:image\/png;base64,iVBORw0KGgo/);
  });

  it('vscode.lm.invokeTool runs gateway_generateMedia to completion and returns the saved path', async () => {
    const api = await gatewayApi();
    assert.ok(
      vscode.lm.tools.some((t) => t.name === 'gateway_generateMedia'),
      'the tool is registered',
    );
    const prepared = await api.media.studio.tool.prepareInvocation({
      input: { prompt: 'a [link](command:x) fox', model: 'testvendor/other' },
    });
    const message = prepared.confirmationMessages!.message as vscode.MarkdownString;
    assert.match(message.value, /testvendor\/other/, 'the confirmation names the model');
    assert.match(message.value, /fox/, 'and the prompt');
    assert.doesNotMatch(message.value, /\]\(command:/, 'as plain text');

    const result = await vscode.lm.invokeTool('gateway_generateMedia', {
      toolInvocationToken: undefined,
      input: { prompt: 'tool owl', saveTo: 'art' },
    });
    const text = result.content.map((part) => (part as vscode.LanguageModelTextPart).value).join('');
    assert.match(text, /"art\/tool-owl\.png"/, text);
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, 'art/tool-owl.png'));
    assert.deepEqual([...bytes.subarray(0, 8)], PNG_SIGNATURE);
    if (observed.windowObservable)
      assert.ok(
        !observed.notifications.some((n) => n.message.includes('"tool owl"')),
        'the tool reported the end itself: no notification on top',
      );
  });

  // Found in review: a start read every stored-reference look-alike back from the reference
  // store, so a tool call naming a stored image's file sent that image, which the confirmation
  // did not show. Only a stored job's own parameters (Re-run, Variation) are read back now.
  it("the tool sends a stored reference's look-alike as written, never the stored image", async () => {
    const api = await gatewayApi();
    const secret = new Uint8Array([...PNG_SIGNATURE, 1, 2, 3, 4]);
    const name = referenceFileName(secret, 'image/png');
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(api.media.store.referencesFolder, name), secret);
    const lookalike = { gatewayReference: name, mediaType: 'image/png' };
    const before = mediaPosts().length;
    await vscode.lm.invokeTool('gateway_generateMedia', {
      toolInvocationToken: undefined,
      input: { prompt: 'tool lookalike', parameters: { image: lookalike } },
    });
    const sent = mediaPosts().slice(before)[0]?.body as { image?: unknown };
    assert.deepEqual(sent?.image, lookalike);
  });

  it('gateway_generateMedia honours cancellation: it stops waiting at once', async () => {
    const api = await gatewayApi();
    const source = new vscode.CancellationTokenSource();
    const before = mediaPosts().length;
    // The job keeps processing until the tool has been cancelled, however slow this machine is.
    const processingMs = sim.mediaTimings.processingMs;
    sim.mediaTimings.processingMs = 10 * 60_000;
    try {
      const invocation = vscode.lm.invokeTool(
        'gateway_generateMedia',
        { toolInvocationToken: undefined, input: { prompt: 'cancel me' } },
        source.token,
      );
      await waitFor(() => mediaPosts().length > before, 'the job to start');
      // The gateway's answer with the job's id reaches the model a moment after the POST.
      const { id } = await waitFor(
        () => api.media.model.all().find((job) => job.prompt === 'cancel me'),
        'the job in the model',
      );
      const started = Date.now();
      source.cancel();
      await assert.rejects(Promise.resolve(invocation), (error: Error) =>
        /cancel/i.test(`${error.name} ${error.message}`),
      );
      const status = api.media.model.get(id)?.status;
      assert.ok(Date.now() - started < 2000, `promptly: ${Date.now() - started} ms, the job ${status}`);
      assert.notEqual(status, 'completed', 'before the job finished');
    } finally {
      sim.mediaTimings.processingMs = processingMs;
    }
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(root, 'assets/generated/cancel-me.png'))),
    );
    // The job runs on without the tool: its end is announced as any job's.
    if (observed.windowObservable)
      await waitFor(
        () => observed.notifications.some((n) => n.message.includes('media job completed: "cancel me"')),
        'the notification of the job the tool stopped waiting for',
        20_000,
      );
  });

  it('the gallery opens in the editor area under the strict CSP, and deleting removes results', async () => {
    const api = await gatewayApi();
    const gallery = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    assert.ok(gallery?.panel.visible, 'the gallery is open');
    assert.equal(gallery.panel.viewType, 'gateway.mediaGallery');
    const html = gallery.panel.webview.html;
    assert.match(html, /default-src 'none'/);
    assert.match(html, /dist\/gallery\.js/);
    const id = await completedJob('to be deleted');
    await gallery.deleteJobs([api.media.model.get(id)!]);
    assert.equal(api.media.model.get(id), undefined);
    gallery.panel.dispose();
  });

  it('over the storage cap, the oldest unsaved results go, saved ones and the newest stay, and the user is told once', async () => {
    const api = await gatewayApi();
    await waitFor(() => api.media.model.running().length === 0, 'running jobs to finish', 15_000);
    const justArrived = await completedJob('the newest result');
    const completed = api.media.model.all().filter((job) => job.status === 'completed');
    const saved = completed.filter((job) => api.media.studio.saved.has(job.id));
    const unsaved = completed
      .filter((job) => !api.media.studio.saved.has(job.id))
      .sort(
        (a, b) => (a.finishedAt ?? a.createdAt) - (b.finishedAt ?? b.createdAt) || a.id.localeCompare(b.id),
      );
    // F1: the newest result not saved to the workspace is never removed, whatever the cap.
    const newest = unsaved.at(-1);
    assert.equal(newest?.id, justArrived);
    assert.ok(saved.length > 0 && unsaved.length > 1);
    // One stored file of an older unsaved result, to see it deleted.
    const stored = unsaved
      .slice(0, -1)
      .flatMap((job) => job.outputs)
      .find((output) => output.kind === 'url' && output.url.startsWith('file:'));
    assert.ok(stored?.kind === 'url', 'an older unsaved result has a stored file');
    const unsavedFile = vscode.Uri.parse(stored.url);
    await vscode.workspace.fs.stat(unsavedFile);
    const shownBefore = observed.notifications.length;

    await setSetting('media.storageLimitMB', 0);
    const plan = await api.media.studio.enforceBudget();
    // A pass scheduled by a job that just finished may have run first and taken some of them.
    assert.ok(
      plan.remove.every((id) => unsaved.some((job) => job.id === id)),
      'only unsaved results go',
    );
    for (const job of saved) assert.ok(api.media.model.get(job.id), 'a saved result stays');
    assert.ok(newest && api.media.model.get(newest.id), 'the newest unsaved result stays');
    assert.ok(!plan.remove.includes(newest.id));
    // Over a cap of 0 every other unsaved result that takes room goes; one that takes none (a
    // text result, say) does not bring storage under the cap and may stay.
    for (const job of unsaved.slice(0, -1)) {
      if (!api.media.model.get(job.id)) continue;
      const present = await Promise.all(
        api.media.studio.storedFiles(job).map((file) =>
          Promise.resolve(vscode.workspace.fs.stat(file)).then(
            () => true,
            () => false,
          ),
        ),
      );
      assert.ok(!present.includes(true), `unsaved ${job.id} stays only if it takes no storage`);
    }
    await assert.rejects(
      Promise.resolve(vscode.workspace.fs.stat(unsavedFile)),
      'its stored file is deleted',
    );
    await vscode.workspace.fs.stat(vscode.Uri.joinPath(root, 'assets/generated/a-red-square.png'));
    // Saved results alone take more than 0 MB: the cap cannot be met, and the user is told so.
    const cannotMeet = () =>
      observed.notifications
        .slice(shownBefore)
        .filter((n) => /saved to the workspace alone take .* more than the 0 MB allowed/.test(n.message));
    await waitFor(() => cannotMeet().length > 0, 'the notification');
    // Once, not at every cleanup.
    await api.media.studio.enforceBudget();
    assert.equal(cannotMeet().length, 1);
  });
});
