import * as assert from 'assert';
import type { Locator } from 'playwright-core';
import { DEFAULT_ROUTING } from '../../src/core/catalog/modelOptions';
import type { HostMessage } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const node = element as unknown as { ownerDocument: { activeElement: unknown } };
    return node === node.ownerDocument.activeElement;
  });
}

function options(fields: Partial<Extract<HostMessage, { type: 'modelOptions' }>> = {}): HostMessage {
  return {
    type: 'modelOptions',
    model: 'testvendor/thinker',
    efforts: ['minimal', 'low', 'high', 'xhigh'],
    defaultEffort: 'low',
    routing: DEFAULT_ROUTING,
    providers: ['Alpha Cloud', 'Beta Inference'],
    providerSetting: false,
    tools: { webSearch: false, pdf: false, compress: false },
    pluginsSetting: false,
    ...fields,
  };
}

describe('chat webview: the model menu (effort, routing, tools)', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  it("offers exactly the model's efforts with its default, and none for a model that cannot reason", async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await chat.send(options());
    const effort = chat.page.getByRole('combobox', { name: /Reasoning effort/ });
    assert.deepStrictEqual(await effort.locator('option').allTextContents(), [
      'Default (low)',
      'minimal',
      'low',
      'high',
      'xhigh',
    ]);
    // It takes the focus like any control, and a choice is posted for this model.
    await effort.focus();
    await effort.selectOption('xhigh');
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setEffort',
      model: 'testvendor/thinker',
      effort: 'xhigh',
    });
    await chat.send(options({ model: 'testvendor/text-only', efforts: [], defaultEffort: undefined }));
    assert.strictEqual(await chat.page.locator('.effort-select').isVisible(), false);
  });

  it('the routing panel opens from the keyboard, posts each choice, and closes with Escape', async () => {
    const { chat } = fixture;
    const { page } = chat;
    await chat.send(initMessage([]));
    await chat.send(options());
    const toggle = page.getByRole('button', { name: 'Routing and tools' });
    assert.strictEqual(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.strictEqual(await toggle.getAttribute('aria-expanded'), 'true');
    const panel = page.getByRole('region', { name: 'Routing and tools' });
    assert.ok(await panel.isVisible());
    // The sort control has the focus: choose "Lowest price" with the keyboard.
    assert.ok(await hasFocus(page.getByLabel('Sort providers by')), 'the first choice has the focus');
    await page.getByLabel('Sort providers by').selectOption('price');
    await page.getByLabel('Deny data collection').check();
    await page.getByLabel('Zero data retention only').press('Space');
    await page.getByLabel('Allow fallbacks to other providers').uncheck();
    await page.getByLabel('Only these providers').fill('Beta Inference, Alpha Cloud');
    await page.getByLabel('Only these providers').press('Tab');
    await page.getByLabel('Max input price ($ per million tokens)').fill('2.5');
    await page.getByLabel('Max input price ($ per million tokens)').press('Tab');
    const last = (await chat.posted()).at(-1);
    assert.deepStrictEqual(last, {
      type: 'setRouting',
      model: 'testvendor/thinker',
      routing: {
        sort: 'price',
        allowFallbacks: false,
        denyDataCollection: true,
        zdr: true,
        only: ['Beta Inference', 'Alpha Cloud'],
        ignore: [],
        maxPrice: { prompt: 2.5 },
      },
    });
    // The providers from the gateway are offered as suggestions, as plain values.
    const suggested = await page
      .locator('datalist option')
      .evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value));
    assert.deepStrictEqual(suggested, ['Alpha Cloud', 'Beta Inference']);

    await page.getByLabel('Web search').check();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setChatTools',
      tools: { webSearch: true, pdf: false, compress: false },
    });

    await page.getByLabel('Web search').press('Escape');
    assert.strictEqual(await panel.isVisible(), false);
    assert.strictEqual(await toggle.getAttribute('aria-expanded'), 'false');
    assert.ok(await hasFocus(toggle), 'the focus goes back to the button');
    // Escape closed the panel; it did not stop anything.
    assert.ok(!(await chat.posted()).some((m) => m.type === 'stop'));
  });

  it('says when the raw settings win, and disables the choices they override', async () => {
    const { chat } = fixture;
    const { page } = chat;
    await chat.send(initMessage([]));
    await chat.send(options({ providerSetting: true, pluginsSetting: true }));
    await page.getByRole('button', { name: 'Routing and tools' }).click();
    const notes = await page.locator('.option-note').allTextContents();
    assert.ok(notes.some((n) => n.includes('gateway.chat.provider')));
    assert.ok(notes.some((n) => n.includes('gateway.chat.plugins')));
    assert.strictEqual(await page.getByLabel('Deny data collection').isDisabled(), true);
    assert.strictEqual(await page.getByLabel('Web search').isDisabled(), true);
  });

  it("gateway text stays inert: provider names, efforts and the model's name are never markup", async () => {
    const { chat } = fixture;
    const { page } = chat;
    const hostile = '<img src=x onerror="window.__pwned=1">';
    await chat.send(initMessage([userTurn('q'), assistantTurn('a', { provider: hostile })]));
    await chat.send(options({ model: `evil/${hostile}`, providers: [hostile], efforts: ['high'] }));
    await page.getByRole('button', { name: 'Routing and tools' }).click();
    assert.strictEqual(await page.locator('img').count(), 0);
    assert.strictEqual(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      undefined,
    );
    const footer = await page.locator('.turn-assistant .turn-facts').textContent();
    assert.match(footer ?? '', /served by <img src=x/);
    assert.match(
      (await page.locator('.model-options legend').first().textContent()) ?? '',
      /Routing for evil\/<img/,
    );
  });
});
