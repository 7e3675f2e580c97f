/**
 * Context in the real workbench: an image pasted into the chat reaches the gateway, the model
 * picker shows the catalog's prices and context, and the context meter moves when a file is
 * attached from the Explorer's context menu.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { sendAndWait, useSimulatorWorkbench } from './workbench';

/** A 1×1 PNG, as a user would paste a (very small) screenshot. */
const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const NOTES = `# Notes\n\n${'The context meter counts this file. '.repeat(60)}\n`;

/** The meter's estimate, as the webview shows it (data-used), once it is shown. */
async function meterValue(frame: Frame): Promise<number> {
  const meter = frame.locator('.context-meter');
  await meter.waitFor({ state: 'visible', timeout: 30_000 });
  return Number(await meter.getAttribute('data-used'));
}

describe('Context, images and the model catalog in the real workbench', function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench({ chunkDelayMs: 2 }, (sim) => ({
    name: 'context',
    settings: { 'gateway.baseUrl': sim.baseUrl, 'gateway.chat.model': 'openai/gpt-4o-mini' },
    apiKey: 'sk-e2e-context-0123456789',
    files: { 'notes.md': NOTES },
  }));

  it('the model picker shows price and context from the catalog', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    await workbench.runCommand('Gateway AI: Select Chat Model');
    const row = page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'OpenAI: GPT-4o-mini' })
      .first();
    await row.waitFor({ timeout: 30_000 });
    const text = (await row.textContent()) ?? '';
    assert.match(text, /\$0\.15\/M in · \$0\.60\/M out/, `price per 1M tokens in "${text}"`);
    assert.match(text, /128K context/, `context length in "${text}"`);
    const other = page.locator('.quick-input-list .monaco-list-row', {
      hasText: 'Anthropic: Claude Sonnet 4',
    });
    assert.match((await other.first().textContent()) ?? '', /\$3\.00\/M in · \$15\.0\/M out.*200K context/);
    await page.keyboard.press('Escape');
  });

  it('the context meter moves when a file is attached from the Explorer', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    let frame = await workbench.webviewFrame('.composer-input');
    const before = await meterValue(frame);

    // Explorer → right-click notes.md → Add File to Chat, as a person would.
    await workbench.runCommand('View: Show Explorer');
    const file = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.md' }).first();
    await file.waitFor({ timeout: 30_000 });
    await file.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-label', { hasText: 'Add File to Chat' }).first();
    // The menu acts on the highlighted item: hover it, as the mouse would, and press Enter.
    await item.hover();
    await page.keyboard.press('Enter');

    // Showing the Explorer hid the chat's webview; attaching reveals the chat in a new one.
    frame = await workbench.webviewFrame('.attachment-chip');
    await frame.locator('.attachment-chip', { hasText: 'notes.md' }).waitFor({ timeout: 30_000 });
    let after = before;
    for (let i = 0; i < 40 && after === before; i++) {
      after = await meterValue(frame);
      if (after === before) await page.waitForTimeout(250);
    }
    // notes.md is about 2,200 characters: some 550 tokens more.
    assert.ok(after - before > 400, `the meter moved from ${before} to ${after}`);
    // The limit shows once the catalog has answered (it is asked again after the key was set).
    const label = frame.locator('.context-label', { hasText: '/ 128K' });
    await label.waitFor({ timeout: 15_000 }).catch(async () => {
      throw new Error(
        `The context label never showed the model's limit: "${await frame.locator('.context-label').textContent()}"`,
      );
    });

    // Once sent, the prompt shows what it carried.
    await sendAndWait(frame, 'Summarize the notes');
    const chip = frame.locator('.turn-user .sent-chip', { hasText: 'notes.md' }).last();
    await chip.waitFor({ timeout: 15_000 });
    assert.match((await chip.textContent()) ?? '', /notes\.md\d+ KB|notes\.md\d+ B/);
  });

  it('an image pasted into the chat reaches the gateway, which reports it', async () => {
    const { workbench, sim } = fixture;
    const frame = await workbench.webviewFrame('.composer-input');
    const input = frame.locator('.composer-input');
    await input.click();
    // Runs in the webview: a real paste event carrying a PNG file, as the clipboard gives it.
    await input.evaluate((element, base64) => {
      const g = globalThis as unknown as {
        atob(s: string): string;
        File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
        DataTransfer: new () => { items: { add(file: unknown): void } };
        ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
      };
      const binary = g.atob(base64);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      const data = new g.DataTransfer();
      data.items.add(new g.File([bytes], 'screenshot.png', { type: 'image/png' }));
      const event = new g.ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
      (element as unknown as { dispatchEvent(e: unknown): boolean }).dispatchEvent(event);
    }, PNG_1x1);
    await frame
      .locator('.attachment-chip.kind-image', { hasText: 'screenshot.png' })
      .waitFor({ timeout: 30_000 });

    const reply = await sendAndWait(frame, 'What is in the image?');
    const bytes = Buffer.from(PNG_1x1, 'base64').length;
    assert.match(reply, new RegExp(`Images received: 1 \\(image/png ${bytes} bytes\\)`));
    const request = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1)!;
    const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    const parts = messages.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
    assert.ok(
      parts.some((p) => p.type === 'image_url' && p.image_url?.url.startsWith('data:image/png;base64,')),
      'sent as an image_url part with a data URL',
    );
    const chip = frame.locator('.turn-user .sent-chip.kind-image').last();
    assert.match((await chip.textContent()) ?? '', new RegExp(`screenshot\\.png${bytes} B`));
  });

  it('#file: in the prompt offers the workspace files and attaches the chosen one', async () => {
    const { workbench } = fixture;
    const frame = await workbench.webviewFrame('.composer-input');
    const input = frame.locator('.composer-input');
    await input.click();
    await input.fill('');
    await input.pressSequentially('Read #file:note');
    const option = frame.locator('.file-mention-option', { hasText: 'notes.md' }).first();
    await option.waitFor({ timeout: 30_000 });
    await input.press('Enter');
    await frame
      .locator('.attachment-bar .attachment-chip', { hasText: 'notes.md' })
      .waitFor({ timeout: 30_000 });
    assert.equal(await input.inputValue(), 'Read ');
  });
});
