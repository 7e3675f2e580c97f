/**
 * A long reply appears about as fast as the page can show text at all: the time until its last
 * line is on screen is bounded by a ratio to a bare page showing the same bytes as plain text,
 * timed in the same test (see replyTiming.ts), never by an absolute time, so a busy machine slows
 * both sides alike.
 */
import * as assert from 'assert';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';
import { BARE_PAGE, deltasOf, LAST_LINE, postAndWatch } from './replyTiming';

/**
 * Before frame budgets the chat took 13× the bare page or more (one slice of 4 ms a frame); it
 * takes 4 to 9× since, best of three, on a machine loaded 8 processes a core (the chat's side is
 * CPU-bound, the bare page's hardly, so load weighs on the chat's side more). The bound sits
 * between, for a test that holds under such load; the bench holds the goal (2×).
 */
const MAX_RATIO = 12;
const RUNS = 3;

/** About `size` characters of Markdown (headings, paragraphs, lists, code, tables), then LAST_LINE. */
function longMarkdown(size: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < size; index++) {
    const part = [
      `### Part ${index}`,
      '',
      `Paragraph ${index} explains **why** the \`option${index}\` matters, with a [link](https://example.com/${index}).`,
      'It goes on for a second line, as replies do.',
      '',
      `- first point of ${index}`,
      '- second point',
      '',
      '```ts',
      `const value${index} = compute(${index}); // ${'x'.repeat(index % 40)}`,
      `export function part${index}(): number {\n  return value${index} * 2;\n}`,
      '```',
      '',
      '| key | value |',
      '|-----|------:|',
      `| ${index} | ${index * 2} |`,
      '',
      '',
    ].join('\n');
    parts.push(part);
    length += part.length;
  }
  return `${parts.join('')}${LAST_LINE}\n`;
}

describe('chat webview: a long reply appears', function () {
  this.timeout(180_000);
  const fixture = useChatPage();

  it(`shows the last line of a 200 KB reply within ${MAX_RATIO}× the time a bare page shows it as plain text`, async () => {
    const { chat } = fixture;
    // A reply comes after the user typed a prompt: the panel has warmed up its renderer by then.
    await chat.page.waitForSelector('body[data-renderer-ready]', { state: 'attached' });
    const text = longMarkdown(200 * 1024);
    const browser = chat.page.context().browser();
    if (!browser) throw new Error('no browser');
    const chatTimes: number[] = [];
    const bareTimes: number[] = [];
    let lastTurnId = '';
    // Interleaved, and the best of each: a burst of load on the machine falls on one run, not on
    // one side.
    for (let run = 0; run < RUNS; run++) {
      // A window of its own, closed before the chat's run: a second tab in the chat's window
      // would hide the chat's page, and a hidden page gets no animation frames.
      const context = await browser.newContext({ viewport: { width: 420, height: 720 } });
      try {
        const bare = await context.newPage();
        await bare.setContent(BARE_PAGE);
        const plain = await bare.evaluate(postAndWatch, {
          deltas: deltasOf(text),
          id: 'bare',
          kind: 'bare' as const,
          lastLine: LAST_LINE,
        });
        bareTimes.push(plain.fullMs);
      } finally {
        await context.close();
      }

      await chat.send(initMessage([userTurn('Explain every option.')]));
      const turn = assistantTurn('', { status: 'streaming' });
      lastTurnId = turn.id;
      await chat.send({ type: 'turnAdded', turn });
      const markdown = await chat.page.evaluate(postAndWatch, {
        deltas: deltasOf(text),
        final: { type: 'turnUpdated', turn: { ...turn, content: text, status: 'complete' } },
        id: turn.id,
        kind: 'chat' as const,
        lastLine: LAST_LINE,
      });
      chatTimes.push(markdown.fullMs);
    }

    const reply = chat.page.locator(`[data-turn-id="${lastTurnId}"] .reply`);
    assert.strictEqual(await reply.locator('.md-stable p').last().textContent(), LAST_LINE);
    assert.strictEqual(await reply.locator('.md-live > *').count(), 0);
    assert.strictEqual(await reply.locator('table').count(), await reply.locator('h3').count());
    const ratio = Math.min(...chatTimes) / Math.min(...bareTimes);
    assert.ok(
      ratio <= MAX_RATIO,
      `the chat took ${chatTimes.map(Math.round).join(', ')} ms, the bare page ${bareTimes.map(Math.round).join(', ')} ms: ${ratio.toFixed(1)}×`,
    );
    assert.deepStrictEqual(chat.errors(), []);
  });
});
