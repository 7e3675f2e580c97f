import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { SIM_IMAGE_MODEL, SIM_VIDEO_MODEL } from '../simulator';
import { screenshots, useSimulatorWorkbench } from './workbench';

/**
 * Media through a gateway shaped like OpenRouter (no `POST /v1/media`: images at `/v1/images`,
 * videos at `/v1/videos`), from the installed package, as a user makes it: Generate Media, the
 * model picked from the gateway's catalogs, then the gallery. Its screenshot is the README's
 * media picture.
 */
describe('Media on an OpenRouter-shaped gateway in the real workbench', function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench(
    {
      mediaApi: 'openrouter',
      mediaTimings: { queuedMs: 300, processingMs: 900 },
    },
    (sim) => ({
      name: 'media-openrouter',
      settings: {
        'gateway.baseUrl': sim.baseUrl,
        'gateway.chat.model': 'anthropic/claude-sonnet-4',
        'gateway.media.model': SIM_IMAGE_MODEL,
        'workbench.colorTheme': 'Default Dark Modern',
      },
      apiKey: 'sk-e2e-media-openrouter-0123456789',
    }),
  );

  /** Generate Media's three steps: the prompt, a model of the catalogs' picker, parameters. */
  async function generate(prompt: string, model: string, parameters: string): Promise<void> {
    const { workbench } = fixture;
    const { page } = workbench;
    // The Media Jobs view's own button, as a person making several would.
    const header = page.locator('.pane-header', { hasText: 'Media Jobs' }).first();
    await header.hover();
    await header.locator('.action-label[aria-label^="Generate Media"]').click();
    await workbench.answerInput('Generate Media (1/3)', prompt);
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Generate Media (2/3)' })
      .waitFor({ timeout: 15_000 });
    // The picker lists the gateway's catalogs (kind, price); typing filters it to the one wanted.
    await page.locator('.quick-input-widget input').fill(model);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: model }).first().waitFor();
    await workbench.answerInput('Generate Media (2/3)');
    await workbench.answerInput('Generate Media (3/3)', parameters);
    // The job is in the tree once the gateway took it.
    await page
      .locator('.pane-body .monaco-list-row', { hasText: prompt })
      .first()
      .waitFor({ timeout: 30_000 });
  }

  it('images and a video made without /v1/media show in the gallery, the images drawn, the video as a tile', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    await workbench.setSectionExpanded('Chat', false);
    await workbench.setSectionExpanded('Media Jobs', true);
    await generate('a lighthouse at dusk, watercolour', SIM_IMAGE_MODEL, '{"aspect_ratio": "16:9"}');
    await generate('a harbour at night, oil on canvas', SIM_IMAGE_MODEL, '{"quality": "high"}');
    await generate('waves rolling onto a beach', SIM_VIDEO_MODEL, '{"duration": 4}');
    const completed = (text: string) =>
      page
        .locator('.pane-body .monaco-list-row', { hasText: text })
        .filter({ hasText: 'completed' })
        .first()
        .waitFor({ timeout: 60_000 });
    await completed('a lighthouse');
    await completed('a harbour');
    await completed('waves rolling');
    // Made through OpenRouter's routes: the images at /v1/images, the clip at /v1/videos.
    const posted = sim.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    assert.equal(posted.filter((p) => p.endsWith('/v1/images')).length, 2, posted.join(', '));
    assert.equal(posted.filter((p) => p.endsWith('/v1/videos')).length, 1, posted.join(', '));

    await workbench.runCommand('Gateway AI: Open Media Gallery');
    const gallery = await workbench.webviewFrame('.grid .card', 30_000);
    for (const prompt of ['a lighthouse', 'a harbour']) {
      const thumb = gallery.locator('.grid .card', { hasText: prompt }).first().locator('img.thumb');
      await thumb.waitFor({ timeout: 30_000 });
      // Drawn: the picture the gateway served has loaded, not a placeholder.
      await gallery.waitForFunction(
        (element) => (element as unknown as { naturalWidth: number }).naturalWidth > 0,
        await thumb.elementHandle(),
        { timeout: 30_000 },
      );
      assert.match((await thumb.getAttribute('src')) ?? '', /vscode-resource|vscode-cdn/);
    }
    const video = gallery.locator('.grid .card', { hasText: 'waves rolling' }).first();
    await video.locator('.thumb.tile.video .badge', { hasText: 'Video' }).waitFor({ timeout: 30_000 });
    // Each card names its cost, as the gateway reported it (usage.cost).
    assert.match((await video.locator('.meta').textContent()) ?? '', /\$0\.50?/);
    assert.match(
      (await gallery
        .locator('.grid .card', { hasText: 'a lighthouse' })
        .first()
        .locator('.meta')
        .textContent()) ?? '',
      /\$0\.03/,
    );
    // The README's picture: the gallery alone, without the jobs' notifications or a tooltip.
    await workbench.runCommand('Notifications: Clear All Notifications');
    await page.mouse.move(700, 700);
    await page.waitForTimeout(500);
    await workbench.screenshot(path.join(screenshots, 'readme-media-gallery.png'));
  });
});
