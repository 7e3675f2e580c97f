import * as assert from 'assert';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

describe('chat webview: page, header and welcome', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  it('posts ready once loaded, and nothing else', async () => {
    assert.deepStrictEqual(await fixture.chat.posted(), [{ type: 'ready' }]);
    assert.deepStrictEqual(fixture.chat.errors(), []);
  });

  it('has a CSP meta tag whose script nonce matches the only script', async () => {
    const { page } = fixture.chat;
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.ok(csp, 'CSP meta tag');
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!127\.0\.0\.1)/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, 'script nonce in the CSP');
    const scripts = await page.locator('script').evaluateAll((elements) =>
      elements.map((element) => {
        const script = element as unknown as { nonce: string; getAttribute(name: string): string | null };
        return { nonce: script.nonce, src: script.getAttribute('src') };
      }),
    );
    assert.deepStrictEqual(scripts, [{ nonce, src: `${fixture.chat.origin}/dist/webview.js` }]);
  });

  it('renders the turns of init: user text verbatim, assistant Markdown', async () => {
    const { chat } = fixture;
    await chat.send(
      initMessage([
        userTurn('Hi <b>there</b>\n  *not markdown*'),
        assistantTurn('## Answer\n\nSome **bold** words.'),
      ]),
    );
    const user = chat.page.locator('.turn-user .user-text');
    assert.strictEqual(await user.textContent(), 'Hi <b>there</b>\n  *not markdown*');
    assert.strictEqual(await chat.page.locator('.turn-user b').count(), 0);
    assert.strictEqual(await chat.page.locator('.turn-assistant h2').textContent(), 'Answer');
    assert.strictEqual(await chat.page.locator('.turn-assistant strong').textContent(), 'bold');
    assert.strictEqual(await chat.page.locator('.model-name').textContent(), 'openai/gpt-4o-mini');
  });

  it('ignores malformed and unknown messages', async () => {
    const { chat } = fixture;
    for (const junk of [null, 42, 'init', { type: 'explode' }, { nothing: true }, [1, 2]])
      await chat.send(junk);
    await chat.send(initMessage([userTurn('still alive')]));
    assert.strictEqual(await chat.page.locator('.user-text').textContent(), 'still alive');
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('without an API key, explains the gateway and offers Set API Key', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([], { hasApiKey: false }));
    const welcome = chat.page.locator('.welcome');
    assert.match((await welcome.textContent()) ?? '', /gateway/i);
    await chat.page.getByRole('button', { name: 'Set API Key' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'setApiKey' });

    await chat.send({ type: 'apiKey', hasApiKey: true });
    assert.strictEqual(await chat.page.getByRole('button', { name: 'Set API Key' }).count(), 0);
    assert.match((await welcome.textContent()) ?? '', /Explain Selection/);
  });

  it('header buttons post selectModel, newChat and exportConversation', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('q'), assistantTurn('a')]));
    await chat.send({ type: 'model', model: 'anthropic/claude-sonnet-4' });
    const modelButton = chat.page.locator('.model-button');
    assert.strictEqual(await modelButton.locator('.model-name').textContent(), 'anthropic/claude-sonnet-4');
    await modelButton.click();
    await chat.page.getByRole('button', { name: 'New Chat' }).click();
    await chat.page.getByRole('button', { name: 'Export conversation' }).click();
    const types = (await chat.posted()).map((message) => message.type);
    assert.deepStrictEqual(types, ['ready', 'selectModel', 'newChat', 'exportConversation']);
  });

  it('history lists earlier conversations to open or delete', async () => {
    const { chat } = fixture;
    const now = Date.now();
    await chat.send(
      initMessage([], {
        history: [
          { id: 'old', title: 'Older chat', updatedAt: now - 3 * 86_400_000, turnCount: 4 },
          { id: 'conversation-1', title: 'This chat', updatedAt: now, turnCount: 0 },
          { id: 'mid', title: 'Regex help', updatedAt: now - 3_600_000, turnCount: 2 },
        ],
      }),
    );
    const toggle = chat.page.getByRole('button', { name: 'Show earlier conversations' });
    await toggle.click();
    assert.strictEqual(await toggle.getAttribute('aria-expanded'), 'true');
    const titles = await chat.page.locator('.history-item-title').allTextContents();
    assert.deepStrictEqual(titles, ['This chat', 'Regex help', 'Older chat']);
    assert.strictEqual(
      await chat.page.locator('.history-item.is-current .history-item-title').textContent(),
      'This chat',
    );

    // The trash button appears on hover or focus, as in VS Code's lists.
    await chat.page.locator('.history-item', { hasText: 'Regex help' }).hover();
    await chat.page.getByRole('button', { name: 'Delete "Regex help"' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'deleteConversation', id: 'mid' });
    await chat.send({
      type: 'history',
      items: [{ id: 'old', title: 'Older chat', updatedAt: now, turnCount: 4 }],
    });
    assert.deepStrictEqual(await chat.page.locator('.history-item-title').allTextContents(), ['Older chat']);

    await chat.page.locator('.history-open').first().click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'openConversation', id: 'old' });
    assert.strictEqual(
      await chat.page.locator('.history-panel').isVisible(),
      false,
      'closed after opening one',
    );

    await toggle.click();
    await chat.page.keyboard.press('Escape');
    assert.strictEqual(await chat.page.locator('.history-panel').isVisible(), false, 'Escape closes it');
  });
});
