import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pointerUnavailable, startXDisplay } from '../launch/xDisplay';
import type { XDisplay } from '../launch/xDisplay';
import { useSimulatorWorkbench, waitForFile, waitForText } from './workbench';

/**
 * A drag made with a window-system mouse, not through DevTools: the workbench runs in a real
 * Chromium window on a virtual X display, and xdotool moves the pointer. Chromium then runs its
 * own drag loop, including its check that drags between frames of different sites are refused.
 */
describe('Gallery drag with a real pointer', function () {
  this.timeout(240_000);
  let x: XDisplay | undefined;
  before(async function () {
    const missing = pointerUnavailable();
    if (missing) {
      console.log(`      (pending: ${missing})`);
      this.skip();
    }
    x = await startXDisplay();
  });
  const fixture = useSimulatorWorkbench({ mediaTimings: { queuedMs: 200, processingMs: 200 } }, (sim) => ({
    name: 'gallery-drag',
    settings: {
      'gateway.baseUrl': sim.baseUrl,
      'gateway.media.model': 'openai/gpt-image-1',
    },
    apiKey: 'sk-e2e-gallery-drag-0123456789',
    files: { 'notes.md': '# Notes\n\n' },
    display: x?.display,
  }));
  after(async () => {
    await x?.stop();
  });

  it('a result dragged from the gallery into a Markdown editor, Shift held, is saved and inserted', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    const pointer = x;
    assert.ok(pointer);
    await workbench.openGatewayView();
    const chat = await workbench.webviewFrame('.composer-input');
    const input = chat.locator('.composer-input');
    await input.click();
    await input.fill('/image a blue square');
    await input.press('Enter');
    await chat.locator('.turn-media[data-status="completed"]').last().waitFor({ timeout: 60_000 });

    await workbench.openFile('notes.md');
    const editor = page.locator('.monaco-editor .view-lines', { hasText: '# Notes' }).first();
    await editor.waitFor({ timeout: 20_000 });
    await workbench.runCommand('View: Split Editor Right');
    await workbench.runCommand('Gateway AI: Open Media Gallery');
    const gallery = await workbench.webviewFrame('.grid .thumb[draggable="true"]');
    const thumb = gallery
      .locator('.grid .card', { hasText: 'a blue square' })
      .first()
      .locator('.thumb[draggable="true"]');
    await thumb.waitFor({ timeout: 20_000 });

    const from = await thumb.boundingBox();
    const to = await editor.boundingBox();
    assert.ok(from && to, 'the gallery card and the Markdown editor are both on screen');
    // Page coordinates to screen coordinates: the window sits at the screen's top-left corner.
    const origin = await page.evaluate(() => {
      const w = globalThis as unknown as Record<'screenX' | 'screenY' | 'outerWidth' | 'innerWidth', number> &
        Record<'outerHeight' | 'innerHeight', number>;
      return {
        x: w.screenX + (w.outerWidth - w.innerWidth) / 2,
        y: w.screenY + w.outerHeight - w.innerHeight,
      };
    });
    const screen = (px: number, py: number) => [
      String(Math.round(origin.x + px)),
      String(Math.round(origin.y + py)),
    ];
    const start = { x: from.x + from.width / 2, y: from.y + from.height / 2 };
    const end = { x: to.x + 60, y: to.y + 40 };
    const pause = () => page.waitForTimeout(40);

    pointer.xdotool('mousemove', ...screen(start.x, start.y));
    await page.waitForTimeout(200);
    pointer.xdotool('mousedown', '1');
    for (let i = 1; i <= 6; i++) {
      pointer.xdotool('mousemove', ...screen(start.x + i * 3, start.y + i * 3));
      await pause();
    }
    // VS Code drops into the text (rather than opening in the group) while Shift is held.
    pointer.xdotool('keydown', 'shift');
    for (let i = 1; i <= 20; i++) {
      pointer.xdotool(
        'mousemove',
        ...screen(start.x + ((end.x - start.x) * i) / 20, start.y + ((end.y - start.y) * i) / 20),
      );
      await pause();
    }
    await page.waitForTimeout(300);
    pointer.xdotool('mousemove', ...screen(end.x + 3, end.y + 3));
    await page.waitForTimeout(300);
    pointer.xdotool('mouseup', '1');
    pointer.xdotool('keyup', 'shift');

    const expected = '![a blue square](assets/generated/a-blue-square.png)';
    const text = await waitForText(page, editor, expected);
    assert.ok(text.includes(expected), `the editor shows the dropped image: ${text}`);
    await waitForFile(page, path.join(workbench.workspace, 'assets/generated/a-blue-square.png'));
  });
});
