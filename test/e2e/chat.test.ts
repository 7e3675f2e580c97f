import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { openWorkbench, screenshots, sendAndWait } from './workbench';
import type { Workbench } from './workbench';

const KEY = 'sk-e2e-test-key-0123456789';

describe('Chat panel in the real workbench', function () {
  this.timeout(240_000);
  let sim: GatewaySimulator;
  let workbench: Workbench;
  const dialogs: string[] = [];

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 2 });
    workbench = await openWorkbench({
      name: 'chat',
      settings: {
        'gateway.baseUrl': sim.baseUrl,
        'gateway.chat.model': 'demo/echo-1',
        'workbench.colorTheme': 'Default Dark Modern',
      },
    });
    workbench.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });

  after(async () => {
    await workbench?.close();
    await sim?.close();
  });

  it('with no key, the chat view offers Set API Key', async () => {
    await workbench.openGatewayView();
    const frame = await workbench.webviewFrame('.composer-input');
    const button = frame.locator('.welcome button', { hasText: 'Set API Key' });
    await button.waitFor({ timeout: 30_000 });
    assert.ok(await button.isVisible());
    await workbench.screenshot(path.join(screenshots, 'welcome.png'));
  });

  it('after the key is set, a streamed reply appears in the panel', async () => {
    await workbench.runCommand('Gateway AI: Set API Key');
    await workbench.answerInput('Gateway AI: Set API Key', KEY);
    const frame = await workbench.webviewFrame('.composer-input');
    await frame
      .locator('.welcome button', { hasText: 'Set API Key' })
      .waitFor({ state: 'detached', timeout: 15_000 });

    const text = await sendAndWait(frame, 'Hello from the end-to-end test');
    assert.match(text, /Hello from the end-to-end test/);
    const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1)!;
    assert.equal(chat.headers.authorization, `Bearer ${KEY}`);
    assert.equal((chat.body as { stream: boolean }).stream, true);
    await workbench.screenshot(path.join(screenshots, 'chat.png'));
  });

  it('a hostile reply executes nothing and fetches nothing', async () => {
    const frame = await workbench.webviewFrame('.composer-input');
    const requested: string[] = [];
    workbench.page.on('request', (request) => {
      if (request.url().includes('/img/')) requested.push(request.url());
    });
    const text = await sendAndWait(frame, 'Show me something nasty #sim:xss');
    assert.match(text, /End of the hostile content/);
    await workbench.page.waitForTimeout(1000);
    assert.equal(sim.imageRequests, 0, 'no request reached the image URLs');
    assert.deepEqual(requested, []);
    assert.deepEqual(dialogs, [], 'no alert ran');
    const reply = frame.locator('.turn-assistant').last();
    // Runs in the webview; typed loosely because this file compiles without DOM types.
    type Node = { tagName: string; getAttributeNames(): string[]; getAttribute(name: string): string | null };
    const dangerous = await reply.evaluate((turn) => {
      const found: string[] = [];
      for (const el of (turn as unknown as { querySelectorAll(s: string): Iterable<Node> }).querySelectorAll(
        '*',
      )) {
        if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED'].includes(el.tagName)) found.push(el.tagName);
        for (const attr of el.getAttributeNames())
          if (attr.startsWith('on')) found.push(`${el.tagName}[${attr}]`);
        const url = el.getAttribute('href') ?? el.getAttribute('src') ?? '';
        if (/^\s*javascript:/i.test(url)) found.push(`${el.tagName} javascript: URL`);
        if (el.tagName === 'IMG' && !/^data:/.test(el.getAttribute('src') ?? '')) found.push('remote IMG');
      }
      return found;
    });
    assert.deepEqual(dangerous, []);
    // The text of the payload is still shown, as text.
    assert.match(text, /<script>alert\('xss-script'\)<\/script>/);
  });

  it('a link in a reply opens only through the extension', async () => {
    const frame = await workbench.webviewFrame('.composer-input');
    await sendAndWait(frame, 'Cite your sources #sim:citations');
    const link = frame.locator('.turn-assistant').last().locator('a[href^="https://"]').first();
    const href = await link.getAttribute('href');
    // The host opens it (VS Code in the browser opens a new tab for an external link).
    // The tab's navigation fails here (no internet); its request shows where it was sent.
    const context = workbench.page.context();
    const navigated = context.waitForEvent('request', {
      predicate: (r) => r.url() === new URL(href!).href,
      timeout: 15_000,
    });
    const opened = context.waitForEvent('page', { timeout: 15_000 });
    await link.click();
    await navigated;
    await (await opened).close();
    // The webview itself navigated nowhere.
    assert.ok(await frame.locator('.composer-input').isVisible());
  });
});
