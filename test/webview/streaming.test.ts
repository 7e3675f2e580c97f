import * as assert from 'assert';
import type { Turn } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

/** highlight.js in Node, typed here: its own types would bring the DOM's into the test build. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hljs = require('highlight.js') as {
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
};

/** Markdown touching every construct the incremental renderer splits between. */
const REPLY = [
  '# Plan',
  '',
  'First paragraph with `inline code`, a [link](https://example.com/a) and',
  'a second line of the same paragraph.',
  '',
  '1. one',
  '2. two',
  '',
  '3. three (after a blank line: the list is loose)',
  '',
  '- bullet with a nested fence:',
  '',
  '  ```python',
  '  def f(x):',
  '',
  '      return x * 2',
  '  ```',
  '',
  '```ts',
  'export function add(a: number, b: number): number {',
  '',
  '  return a + b;',
  '}',
  '```',
  'Text right after the fence.',
  '',
  '> a quote',
  '> over two lines',
  '',
  '| col | n |',
  '|-----|--:|',
  '| a   | 1 |',
  '| b   | 2 |',
  '',
  'Setext heading',
  '--------------',
  '',
  '#hashtag is not a heading',
  '',
  'Last line without a newline',
].join('\n');

describe('chat webview: streaming replies', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  /** The reply's rendered blocks, whatever pages they were grouped into. */
  async function replyHtml(turnId: string): Promise<string> {
    const pages = await fixture.chat.page
      .locator(`[data-turn-id="${turnId}"] .reply .md-page`)
      .evaluateAll((elements) =>
        elements.map((element) => (element as unknown as { innerHTML: string }).innerHTML),
      );
    return pages.join('');
  }

  it('renders a streamed reply exactly like the same reply rendered at once', async () => {
    const { chat } = fixture;
    const once = assistantTurn(REPLY);
    await chat.send(initMessage([userTurn('plan?'), once]));

    const streamed = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn: streamed });
    // Odd-sized deltas cut through lines, fences and markers at every possible place.
    await chat.streamText(streamed.id, REPLY, { charsPerDelta: 7, deltasPerFrame: 3 });
    await chat.send({ type: 'turnUpdated', turn: { ...streamed, content: REPLY, status: 'complete' } });
    await chat.nextFrames();

    assert.strictEqual(await replyHtml(streamed.id), await replyHtml(once.id));
    const reply = chat.page.locator(`[data-turn-id="${streamed.id}"] .reply`);
    assert.strictEqual(await reply.locator('h1').textContent(), 'Plan');
    assert.strictEqual(await reply.locator('table td').count(), 4);
    assert.strictEqual(await reply.locator('code.hljs').count(), 2);
    assert.strictEqual(await reply.locator('.md-live').innerHTML(), '');
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('renders a reply that arrives faster than a frame can render exactly like it rendered at once', async () => {
    const { chat } = fixture;
    // Far more than one frame's rendering budget per delta: most of it is rendered after frames,
    // in tasks of its own, in pieces that start and end anywhere.
    const long = Array.from({ length: 60 }, (_, index) => `## Part ${index}\n\n${REPLY}\n`).join('\n');
    const once = assistantTurn(long);
    await chat.send(initMessage([userTurn('plan?'), once]));

    const streamed = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn: streamed });
    await chat.streamText(streamed.id, long, { charsPerDelta: 16 * 1024 + 5, deltasPerFrame: 1 });
    await chat.send({ type: 'turnUpdated', turn: { ...streamed, content: long, status: 'complete' } });
    await chat.nextFrames();

    assert.strictEqual(await replyHtml(streamed.id), await replyHtml(once.id));
    const reply = chat.page.locator(`[data-turn-id="${streamed.id}"]`);
    assert.strictEqual(await reply.locator('.reply h1').count(), 60);
    assert.strictEqual(await reply.getAttribute('data-render-pending'), null);
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('shows the streaming state, then usage and cost when complete', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('hi')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    const article = chat.page.locator(`[data-turn-id="${turn.id}"]`);
    assert.strictEqual(await article.locator('.codicon-loading.codicon-modifier-spin').count(), 1);
    assert.strictEqual(await article.getAttribute('aria-busy'), 'true');

    await chat.send({ type: 'turnDelta', id: turn.id, content: 'Hello ' });
    await chat.send({ type: 'turnDelta', id: turn.id, content: 'world' });
    await chat.nextFrames();
    assert.strictEqual((await article.locator('.reply').textContent())?.trim(), 'Hello world');

    const usage = { promptTokens: 1200, completionTokens: 34, reasoningTokens: 5, cost: 0.00123 };
    await chat.send({
      type: 'turnUpdated',
      turn: { ...turn, content: 'Hello world', status: 'complete', usage },
    });
    await chat.nextFrames();
    const footer = (await article.locator('.turn-footer').textContent()) ?? '';
    assert.match(footer, /openai\/gpt-4o-mini · 1,200 in · 34 out · 5 reasoning · \$0\.0012/);
    assert.strictEqual(await article.locator('.codicon-loading').count(), 0);
    await article.getByRole('button', { name: 'Copy reply' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'copy', text: 'Hello world' });
  });

  it('highlights a code block only once its fence is closed; its buttons post copy, insert and open', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('code?')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    const block = chat.page.locator(`[data-turn-id="${turn.id}"] .code-block`);

    await chat.send({
      type: 'turnDelta',
      id: turn.id,
      content: 'Here:\n\n```ts\nconst answer: number = 42;\n',
    });
    await chat.nextFrames();
    assert.strictEqual(
      await block.locator('pre.code-open code').textContent(),
      'const answer: number = 42;\n',
    );
    assert.strictEqual(await block.locator('[class^="hljs-"]').count(), 0, 'open fence stays plain');

    await chat.send({ type: 'turnDelta', id: turn.id, content: '```\n' });
    await chat.nextFrames();
    assert.ok((await block.locator('.hljs-keyword').count()) > 0, 'closed fence is highlighted');
    assert.strictEqual(await block.locator('.code-language').textContent(), 'ts');

    await chat.send({ type: 'turnDelta', id: turn.id, content: '\nDone.' });
    await chat.send({
      type: 'turnUpdated',
      turn: {
        ...turn,
        status: 'complete',
        content: 'Here:\n\n```ts\nconst answer: number = 42;\n```\n\nDone.',
      },
    });
    await chat.nextFrames();
    await chat.clearPosted();
    await block.getByRole('button', { name: 'Copy code' }).click();
    await block.getByRole('button', { name: 'Insert at cursor' }).click();
    await block.getByRole('button', { name: 'Open in new editor' }).click();
    const code = 'const answer: number = 42;';
    assert.deepStrictEqual(await chat.posted(), [
      { type: 'copy', text: code },
      { type: 'insertCode', code },
      { type: 'openCode', code, language: 'ts' },
    ]);
  });

  it('colours the first block of a language as it renders, once the panel has warmed up', async () => {
    const { chat } = fixture;
    // Grammars compile in idle time after the panel paints, not in a streamed reply's frames.
    await chat.page.waitForSelector('body[data-renderer-ready]', { state: 'attached' });
    await chat.send(initMessage([userTurn('code?')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    // Records whether any code element ever waited for its colours.
    await chat.page.evaluate(() => {
      const page = globalThis as unknown as {
        document: unknown;
        MutationObserver: new (callback: (records: Array<{ addedNodes: ArrayLike<unknown> }>) => void) => {
          observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
        };
        sawPending?: boolean;
      };
      type Node = { matches?(css: string): boolean; querySelector?(css: string): unknown };
      page.sawPending = false;
      new page.MutationObserver((records) => {
        for (const record of records)
          for (const node of Array.from(record.addedNodes) as Node[])
            if (node.matches?.('.hl-pending') || node.querySelector?.('.hl-pending')) page.sawPending = true;
      }).observe(page.document, { childList: true, subtree: true });
    });
    await chat.send({
      type: 'turnDelta',
      id: turn.id,
      content: 'Here:\n\n```kotlin\nfun answer(): Int = 42\n```\n\nDone',
    });
    const block = chat.page.locator(`[data-turn-id="${turn.id}"] .code-block`);
    assert.ok((await block.locator('.hljs-keyword').count()) > 0, 'the block is coloured');
    const sawPending = await chat.page.evaluate(
      () => (globalThis as unknown as { sawPending?: boolean }).sawPending,
    );
    assert.strictEqual(sawPending, false, 'no block waited for its grammar to compile');
  });

  it('highlights an unterminated fence when the turn completes', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('code?')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    await chat.send({ type: 'turnDelta', id: turn.id, content: '```python\nprint("hi")\n' });
    await chat.nextFrames();
    const code = chat.page.locator(`[data-turn-id="${turn.id}"] pre code`);
    assert.strictEqual(await code.locator('[class^="hljs-"]').count(), 0);
    await chat.send({
      type: 'turnUpdated',
      turn: { ...turn, status: 'stopped', content: '```python\nprint("hi")\n' },
    });
    await chat.nextFrames();
    assert.ok((await code.locator('[class^="hljs-"]').count()) > 0);
  });

  it('colours long code later with the same nodes highlight.js renders as HTML', async () => {
    const { chat } = fixture;
    // Long enough to be coloured later, in idle time (over HIGHLIGHT_NOW_CHARS, one piece);
    // embedded languages and tiered scopes ("title.class") included.
    const blocks: Array<[string, string]> = [
      [
        'typescript',
        'export class Loader<T> extends Base {\n  /** docs */\n  load(id: string): T { return this.map.get(id) as T; }\n}\n',
      ],
      [
        'html',
        '<div class="a">&amp; <b>x</b></div>\n<script>const x = "</div>" + 1;</script>\n<style>p { color: red; }</style>\n',
      ],
      [
        'python',
        'class Parser(Base):\n    def parse(self, text: str) -> list[str]:\n        return [t for t in text.split("\\n") if t]  # <b>\n',
      ],
    ];
    const codes = blocks.map(([language, unit]) => ({
      language,
      code: unit.repeat(Math.ceil(2500 / unit.length)),
    }));
    const content = codes.map(({ language, code }) => `\`\`\`${language}\n${code}\`\`\``).join('\n\n');
    await chat.send(initMessage([userTurn('code')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    await chat.send({ type: 'turnUpdated', turn: { ...turn, status: 'complete', content } });
    const reply = `[data-turn-id="${turn.id}"]`;
    await chat.waitForCount(`${reply} pre code.hljs`, codes.length);
    await chat.page.waitForSelector(`${reply} .hl-pending`, { state: 'detached' });
    const shown = await chat.page
      .locator(`${reply} pre code`)
      .evaluateAll((elements) =>
        elements.map((element) => (element as unknown as { innerHTML: string }).innerHTML),
      );
    for (const [index, { language, code }] of codes.entries()) {
      const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
      // The page's own serialization of that HTML, to compare like with like.
      const expected = await chat.page.evaluate((markup) => {
        type Element = { innerHTML: string };
        const template = (
          globalThis as unknown as { document: { createElement(tag: string): Element } }
        ).document.createElement('template');
        template.innerHTML = markup;
        return template.innerHTML;
      }, html);
      assert.ok(html.includes('<span class="hljs-'), `${language} is coloured`);
      assert.strictEqual(shown[index], expected, language);
    }
  });

  it('shows reasoning open while it streams alone, folded once the answer starts', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('think')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    await chat.send({ type: 'turnDelta', id: turn.id, reasoning: 'Let me **think** about it.' });
    await chat.nextFrames();
    const details = chat.page.locator(`[data-turn-id="${turn.id}"] details.reasoning`);
    assert.strictEqual(await details.getAttribute('open'), '');
    assert.match((await details.locator('summary').textContent()) ?? '', /Thinking/);
    assert.strictEqual(await details.locator('strong').textContent(), 'think');

    await chat.send({ type: 'turnDelta', id: turn.id, content: 'The answer.' });
    await chat.nextFrames();
    assert.strictEqual(await details.getAttribute('open'), null);
    assert.match((await details.locator('summary').textContent()) ?? '', /Reasoning/);

    await chat.send(initMessage([userTurn('x'), assistantTurn('answer', { reasoning: 'hidden thoughts' })]));
    assert.strictEqual(
      await chat.page.locator('details.reasoning').getAttribute('open'),
      null,
      'collapsed when loaded',
    );
  });

  it('shows tool calls with pretty JSON arguments and citations as links', async () => {
    const { chat } = fixture;
    const turn = assistantTurn('Checked.', {
      toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris","days":2}' }],
      citations: [{ url: 'https://example.com/source', title: 'A source' }, { url: 'javascript:alert(1)' }],
    });
    await chat.send(initMessage([userTurn('weather?'), turn]));
    const call = chat.page.locator('.tool-call');
    assert.strictEqual(await call.locator('.tool-call-name').textContent(), 'get_weather');
    assert.strictEqual(await call.locator('pre').textContent(), '{\n  "city": "Paris",\n  "days": 2\n}');
    const links = chat.page.locator('.citations a');
    assert.strictEqual(await links.count(), 1, 'unsafe citation dropped');
    await links.click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'openLink',
      href: 'https://example.com/source',
    });
  });

  it('offers the error actions, posts them with the turn id, and shows retryAfter', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('q')]));
    const turn = assistantTurn('', {
      status: 'error',
      error: {
        message: 'Rate limited by the gateway',
        status: 429,
        retryAfter: 12,
        actions: ['setApiKey', 'retry', 'openSettings', 'selectModel'],
      },
    });
    await chat.send({ type: 'turnAdded', turn });
    const box = chat.page.locator('.turn-error');
    assert.match((await box.textContent()) ?? '', /Rate limited by the gateway/);
    assert.match((await box.locator('.error-retry-after').textContent()) ?? '', /Try again in 1[12] s/);
    await chat.clearPosted();
    for (const name of ['Set API Key', 'Retry', 'Open Settings', 'Select Model'])
      await box.getByRole('button', { name }).click();
    assert.deepStrictEqual(await chat.posted(), [
      { type: 'setApiKey' },
      { type: 'retry', turnId: turn.id },
      { type: 'openSettings' },
      { type: 'selectModel' },
    ]);
  });

  it('offers Retry on a stopped turn', async () => {
    const { chat } = fixture;
    const turn = assistantTurn('Partial ans', { status: 'stopped' });
    await chat.send(initMessage([userTurn('q'), turn]));
    assert.match((await chat.page.locator('.turn-footer').textContent()) ?? '', /Stopped/);
    await chat.page.getByRole('button', { name: 'Retry' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'retry', turnId: turn.id });
  });

  it('removes turns and replaces diverging text on update', async () => {
    const { chat } = fixture;
    const first = userTurn('one');
    const reply = assistantTurn('first version');
    await chat.send(initMessage([first, reply]));
    await chat.send({ type: 'turnUpdated', turn: { ...reply, content: 'second *version*' } });
    await chat.nextFrames();
    assert.strictEqual((await chat.page.locator('.reply').textContent())?.trim(), 'second version');
    await chat.send({ type: 'turnsRemoved', ids: [reply.id, first.id] });
    assert.strictEqual(await chat.page.locator('.turn').count(), 0);
    assert.ok(await chat.page.locator('.welcome').isVisible());
  });

  it('follows a streaming reply while at the bottom, and stops once the user scrolls up', async () => {
    const { chat } = fixture;
    const { page } = chat;
    await chat.send(initMessage([userTurn('long answer please')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    const paragraph = (index: number): string =>
      `Paragraph ${index} of a long answer, long enough to wrap once or twice.\n\n`;
    const paragraphs = (from: number, count: number): string =>
      Array.from({ length: count }, (_, index) => paragraph(from + index)).join('');
    const distanceFromBottom = () =>
      page.locator('.transcript').evaluate((element) => {
        const box = element as unknown as { scrollHeight: number; scrollTop: number; clientHeight: number };
        return box.scrollHeight - box.scrollTop - box.clientHeight;
      });
    const jumpButton = page.getByRole('button', { name: 'Scroll to the latest message' });

    await chat.streamText(turn.id, paragraphs(0, 60));
    await chat.nextFrames();
    assert.ok((await distanceFromBottom()) <= 24, 'pinned to the bottom while streaming');

    await page.locator('.transcript').hover();
    await page.mouse.wheel(0, -800);
    await chat.nextFrames(3);
    const away = await distanceFromBottom();
    assert.ok(away > 24, 'scrolled up');
    await chat.streamText(turn.id, paragraphs(60, 30));
    await chat.nextFrames();
    assert.ok((await distanceFromBottom()) > away, 'left where the user scrolled to while the reply grows');
    assert.ok(await jumpButton.isVisible());

    await jumpButton.click();
    await chat.streamText(turn.id, paragraphs(90, 10));
    await chat.nextFrames();
    assert.ok((await distanceFromBottom()) <= 24, 'following again');
    assert.strictEqual(await jumpButton.isVisible(), false);
  });

  it('opens a 1,000-turn conversation without freezing, newest turns first, and renders only what is near', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turns: Turn[] = [];
    for (let index = 0; index < 500; index++) {
      turns.push(userTurn(`Question ${index}`, `u${index}`));
      turns.push({
        ...assistantTurn(`Answer **${index}**\n\n\`\`\`js\nconsole.log(${index});\n\`\`\`\n`, {
          // Every tenth reply came from the agent: a step with a finished tool card.
          steps:
            index % 10 === 0
              ? [
                  {
                    content: 'Reading the file.',
                    calls: [
                      {
                        id: `call${index}`,
                        name: 'readFile',
                        arguments: '{"path":"src/a.ts"}',
                        state: 'done',
                        source: 'Gateway',
                      },
                    ],
                  },
                ]
              : undefined,
        }),
        id: `a${index}`,
      });
    }
    // A click made in the first task after the conversation arrives, inside the page: the page
    // did not freeze until the whole list was built if the click is handled while older turns are
    // still missing. (Timing a click from outside measured the machine's load, not the page.)
    const builtAtClick = await page.evaluate((init) => {
      const page = globalThis as unknown as {
        postMessage(message: unknown, origin: string): void;
        addEventListener(type: 'message', listener: () => void): void;
        removeEventListener(type: 'message', listener: () => void): void;
        setTimeout(callback: () => void, ms: number): number;
        document: {
          querySelectorAll(selector: string): { length: number };
          querySelector(selector: string): { click(): void } | null;
        };
      };
      return new Promise<number>((resolve) => {
        const handled = () => {
          page.removeEventListener('message', handled);
          page.setTimeout(() => {
            const built = page.document.querySelectorAll('.turn').length;
            page.document.querySelector('button[aria-label="New Chat"]')?.click();
            resolve(built);
          }, 0);
        };
        page.addEventListener('message', handled);
        page.postMessage(init, '*');
      });
    }, initMessage(turns));
    await chat.waitForPosted('newChat');
    assert.ok(builtAtClick < 1000, `the click waited until all ${builtAtClick} turns were built`);
    assert.ok(builtAtClick >= 2, 'the newest turns are there at once');
    assert.ok(await page.locator('[data-turn-id="a499"]').isVisible(), 'the newest turn is on screen');
    await chat.nextFrames();
    await page.waitForSelector('.transcript[aria-busy="false"]');
    const counts = () =>
      page.evaluate(() => {
        const doc = (
          globalThis as unknown as { document: { querySelectorAll(css: string): { length: number } } }
        ).document;
        return {
          rendered: doc.querySelectorAll('.turn-list > .turn').length,
          placeholders: doc.querySelectorAll('.turn-list > .turn-placeholder').length,
        };
      });
    const opened = await counts();
    assert.strictEqual(opened.rendered + opened.placeholders, 1000, 'every turn keeps its place');
    assert.ok(opened.rendered < 200, `only the turns near the end are rendered (${opened.rendered})`);

    // The user goes to the top: the oldest turns render there, in order, with their text.
    await page.locator('.transcript').focus();
    await page.keyboard.press('Home');
    const oldest = page.locator('[data-turn-id="u0"]');
    await oldest.waitFor();
    await page.waitForSelector('.transcript[aria-busy="false"]');
    assert.ok(await oldest.isVisible(), 'the oldest turn is on screen');
    assert.match((await oldest.textContent()) ?? '', /Question 0/);
    assert.match((await page.locator('[data-turn-id="a0"]').textContent()) ?? '', /Answer 0/);
    assert.strictEqual(await page.locator('[data-turn-id="a0"] .tool-card').count(), 1, 'its tool card too');
    const firstTwo = await page
      .locator('.turn')
      .evaluateAll((elements) =>
        elements
          .slice(0, 2)
          .map((element) =>
            (element as unknown as { getAttribute(name: string): string | null }).getAttribute(
              'data-turn-id',
            ),
          ),
      );
    assert.deepStrictEqual(firstTwo, ['u0', 'a0'], 'older turns are in order above');
    const atTop = await counts();
    assert.strictEqual(atTop.rendered + atTop.placeholders, 1000);
    assert.ok(
      atTop.rendered < 200,
      `turns far from the viewport went back to placeholders (${atTop.rendered})`,
    );

    // And back to the end, where the newest turn is shown again.
    await page.keyboard.press('End');
    const newest = page.locator('[data-turn-id="a499"]');
    await newest.waitFor();
    await page.waitForSelector('.transcript[aria-busy="false"]');
    await chat.nextFrames();
    assert.ok(await newest.isVisible(), 'the newest turn is on screen again');
  });

  it('a turn updated while far off screen shows its latest text when scrolled to', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turns: Turn[] = [];
    for (let index = 0; index < 150; index++) {
      turns.push(userTurn(`Question ${index}`, `u${index}`));
      turns.push({ ...assistantTurn(`Answer ${index}`), id: `a${index}` });
    }
    await chat.send(initMessage(turns));
    assert.strictEqual(
      await page.locator('[data-turn-id="a0"]').count(),
      0,
      'the oldest reply is not rendered',
    );
    await chat.send({ type: 'turnUpdated', turn: { ...turns[1], content: 'Answer 0, *revised*' } });
    await page.locator('.transcript').focus();
    await page.keyboard.press('Home');
    const oldest = page.locator('[data-turn-id="a0"]');
    await oldest.waitFor();
    await page.waitForSelector('.transcript[aria-busy="false"]');
    assert.strictEqual((await oldest.locator('.reply').textContent())?.trim(), 'Answer 0, revised');
    assert.strictEqual(await page.locator('.font-warmup').count(), 0, 'the font warm-up left nothing behind');
    assert.deepStrictEqual(chat.errors(), []);
  });
});
