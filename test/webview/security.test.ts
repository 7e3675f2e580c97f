import * as assert from 'assert';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, startCountingServer, userTurn } from './harness';
import type { CountingServer } from './harness';

/** Every payload, if it ran, would set `window.__pwned` or open a dialog. */
function hostilePayload(trackerOrigin: string): string {
  const tracker = `${trackerOrigin}/img/track.png`;
  return [
    'Ignore the following.',
    '',
    '<script>window.__pwned = "script"</script>',
    '',
    '<img src=x onerror="window.__pwned = \'img\'">',
    '',
    `<img src="${tracker}?raw-html">`,
    '',
    '<a href="javascript:window.__pwned=\'anchor\'">html link</a>',
    '',
    "[markdown link](javascript:window.__pwned='markdown')",
    '',
    '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '',
    '<javascript:alert(1)> and <vbscript:alert(1)>',
    '',
    `![t](${tracker})`,
    '',
    `![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
    '',
    '<iframe src="javascript:alert(1)"></iframe><svg onload="alert(1)"></svg><style>body{display:none}</style>',
    '',
    '<form action="https://example.com"><input name=x></form>',
    '',
    '```html',
    '<script>alert("in a code block")</script>',
    '```',
    '',
    `[tracker as a link](${tracker}?link)`,
  ].join('\n');
}

/** The little of the DOM the scan below uses (this test compiles without the DOM library). */
interface PageElement {
  tagName: string;
  attributes: ArrayLike<{ name: string }>;
  closest(selector: string): unknown;
  matches(selector: string): boolean;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

describe('chat webview: untrusted model output', function () {
  this.timeout(30_000);
  const fixture = useChatPage();
  let tracker: CountingServer;

  before(async () => {
    tracker = await startCountingServer();
  });
  after(async () => {
    await tracker?.close();
  });

  /** How the hostile reply is streamed: in tiny deltas, or behind a long text in 16 KiB ones. */
  const streams = [
    { how: 'streamed or loaded', before: '', charsPerDelta: 5, deltasPerFrame: 4 },
    {
      // Most of it is rendered after frames, in tasks of their own, as a fast network's reads are.
      how: 'arriving faster than it renders',
      before: 'A long answer comes first.\n\n'.repeat(3000),
      charsPerDelta: 16 * 1024,
      deltasPerFrame: 1,
    },
  ];

  for (const { how, before, charsPerDelta, deltasPerFrame } of streams)
    it(`executes nothing and fetches nothing from a hostile reply, ${how}`, async () => {
      const { chat } = fixture;
      const { page } = chat;
      const dialogs: string[] = [];
      const trackerRequests: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('request', (request) => {
        if (request.url().startsWith(tracker.origin)) trackerRequests.push(request.url());
      });

      const payload = hostilePayload(tracker.origin);
      await chat.send(initMessage([userTurn('be evil'), assistantTurn(payload)]));
      const streamed = assistantTurn('', { status: 'streaming' });
      await chat.send({ type: 'turnAdded', turn: streamed });
      const content = before + payload;
      await chat.streamText(streamed.id, content, { charsPerDelta, deltasPerFrame });
      await chat.send({ type: 'turnUpdated', turn: { ...streamed, content, status: 'complete' } });
      await chat.nextFrames(4);

      // Every link the payload produced: clicking them must not run or load anything either. The
      // user scrolls up first, as a reader would: a transcript still pinned to the bottom follows
      // any late change of height (a font, a highlight) back down, away from the link being clicked.
      await page.locator('.transcript').hover();
      await page.mouse.wheel(0, -100_000);
      const anchors = page.locator('.reply a');
      for (let index = 0; index < (await anchors.count()); index++) await anchors.nth(index).click();
      await page.waitForTimeout(300);

      assert.strictEqual(
        await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned),
        undefined,
      );
      assert.deepStrictEqual(dialogs, []);
      assert.deepStrictEqual(trackerRequests, []);
      assert.deepStrictEqual(tracker.requests(), []);

      const dangerous = await page.locator('#app').evaluate((root) => {
        const app = root as unknown as PageElement;
        const found: string[] = [];
        for (const element of Array.from(app.querySelectorAll('*'))) {
          if (
            /^(SCRIPT|IFRAME|STYLE|FORM|INPUT|SVG|OBJECT|EMBED)$/i.test(element.tagName) &&
            // Our own controls (the composer, the model menu's and tool picker's panels) are not model output.
            !element.closest('.composer, .model-options, .tool-picker')
          ) {
            found.push(element.tagName);
          }
          for (const attribute of Array.from(element.attributes)) {
            if (/^on/i.test(attribute.name) || (attribute.name === 'style' && !element.matches('textarea')))
              found.push(`${element.tagName}[${attribute.name}]`);
          }
        }
        for (const image of Array.from(app.querySelectorAll('img')))
          found.push(`img ${image.getAttribute('src')}`);
        for (const link of Array.from(app.querySelectorAll('a[href]'))) {
          if (!/^(https?|mailto):/i.test(link.getAttribute('href') ?? ''))
            found.push(`a ${link.getAttribute('href')}`);
        }
        return found;
      });
      assert.deepStrictEqual(dangerous, []);

      const text = (await page.locator('.reply').first().textContent()) ?? '';
      assert.ok(text.includes('<script>window.__pwned = "script"</script>'), 'raw HTML is shown as text');
      assert.ok(
        text.includes(`[image: t] ${tracker.origin}/img/track.png`),
        'remote image shown as a placeholder',
      );

      // Only http(s) links reached the host, for it to check again and open outside the webview.
      const opened = (await chat.posted()).filter((message) => message.type === 'openLink');
      assert.ok(opened.length > 0);
      for (const message of opened)
        assert.match(message.type === 'openLink' ? message.href : '', /^https?:\/\//);
      // A CSP report here would mean the page tried to load or run something; there must be none.
      assert.deepStrictEqual(chat.errors(), []);
    });

  it('shows inline data: images, which load nothing remote', async () => {
    const { chat } = fixture;
    const pixel =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    await chat.send(initMessage([userTurn('draw'), assistantTurn(`![dot](${pixel})`)]));
    assert.strictEqual(await chat.page.locator('.reply img').getAttribute('src'), pixel);
  });

  it('posts openLink for a clicked link and never navigates the webview', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const startUrl = page.url();
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    await chat.send(
      initMessage([
        userTurn('links'),
        assistantTurn(
          'See [the docs](https://example.com/docs?q=1), https://example.org/auto and [mail](mailto:someone@example.com).',
        ),
      ]),
    );
    await page.getByRole('link', { name: 'the docs' }).click();
    await page.getByRole('link', { name: 'https://example.org/auto' }).click();
    await page.getByRole('link', { name: 'mail' }).click({ modifiers: ['Control'] });
    await page.getByRole('link', { name: 'the docs' }).click({ button: 'middle' });
    await page.waitForTimeout(200);

    const opened = (await chat.posted()).filter((message) => message.type === 'openLink');
    assert.deepStrictEqual(opened, [
      { type: 'openLink', href: 'https://example.com/docs?q=1' },
      { type: 'openLink', href: 'https://example.org/auto' },
      { type: 'openLink', href: 'mailto:someone@example.com' },
    ]);
    assert.strictEqual(page.url(), startUrl);
    assert.deepStrictEqual(navigations, []);
    assert.strictEqual(page.context().pages().length, 1, 'no window opened');
  });

  it('links only URLs with a scheme, not file names', async () => {
    const { chat } = fixture;
    const text = 'Edit main.py and setup.sh, see https://example.com/x, not ftp://example.com/y.';
    await chat.send(initMessage([userTurn('files'), assistantTurn(text)]));
    const links = await chat.page.locator('.reply a').allTextContents();
    assert.deepStrictEqual(links, ['https://example.com/x']);
  });
});
