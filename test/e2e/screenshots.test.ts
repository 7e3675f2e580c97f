import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { screenshots, useSimulatorWorkbench } from './workbench';

/**
 * The README's pictures, taken from the real workbench as a person sees it: a chat with a
 * streamed reply (reasoning, code, usage) and the media jobs view with a preview.
 */
describe('Screenshots of the real UI', function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench(
    { chunkDelayMs: 1, mediaTimings: { queuedMs: 500, processingMs: 1500 } },
    (sim) => ({
      name: 'screenshots',
      settings: {
        'gateway.baseUrl': sim.baseUrl,
        'gateway.chat.model': 'anthropic/claude-sonnet-4',
        'gateway.media.model': 'openai/gpt-image-1',
        'workbench.colorTheme': 'Default Dark Modern',
      },
      apiKey: 'sk-screenshot-0123456789',
      files: {
        'debounce.ts':
          'export function debounce<T extends (...args: never[]) => void>(fn: T, ms: number): T {\n  let timer: ReturnType<typeof setTimeout> | undefined;\n  return ((...args: Parameters<T>) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), ms);\n  }) as T;\n}\n',
      },
    }),
  );

  it('chat panel with a streamed reply', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    // A wider sidebar, and the media view folded, as someone chatting would have it.
    const sash = page.locator('.monaco-sash.vertical').first();
    const box = await sash.boundingBox();
    if (box) {
      await page.mouse.move(box.x + box.width / 2, box.y + 200);
      await page.mouse.down();
      await page.mouse.move(560, box.y + 200, { steps: 5 });
      await page.mouse.up();
    }
    await workbench.setSectionExpanded('Media Jobs', false);
    const frame = await workbench.webviewFrame('.composer-input');
    // The file being discussed, open beside the chat.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('debounce.ts');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'debounce.ts' }).first().waitFor();
    await page.keyboard.press('Enter');
    // The editor takes the focus once it has opened; only then can the composer take it back.
    await page.locator('.tabs-container .tab.active', { hasText: 'debounce.ts' }).waitFor();
    await page.locator('.monaco-editor.focused').waitFor();
    const input = frame.locator('.composer-input');
    await input.click();
    await input.fill('How would I write a debounce helper in TypeScript? #sim:long:1800');
    await input.press('Enter');
    await frame.locator('.turn-assistant .turn-footer').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1500);
    await workbench.screenshot(path.join(screenshots, 'readme-chat.png'));
    assert.ok(await frame.locator('.turn-assistant').count());
  });

  it('media jobs with a preview', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.setSectionExpanded('Media Jobs', true);
    await workbench.setSectionExpanded('Chat', false);
    await workbench.runCommand('Gateway AI: Generate Media…');
    await workbench.answerInput('Generate Media (1/3)', 'a lighthouse at dusk, watercolour');
    // Model and parameters: keep the defaults.
    await workbench.answerInput('Generate Media (2/3)');
    await workbench.answerInput('Generate Media (3/3)');
    const row = page
      .locator('.pane-body .monaco-list-row', { hasText: 'a lighthouse' })
      .filter({ hasText: 'completed' })
      .first();
    await row.waitFor({ timeout: 30_000 });
    await workbench.openMediaJob('a lighthouse');
    const frame = await workbench.webviewFrame('img.media-output', 30_000);
    assert.ok(frame);
    await page.waitForTimeout(1000);
    await workbench.screenshot(path.join(screenshots, 'readme-media.png'));
  });
});
