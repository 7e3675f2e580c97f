import * as assert from 'assert';
import type { ConsoleMessage } from 'playwright-core';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';
import type { ChatPage } from './harness';

/** What the page touches in the callbacks below (this file compiles without the DOM library). */
interface PageNumber {
  Number: { prototype: { toLocaleString(this: number, ...args: unknown[]): string } };
}

/** Resolves once the turn has no text left to render and no code left to highlight. */
async function waitUntilRendered(chat: ChatPage, turnId: string): Promise<void> {
  const turn = `[data-turn-id="${turnId}"]`;
  await chat.page.waitForFunction(
    (selector) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
      return (
        !!doc.querySelector(selector) &&
        !doc.querySelector(
          `${selector}[data-render-pending], ${selector} .hl-pending, ${selector} .md-live > *`,
        )
      );
    },
    turn,
    { timeout: 20_000 },
  );
}

function section(index: number): string {
  return [
    `## Part ${index}`,
    '',
    `Paragraph ${index} with **bold**, \`code\` and a [link](https://example.com/${index}).`,
    '',
    '- one',
    '- two',
    '',
    '```ts',
    `export const value${index} = ${index};`,
    'function f(x: number): number {',
    '  return x * 2;',
    '}',
    '```',
    '',
    '| a | b |',
    '|---|---|',
    `| ${index} | x |`,
    '',
    '',
  ].join('\n');
}

function longReply(chars: number): string {
  let text = '';
  for (let index = 0; text.length < chars; index++) text += section(index);
  return text;
}

describe('chat webview: hostile data and long replies', function () {
  this.timeout(60_000);
  const fixture = useChatPage();

  it('a turn that cannot render shows a placeholder with Copy raw; the rest of the chat renders', async () => {
    const { chat } = fixture;
    // Rendering fails for a reason nobody foresaw: here, formatting one particular token count.
    await chat.page.evaluate(() => {
      const proto = (globalThis as unknown as PageNumber).Number.prototype;
      const original = Object.getOwnPropertyDescriptor(proto, 'toLocaleString')?.value as (
        this: number,
        ...args: unknown[]
      ) => string;
      proto.toLocaleString = function (this: number, ...args: unknown[]) {
        if (Number(this) === 666) throw new Error('injected rendering fault');
        return original.apply(this, args);
      };
    });
    const broken = assistantTurn('The **raw** reply text', { usage: { promptTokens: 666 } });
    const later = assistantTurn('A later reply renders');
    await chat.send(initMessage([userTurn('first'), broken, userTurn('second'), later]));

    const placeholder = chat.page.locator(`[data-turn-id="${broken.id}"].turn-failed`);
    assert.match((await placeholder.textContent()) ?? '', /could not be shown/);
    assert.strictEqual(
      (await chat.page.locator(`[data-turn-id="${later.id}"] .reply`).textContent())?.trim(),
      'A later reply renders',
    );
    assert.strictEqual(await chat.page.locator('.turn').count(), 4);
    await placeholder.getByRole('button', { name: 'Copy raw text' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'copy', text: 'The **raw** reply text' });
    assert.ok(!chat.errors().some((error) => error.startsWith('pageerror')), chat.errors().join('\n'));
    assert.ok(
      chat.errors().some((error) => /could not be rendered/.test(error)),
      'the failure is reported',
    );

    // An update gives the turn another chance to render.
    await chat.send({ type: 'turnUpdated', turn: { ...broken, usage: { promptTokens: 5 } } });
    assert.strictEqual(await placeholder.count(), 0);
    assert.strictEqual(
      (await chat.page.locator(`[data-turn-id="${broken.id}"] .reply`).textContent())?.trim(),
      'The raw reply text',
    );
  });

  it('drops a malformed message and reports it; odd fields become absent, the turn still renders', async () => {
    const { chat } = fixture;
    const warnings: string[] = [];
    chat.page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await chat.send(initMessage([userTurn('q')]));
    await chat.send({ type: 'turnAdded', turn: { role: 'assistant', content: 'a turn without an id' } });
    await chat.send({ type: 'turnDelta', id: 'nobody', content: 7 });
    assert.strictEqual(await chat.page.locator('.turn').count(), 1, 'nothing half-applied');

    const odd = {
      ...assistantTurn('Still **shown**'),
      status: 'thinking',
      usage: 'a lot',
      citations: { url: 'https://example.com' },
      error: { message: 42, actions: 'retry' },
      toolCalls: [null, { name: 'search', arguments: { q: 1 } }],
    };
    await chat.send({ type: 'turnAdded', turn: odd });
    const article = chat.page.locator(`[data-turn-id="${odd.id}"]`);
    assert.strictEqual((await article.locator('.reply').textContent())?.trim(), 'Still shown');
    assert.strictEqual(
      await article.getAttribute('aria-busy'),
      'false',
      'an unknown status is not streaming',
    );
    assert.strictEqual(await article.locator('.tool-call-name').textContent(), 'search');
    assert.deepStrictEqual(
      chat.errors().filter((error) => error.startsWith('pageerror')),
      [],
    );
    assert.strictEqual(warnings.filter((text) => /dropped a malformed message/.test(text)).length, 2);
    assert.ok(
      warnings.some((text) => /turn\.status/.test(text) && /turn\.usage/.test(text)),
      warnings.join('\n'),
    );
  });

  it('every link says where it really goes: a title from the model never replaces the target', async () => {
    const { chat } = fixture;
    const reply = assistantTurn(
      [
        'See [the docs](https://docs.example.com/a "https://trusted.example.com") and',
        '[https://trusted.example.com](https://evil.example.net/b), <https://auto.example.org/c>,',
        'and [ref][r].',
        '',
        '[r]: https://ref.example.com/d "Official site"',
      ].join('\n'),
      { citations: [{ url: 'https://evil.example.net/c', title: 'https://trusted.example.com' }] },
    );
    await chat.send(initMessage([userTurn('links?'), reply]));
    const links = await chat.page.locator(`[data-turn-id="${reply.id}"] a`).evaluateAll((anchors) =>
      anchors.map((anchor) => {
        const element = anchor as unknown as { getAttribute(name: string): string | null };
        return { href: element.getAttribute('href'), title: element.getAttribute('title') };
      }),
    );
    assert.deepStrictEqual(
      links.map((link) => link.href),
      [
        'https://docs.example.com/a',
        'https://evil.example.net/b',
        'https://auto.example.org/c',
        'https://ref.example.com/d',
        'https://evil.example.net/c',
      ],
    );
    for (const link of links) assert.strictEqual(link.title, link.href, JSON.stringify(link));
    assert.match(
      (await chat.page.locator(`[data-turn-id="${reply.id}"] .citations li`).textContent()) ?? '',
      /\(evil\.example\.net\)/,
      'a citation names the host it goes to beside its title',
    );
  });

  it('shows queued prompts above the composer; each can be edited or removed', async () => {
    const { chat } = fixture;
    const queue = chat.page.locator('.queue');
    await chat.send(initMessage([userTurn('q'), assistantTurn('', { status: 'streaming' })]));
    assert.strictEqual(await queue.isVisible(), false);
    await chat.send({
      type: 'queue',
      items: [
        { id: 'q1', text: 'first follow-up' },
        { id: 'q2', text: 'second follow-up' },
      ],
    });
    assert.ok(await queue.isVisible());
    assert.deepStrictEqual(await queue.locator('.queue-text').allTextContents(), [
      'first follow-up',
      'second follow-up',
    ]);

    await queue
      .locator('[data-queued-id="q1"]')
      .getByRole('button', { name: 'Remove queued prompt' })
      .click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'removeQueued', id: 'q1' });

    await queue.locator('[data-queued-id="q2"]').getByRole('button', { name: 'Edit queued prompt' }).click();
    const editor = queue.locator('textarea.queue-edit');
    assert.strictEqual(await editor.inputValue(), 'second follow-up');
    await editor.press('Escape');
    assert.strictEqual(await editor.count(), 0, 'Escape cancels');
    assert.deepStrictEqual(
      (await chat.posted()).at(-1),
      { type: 'removeQueued', id: 'q1' },
      'nothing posted',
    );

    await queue.locator('[data-queued-id="q2"]').getByRole('button', { name: 'Edit queued prompt' }).click();
    await editor.fill('second follow-up, reworded');
    await editor.press('Enter');
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'editQueued',
      id: 'q2',
      text: 'second follow-up, reworded',
    });
    assert.deepStrictEqual(await queue.locator('.queue-text').allTextContents(), [
      'first follow-up',
      'second follow-up, reworded',
    ]);

    await chat.send({ type: 'queue', items: [] });
    assert.strictEqual(await queue.isVisible(), false);
  });

  it('renders a 200 KB reply that arrives in 16 KiB chunks over several frames, exactly as at once', async () => {
    const { chat } = fixture;
    const text = longReply(200 * 1024);
    const once = assistantTurn(text);
    await chat.send(initMessage([userTurn('long?'), once]));
    await waitUntilRendered(chat, once.id);

    const streamed = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn: streamed });
    await chat.send({ type: 'turnDelta', id: streamed.id, content: text.slice(0, 16 * 1024) });
    // The second chunk is much more than one frame's work: the turn says so while it catches up.
    await chat.page.evaluate(
      ({ id, content }) =>
        (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(
          { type: 'turnDelta', id, content },
          '*',
        ),
      { id: streamed.id, content: text.slice(16 * 1024) },
    );
    await chat.page.waitForSelector(`[data-turn-id="${streamed.id}"][data-render-pending]`, {
      state: 'attached',
    });
    await chat.send({ type: 'turnUpdated', turn: { ...streamed, content: text, status: 'complete' } });
    await waitUntilRendered(chat, streamed.id);

    const html = (id: string) => chat.page.locator(`[data-turn-id="${id}"] .reply .md-stable`).innerHTML();
    assert.strictEqual(await html(streamed.id), await html(once.id));
    assert.ok(
      (await chat.page.locator(`[data-turn-id="${streamed.id}"] code.hljs .hljs-keyword`).count()) > 100,
    );
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('Restricted Mode: the panel says what is off and offers to manage trust; trusted, the notice goes', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    const notice = chat.page.locator('.trust-notice');
    assert.strictEqual(await notice.isVisible(), false, 'no notice in a trusted workspace');
    await chat.send({ type: 'workspaceTrust', restricted: true });
    assert.strictEqual(await notice.isVisible(), true);
    const text = (await notice.textContent()) ?? '';
    assert.match(text, /Restricted Mode/);
    assert.match(text, /cannot edit files or run commands/);
    assert.match(text, /MCP servers do not start/);
    assert.match(text, /settings this workspace sets for Gateway AI are ignored/);
    await chat.clearPosted();
    await notice.getByRole('button', { name: 'Manage Workspace Trust' }).click();
    assert.deepStrictEqual(await chat.posted(), [{ type: 'manageTrust' }]);
    // A malformed message changes nothing; trust granted hides it.
    await chat.send({ type: 'workspaceTrust', restricted: 'no' });
    assert.strictEqual(await notice.isVisible(), true);
    await chat.send({ type: 'workspaceTrust', restricted: false });
    assert.strictEqual(await notice.isVisible(), false);
  });
});
