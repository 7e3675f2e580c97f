import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { screenshots, useSimulatorWorkbench, waitForFile, waitForText } from './workbench';

/** Runs in the webview: draws the image on a canvas and reads its middle pixel back. */
type Img = { complete: boolean; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };
type Canvas = {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(img: Img, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
};

describe('Media from the chat in the real workbench', function () {
  this.timeout(240_000);
  // Checks come about 1 s, 3 s and 8 s after the start (±20%): a job processing from 1.5 s to
  // 6 s is always seen processing at the second check, and completed at the third.
  const fixture = useSimulatorWorkbench({ mediaTimings: { queuedMs: 1500, processingMs: 4500 } }, (sim) => ({
    name: 'chat-media',
    settings: {
      'gateway.baseUrl': sim.baseUrl,
      'gateway.chat.model': 'demo/echo-1',
      // The simulator's catalog says this model makes images.
      'gateway.media.model': 'openai/gpt-image-1',
    },
    apiKey: 'sk-e2e-chat-media-0123456789',
    files: { 'notes.md': '# Notes\n\n' },
  }));

  it('/image a red square gives a card that goes queued → processing → completed, with the red image inline', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    // The Markdown file the result is inserted into later: open beside the chat.
    await workbench.openFile('notes.md');
    await page.locator('.monaco-editor .view-lines', { hasText: '# Notes' }).waitFor({ timeout: 20_000 });

    const frame = await workbench.webviewFrame('.composer-input');
    const input = frame.locator('.composer-input');
    await input.click();
    await input.fill('/image a red square');
    await input.press('Enter');

    const card = frame.locator('.turn-media').last();
    await card.waitFor({ timeout: 30_000 });
    assert.equal(await input.inputValue(), '', 'the composer is cleared once the card is there');
    const seen: string[] = [];
    for (const status of ['queued', 'processing', 'completed']) {
      await frame.locator(`.turn-media[data-status="${status}"]`).last().waitFor({ timeout: 30_000 });
      seen.push(status);
      if (status === 'processing') {
        // How far the job is, as the gateway says (the simulator does), then the time so far.
        assert.match(
          (await card.locator('.media-status').textContent()) ?? '',
          /^Processing( \d+%)? · \d+ s$/,
        );
        await workbench.screenshot(path.join(screenshots, 'chat-media-processing.png'));
      }
    }
    assert.deepEqual(seen, ['queued', 'processing', 'completed']);

    const image = card.locator('img.media-image');
    await image.waitFor({ timeout: 30_000 });
    assert.match((await image.getAttribute('src')) ?? '', /vscode-resource|vscode-cdn/);
    const pixel = await image.evaluate(async (element) => {
      const img = element as unknown as Img;
      await img.decode();
      const doc = (globalThis as unknown as { document: { createElement(tag: 'canvas'): Canvas } }).document;
      const canvas = doc.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0);
      const { data } = context.getImageData(
        Math.floor(img.naturalWidth / 2),
        Math.floor(img.naturalHeight / 2),
        1,
        1,
      );
      return [data[0], data[1], data[2], img.naturalWidth];
    });
    assert.deepEqual(pixel, [255, 0, 0, 64], 'the simulator drew the named colour, and the card shows it');
    await workbench.screenshot(path.join(screenshots, 'chat-media.png'));
  });

  it('Insert into Editor from the card writes a Markdown image of a file saved in the workspace', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    const frame = await workbench.webviewFrame('.turn-media');
    await frame.locator('.turn-media').last().getByRole('button', { name: 'Insert into Editor' }).click();
    const editor = page.locator('.monaco-editor .view-lines', { hasText: '# Notes' });
    const expected = '![a red square](assets/generated/a-red-square.png)';
    const text = await waitForText(page, editor, expected);
    assert.ok(text.includes(expected), `the editor shows the image: ${text}`);
    assert.ok(
      existsSync(path.join(workbench.workspace, 'assets/generated/a-red-square.png')),
      'the file exists',
    );
  });

  it('the gallery lists the result', async () => {
    const { workbench } = fixture;
    // The gallery opens in the active group: split first, so the Markdown file stays in sight for
    // the drag below.
    await workbench.runCommand('View: Split Editor Right');
    await workbench.runCommand('Gateway AI: Open Media Gallery');
    const gallery = await workbench.webviewFrame('.grid .card');
    const card = gallery.locator('.grid .card', { hasText: 'a red square' }).first();
    await card.waitFor({ timeout: 20_000 });
    assert.match((await card.locator('.state').textContent()) ?? '', /completed/);
    await workbench.screenshot(path.join(screenshots, 'chat-media-gallery.png'));
  });

  it('dragging the result from the gallery into the Markdown editor (Shift held) saves and inserts it too', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    const gallery = await workbench.webviewFrame('.grid .thumb[draggable="true"]');
    const thumb = gallery
      .locator('.grid .card', { hasText: 'a red square' })
      .first()
      .locator('.thumb[draggable="true"]');
    const editor = page.locator('.monaco-editor .view-lines', { hasText: '# Notes' }).first();
    const from = await thumb.boundingBox();
    const to = await editor.boundingBox();
    assert.ok(from && to, 'the gallery card and the Markdown editor are both on screen');
    // Playwright's mouse: Chromium's DevTools drag, delivered as real drag events to the gallery's
    // frame (dragstart) and to the workbench (dragenter, dragover, drop). The pointer-drag suite
    // (galleryDrag.test.ts) does the same with a window-system mouse.
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 10, { steps: 4 });
    await page.keyboard.down('Shift');
    await page.mouse.move(to.x + 60, to.y + 40, { steps: 20 });
    await page.mouse.move(to.x + 70, to.y + 45, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const expected = '![a red square](assets/generated/a-red-square-2.png)';
    const text = await waitForText(page, editor, expected);
    assert.ok(text.includes(expected), `the editor shows the dropped image: ${text}`);
    await waitForFile(page, path.join(workbench.workspace, 'assets/generated/a-red-square-2.png'));
  });
});
