import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { screenshots, useSimulatorWorkbench, waitForText } from './workbench';

/**
 * Inline completions from the installed package, driven like a user: typing in a file shows the
 * gateway's suggestion as ghost text after a pause, and Tab accepts it.
 */
describe('Inline completions in the editor', function () {
  this.timeout(180_000);
  const fixture = useSimulatorWorkbench({ chunkDelayMs: 0 }, (sim) => ({
    name: 'inline',
    settings: {
      'gateway.baseUrl': sim.baseUrl,
      'gateway.inlineCompletions.enabled': true,
      'gateway.inlineCompletions.model': 'sim/coder',
      'gateway.inlineCompletions.mode': 'fim',
      'workbench.colorTheme': 'Default Dark Modern',
    },
    apiKey: 'sk-inline-e2e-0123456789',
    files: {
      'stats.ts':
        '/** The mean of the values, or 0 for none. */\nexport function mean(values: number[]): number {\n  if (values.length === 0) return 0;\n',
    },
  }));

  it('typing shows ghost text from the gateway, and Tab accepts it', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    sim.completionScript = {
      text: 'values.reduce((sum, value) => sum + value, 0) / values.length;\n}\n',
    };
    await workbench.openFile('stats.ts');
    const editor = page.locator('.monaco-editor .view-lines').first();
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'export function mean' })
      .waitFor({ timeout: 20_000 });
    await editor.click();
    await page.keyboard.press('Control+End');
    // When the window handled each key: under load they come further apart than the 80 ms asked.
    await page.evaluate(`window.gatewayKeyTimes = [];
      document.addEventListener('keydown', () => window.gatewayKeyTimes.push(performance.now()), true);`);
    await page.keyboard.type('  return ', { delay: 80 });
    // The ghost text is one span per token, with non-breaking spaces; the state that matters is
    // all of it shown.
    await page.waitForFunction(
      `[...document.querySelectorAll('.monaco-editor .ghost-text-decoration')]
        .map((span) => span.textContent).join('').replace(/\\u00a0/g, ' ')
        .includes('values.reduce((sum, value) => sum + value, 0) / values.length;')`,
      undefined,
      { timeout: 20_000 },
    );
    await workbench.screenshot(path.join(screenshots, 'inline-completion.png'));
    const completions = sim.requests.filter((r) => r.path.endsWith('/v1/completions'));
    // Typing at 80 ms a key sends one or two requests. A pause longer than the shortest debounce
    // (120 ms) may rightly send one more: the keys as the window handled them say how many.
    const keyTimes = await page.evaluate<number[]>('window.gatewayKeyTimes');
    const pauses = keyTimes.slice(1).filter((time, i) => time - keyTimes[i] >= 120).length;
    assert.ok(
      completions.length >= 1 && completions.length <= Math.max(2, 1 + pauses),
      `${completions.length} requests for ${keyTimes.length} keys with ${pauses} pauses of 120 ms or more`,
    );

    await page.keyboard.press('Tab');
    const text = await waitForText(page, editor, 'sum + value, 0) / values.length;');
    assert.ok(text.includes('return values.reduce((sum, value) => sum + value, 0) / values.length;'), text);
  });
});
