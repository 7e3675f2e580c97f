import * as assert from 'assert';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

describe('chat webview: composer', function () {
  this.timeout(30_000);
  const fixture = useChatPage();
  const input = () => fixture.chat.page.locator('textarea.composer-input');
  const sendButton = () => fixture.chat.page.locator('button.send-button');

  it('sends on Enter, adds a line on Shift+Enter, and keeps the text until the host shows the turn', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    assert.ok(await sendButton().isDisabled(), 'nothing to send yet');
    await input().click();
    await chat.page.keyboard.type('first line');
    await chat.page.keyboard.press('Shift+Enter');
    await chat.page.keyboard.type('second line');
    assert.strictEqual(await input().inputValue(), 'first line\nsecond line');
    assert.deepStrictEqual(await chat.posted(), [{ type: 'ready' }], 'Shift+Enter does not send');

    await chat.page.keyboard.press('Enter');
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'send', text: 'first line\nsecond line' });
    assert.strictEqual(
      await input().inputValue(),
      'first line\nsecond line',
      'kept until the host accepts it',
    );

    await chat.send({ type: 'turnAdded', turn: userTurn('first line\nsecond line') });
    assert.strictEqual(await input().inputValue(), '');
    assert.deepStrictEqual(await chat.savedState(), { draft: '' });
  });

  it('keeps a refused prompt (no turn comes back) and can send it again', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([], { hasApiKey: false }));
    await input().fill('important question');
    await sendButton().click();
    await chat.send({ type: 'apiKey', hasApiKey: true });
    assert.strictEqual(await input().inputValue(), 'important question');
    await sendButton().click();
    const sends = (await chat.posted()).filter((message) => message.type === 'send');
    assert.strictEqual(sends.length, 2);
  });

  it('does not send on Enter while an input method is composing', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await input().fill('日本');
    await input().dispatchEvent('keydown', {
      key: 'Enter',
      isComposing: true,
      bubbles: true,
      cancelable: true,
    });
    assert.deepStrictEqual(await chat.posted(), [{ type: 'ready' }]);
  });

  it('grows with its content up to a limit', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    const oneLine = (await input().boundingBox())?.height ?? 0;
    await input().fill('line\n'.repeat(4));
    const fewLines = (await input().boundingBox())?.height ?? 0;
    await input().fill('line\n'.repeat(200));
    const many = (await input().boundingBox())?.height ?? 0;
    const viewport = chat.page.viewportSize()?.height ?? 0;
    assert.ok(fewLines > oneLine, `grew from ${oneLine} to ${fewLines}`);
    assert.ok(many <= viewport * 0.4 + 1, `capped at 40% of the view (${many} of ${viewport})`);
  });

  /** The button follows the host's messages on the next frame; wait for it rather than race it. */
  async function waitForLabel(label: string): Promise<void> {
    let seen: string | null = null;
    for (let i = 0; i < 100; i++) {
      seen = await sendButton().getAttribute('aria-label');
      if (seen === label) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.strictEqual(seen, label);
  }

  it('while a reply streams, Enter queues the prompt and a Stop button stands beside Send', async () => {
    const { chat } = fixture;
    const stopButton = chat.page.locator('button.stop-button');
    await chat.send(initMessage([userTurn('q')]));
    assert.strictEqual(await stopButton.isVisible(), false, 'no Stop while nothing streams');
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    assert.ok(await stopButton.isVisible());
    assert.strictEqual(await stopButton.getAttribute('aria-label'), 'Stop (Escape)');
    await input().fill('next question');
    await waitForLabel('Queue (Enter): sent when the reply ends');
    await chat.page.keyboard.press('Enter');
    await stopButton.click();
    await input().press('Escape');
    const types = (await chat.posted()).map((message) => message.type);
    assert.deepStrictEqual(types, ['ready', 'send', 'stop', 'stop'], 'Enter sends (the host queues it)');
    assert.strictEqual(await input().inputValue(), 'next question', 'kept until the host has queued it');

    await chat.send({ type: 'queue', items: [{ id: 'q1', text: 'next question' }] });
    assert.strictEqual(await input().inputValue(), '', 'cleared once queued');

    await chat.send({ type: 'turnUpdated', turn: { ...turn, status: 'stopped' } });
    assert.strictEqual(await stopButton.isVisible(), false);
    await input().fill('x');
    await waitForLabel('Send (Enter)');
  });

  it('edits the last prompt: only that turn offers Edit; sending posts editAndResend', async () => {
    const { chat } = fixture;
    const first = userTurn('first prompt');
    const last = userTurn('last prompt');
    await chat.send(initMessage([first, assistantTurn('a1'), last, assistantTurn('a2')]));
    await input().fill('my unfinished draft');

    const edit = chat.page.locator(`[data-turn-id="${last.id}"] .edit-button`);
    assert.strictEqual(
      await chat.page.locator(`[data-turn-id="${first.id}"] .edit-button`).isVisible(),
      false,
    );
    await chat.page.locator(`[data-turn-id="${last.id}"]`).hover();
    await edit.click();
    assert.strictEqual(await input().inputValue(), 'last prompt');
    assert.ok(await chat.page.locator('.composer-editing').isVisible());

    await chat.page.keyboard.press('Escape');
    assert.strictEqual(await input().inputValue(), 'my unfinished draft', 'Escape restores the draft');
    assert.strictEqual(await chat.page.locator('.composer-editing').isVisible(), false);

    await chat.page.locator(`[data-turn-id="${last.id}"]`).hover();
    await edit.click();
    await input().press('End');
    await chat.page.keyboard.type(', reworded');
    await chat.page.keyboard.press('Enter');
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'editAndResend',
      turnId: last.id,
      text: 'last prompt, reworded',
    });
    assert.deepStrictEqual(
      await chat.savedState(),
      { draft: 'my unfinished draft' },
      'the edited prompt is never saved',
    );

    await chat.send({ type: 'turnsRemoved', ids: [last.id] });
    await chat.send({ type: 'turnAdded', turn: userTurn('last prompt, reworded') });
    assert.strictEqual(
      await input().inputValue(),
      'my unfinished draft',
      'the draft comes back after the edit',
    );
  });

  it('keeps only the draft in webview state and restores it when the view comes back', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('secret conversation content'), assistantTurn('secret reply')]));
    await input().fill('half-typed prompt');
    assert.deepStrictEqual(await chat.savedState(), { draft: 'half-typed prompt' });

    const reopened = await fixture.openAnother({ savedState: await chat.savedState() });
    assert.strictEqual(
      await reopened.page.locator('textarea.composer-input').inputValue(),
      'half-typed prompt',
    );
  });

  it('puts host text in the composer on setComposer and focuses it', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await chat.send({ type: 'setComposer', text: 'Explain this code' });
    assert.strictEqual(await input().inputValue(), 'Explain this code');
    assert.ok(
      await input().evaluate((element) => {
        const node = element as unknown as { ownerDocument: { activeElement: unknown } };
        return node === node.ownerDocument.activeElement;
      }),
    );
  });
});
