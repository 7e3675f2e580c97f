import * as assert from 'assert';
import type { Turn } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

/** A user turn that carried a selection, a file and an image, as the host sends it. */
function turnWithAttachments(): Turn {
  return {
    ...userTurn('what does this do?', 'user-attached'),
    attachments: [
      { id: 's1', kind: 'selection', name: 'src/app.ts:3-10', text: 'let a = 1', bytes: 9, tokens: 12 },
      { id: 'f1', kind: 'file', name: 'README.md', text: '# hi', bytes: 2300, tokens: 600 },
      {
        id: 'i1',
        kind: 'image',
        name: '<img src=x onerror=alert(1)>.png',
        mimeType: 'image/png',
        file: 'i1.png',
        bytes: 3 * 1024 * 1024,
        tokens: 765,
      },
    ],
  } as Turn;
}

describe('chat webview: context (sent attachments, left-out turns, overflow warning)', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  it('a sent prompt shows the chips of what it carried: kind icon, name and size, as text', async () => {
    const { chat } = fixture;
    // As after a reload: the conversation comes back from history in `init`.
    await chat.send(initMessage([turnWithAttachments(), assistantTurn('It sets a.')]));
    const chips = chat.page.locator('.turn-user .sent-attachments .sent-chip');
    await chips.first().waitFor();
    assert.strictEqual(await chips.count(), 3);
    const texts = await chips.allTextContents();
    assert.deepStrictEqual(texts, [
      'src/app.ts:3-109 B',
      'README.md2 KB',
      '<img src=x onerror=alert(1)>.png3.0 MB',
    ]);
    const icons = await chips.evaluateAll((elements) =>
      elements.map((element) => {
        const chip = element as unknown as { querySelector(s: string): { className: string } | null };
        return chip.querySelector('.codicon')?.className.replace('codicon ', '');
      }),
    );
    assert.deepStrictEqual(icons, ['codicon-code', 'codicon-file', 'codicon-file-media']);
    assert.strictEqual(await chat.page.locator('.turn-user img').count(), 0, 'a name is never markup');
    assert.strictEqual(
      await chips.nth(1).getAttribute('title'),
      'File: README.md, 2 KB',
      'the tooltip says the kind',
    );

    // A prompt that is sent now (turnAdded) shows its chips too.
    await chat.send({ type: 'turnAdded', turn: { ...turnWithAttachments(), id: 'user-live' } });
    await chat.waitForCount('.turn-user .sent-chip', 6);
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('turns left out of requests are marked, and "Include again" asks the host to send them', async () => {
    const { chat } = fixture;
    const first = userTurn('old question', 'u-old');
    const reply = assistantTurn('old answer');
    await chat.send(initMessage([first, reply, userTurn('new question', 'u-new')]));
    assert.strictEqual(await chat.page.locator('.left-out-note').count(), 0);

    await chat.send({ type: 'turnUpdated', turn: { ...first, leftOut: true } });
    await chat.send({ type: 'turnUpdated', turn: { ...reply, leftOut: true } });
    await chat.waitForCount('.turn.is-left-out', 2);
    await chat.waitForCount('.left-out-note', 2);
    assert.match(
      (await chat.page.locator('.left-out-note').first().textContent()) ?? '',
      /Left out of what is sent/,
    );
    await chat.page.locator('.left-out-note button', { hasText: 'Include again' }).first().click();
    assert.deepStrictEqual(await chat.waitForPosted('includeLeftOutTurns'), { type: 'includeLeftOutTurns' });

    await chat.send({ type: 'turnUpdated', turn: first });
    await chat.send({ type: 'turnUpdated', turn: reply });
    await chat.waitForCount('.turn.is-left-out', 0);
  });

  it('warns before a send would overflow and offers "Drop oldest turns" and "New chat"; the prompt stays', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('q'), assistantTurn('a')]));
    const context = {
      type: 'context',
      attachments: [],
      usedTokens: 900,
      contextLength: 1000,
      acceptsImages: true,
    };
    await chat.send(context);
    const warning = chat.page.locator('.context-warning');
    await chat.nextFrames();
    assert.ok(await warning.isHidden(), 'fits: no warning');

    // 800 characters are about 200 tokens: 900 + 200 > 1000.
    const prompt = 'word '.repeat(160);
    await chat.page.locator('textarea.composer-input').fill(prompt);
    await warning.waitFor({ state: 'visible' });
    assert.match(
      (await warning.textContent()) ?? '',
      /overflow the model's context: about 1\.1K of 1\.0K tokens/,
    );
    assert.ok(await chat.page.locator('.context-meter.is-over').isVisible());

    await warning.locator('button', { hasText: 'Drop oldest turns' }).click();
    assert.deepStrictEqual(await chat.waitForPosted('leaveOutOldestTurns'), {
      type: 'leaveOutOldestTurns',
      promptTokens: 200,
    });
    await warning.locator('button', { hasText: 'New chat' }).click();
    await chat.waitForPosted('newChat');
    assert.strictEqual(
      await chat.page.locator('textarea.composer-input').inputValue(),
      prompt,
      'the typed prompt is never dropped',
    );

    // The host left turns out: the meter falls and the warning goes.
    await chat.send({ ...context, usedTokens: 300 });
    await warning.waitFor({ state: 'hidden' });
    // Without a known context length there is nothing to warn about.
    await chat.send({ ...context, usedTokens: 5000, contextLength: undefined });
    await chat.nextFrames();
    assert.ok(await warning.isHidden());
  });
});

describe('chat webview: #file: mentions', function () {
  this.timeout(30_000);
  const fixture = useChatPage();
  const input = () => fixture.chat.page.locator('textarea.composer-input');

  it('asks the host for matching files, offers them, and Enter attaches the chosen one instead of sending', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await input().click();
    await chat.page.keyboard.type('Explain #file:app');
    // Typed slowly (a busy machine), the list also asks for what was typed on the way ('a', 'ap').
    assert.deepStrictEqual(await chat.waitForPosted('findFiles', { query: 'app' }), {
      type: 'findFiles',
      query: 'app',
    });
    const files = [
      { path: 'src/app.ts', uri: 'file:///w/src/app.ts' },
      { path: 'test/<b>app</b>.test.ts', uri: 'file:///w/test/app.test.ts' },
    ];
    // An answer for an older query is ignored.
    await chat.send({ type: 'fileSuggestions', query: 'ap', files });
    await chat.nextFrames();
    assert.ok(await chat.page.locator('.file-mention').isHidden());
    await chat.send({ type: 'fileSuggestions', query: 'app', files });
    const options = chat.page.locator('.file-mention-option');
    await chat.waitForCount('.file-mention-option', 2);
    assert.deepStrictEqual(await options.allTextContents(), ['src/app.ts', 'test/<b>app</b>.test.ts']);
    assert.strictEqual(await chat.page.locator('.file-mention b').count(), 0, 'paths are text');

    await chat.page.keyboard.press('ArrowDown');
    await chat.page.keyboard.press('Enter');
    assert.deepStrictEqual(await chat.waitForPosted('attachUris'), {
      type: 'attachUris',
      uris: ['file:///w/test/app.test.ts'],
    });
    assert.strictEqual(await input().inputValue(), 'Explain ', 'the mention leaves the prompt');
    assert.ok(await chat.page.locator('.file-mention').isHidden());
    assert.strictEqual(
      (await chat.posted()).filter((m) => m.type === 'send').length,
      0,
      'Enter did not send',
    );
  });

  it('Escape closes the list and keeps the text; the next Enter sends', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await input().click();
    await chat.page.keyboard.type('#file:');
    await chat.waitForPosted('findFiles');
    await chat.send({ type: 'fileSuggestions', query: '', files: [{ path: 'a.md', uri: 'file:///w/a.md' }] });
    await chat.waitForCount('.file-mention-option', 1);
    await chat.page.keyboard.press('Escape');
    assert.ok(await chat.page.locator('.file-mention').isHidden());
    assert.strictEqual(await input().inputValue(), '#file:');
    await chat.page.keyboard.press('Enter');
    assert.deepStrictEqual(await chat.waitForPosted('send'), { type: 'send', text: '#file:' });
  });
});
