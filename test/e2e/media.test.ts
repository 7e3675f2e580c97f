import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { screenshots, useSimulatorWorkbench } from './workbench';

describe('Media jobs in the real workbench', function () {
  this.timeout(240_000);
  // Checks come about 1 s, 3 s and 8 s after the start (±20%): a job processing from 1.5 s to
  // 6 s is always seen processing at the second check, and completed at the third.
  const fixture = useSimulatorWorkbench({ mediaTimings: { queuedMs: 1500, processingMs: 4500 } }, (sim) => ({
    name: 'media',
    settings: { 'gateway.baseUrl': sim.baseUrl, 'gateway.media.model': 'demo/image-1' },
    apiKey: 'sk-e2e-media-0123456789',
  }));

  it('the tree shows the job queued, processing, then completed, and the preview shows the PNG', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    await workbench.runCommand('Gateway AI: Generate Media…');
    await workbench.answerInput('Generate Media (1/3)', 'a lighthouse at dusk');
    // Model and parameters: keep the defaults.
    await workbench.answerInput('Generate Media (2/3)');
    await workbench.answerInput('Generate Media (3/3)');

    const row = page.locator('.pane-body .monaco-list-row', { hasText: 'a lighthouse at dusk' }).first();
    await row.waitFor({ timeout: 20_000 });
    const seen: string[] = [];
    for (const status of ['queued', 'processing', 'completed']) {
      await page
        .locator('.pane-body .monaco-list-row', { hasText: 'a lighthouse at dusk' })
        .filter({ hasText: status })
        .first()
        .waitFor({ timeout: 20_000 });
      seen.push(status);
      if (status === 'processing') await workbench.screenshot(path.join(screenshots, 'media-processing.png'));
    }
    assert.deepEqual(seen, ['queued', 'processing', 'completed']);
    await workbench.screenshot(path.join(screenshots, 'media-tree.png'));

    await workbench.openMediaJob('a lighthouse at dusk');
    const frame = await workbench.webviewFrame('img.media-output', 30_000);
    assert.ok(frame, 'the preview opened');
    // Runs in the webview. Functions, not strings: the preview's CSP forbids eval, as it should.
    type Image = { complete: boolean; naturalWidth: number; naturalHeight: number };
    const image = frame.locator('img.media-output');
    await image.waitFor();
    let size: number[] = [0, 0];
    for (let i = 0; i < 40 && !(size[0] > 0); i++) {
      size = await image.evaluate((img) =>
        (img as unknown as Image).complete
          ? [(img as unknown as Image).naturalWidth, (img as unknown as Image).naturalHeight]
          : [0, 0],
      );
      if (!(size[0] > 0)) await page.waitForTimeout(250);
    }
    assert.ok(size[0] > 0 && size[1] > 0, `the PNG decoded: ${size.join('x')}`);
    await workbench.screenshot(path.join(screenshots, 'media-preview.png'));
  });
});
