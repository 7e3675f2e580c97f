import * as assert from 'assert';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

describe('chat webview: cost and caching in the footer and the header', function () {
  this.timeout(30_000);
  const fixture = useChatPage();
  const footerOf = async (id: string) =>
    (await fixture.chat.page.locator(`[data-turn-id="${id}"] .turn-facts`).textContent()) ?? '';

  it("shows a reply's cached, cache-write and reasoning tokens, its cost and what the cache saved", async () => {
    const { chat } = fixture;
    const cached = assistantTurn('Cached answer', {
      usage: {
        promptTokens: 2400,
        cachedTokens: 2000,
        completionTokens: 40,
        reasoningTokens: 12,
        cost: 0.0031,
        cacheSavings: 0.0054,
      },
    });
    const written = assistantTurn('First answer', {
      usage: {
        promptTokens: 2400,
        cacheWriteTokens: 2000,
        completionTokens: 40,
        cost: 0.0105,
        cacheSavings: -0.0015,
      },
    });
    await chat.send(initMessage([userTurn('q1'), written, userTurn('q2'), cached]));
    await chat.nextFrames();
    assert.strictEqual(
      await footerOf(cached.id),
      'openai/gpt-4o-mini · 2,400 in · 2,000 cached · 40 out · 12 reasoning · $0.0031 · cache saved $0.0054',
    );
    assert.strictEqual(
      await footerOf(written.id),
      'openai/gpt-4o-mini · 2,400 in · 2,000 written to cache · 40 out · $0.0105 · cache write +$0.0015',
    );
    assert.deepStrictEqual(chat.errors(), []);
  });

  it("shows the chat's total cost in the header, and its savings in the meter's tooltip", async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('q'), assistantTurn('a')]));
    await chat.send({
      type: 'context',
      attachments: [],
      usedTokens: 120,
      acceptsImages: true,
      cost: 0.0136,
      saved: 0.0039,
    });
    const meter = chat.page.locator('.context-meter');
    assert.strictEqual(await meter.locator('.context-cost').textContent(), '$0.01');
    assert.match(
      (await meter.getAttribute('title')) ?? '',
      /This chat has cost \$0\.0136\. Prompt caching saved \$0\.0039\./,
    );
  });

  it('says a cost the gateway did not report, never $0, and marks an estimate; a free model is $0', async () => {
    const { chat } = fixture;
    const unreported = assistantTurn('No cost', { usage: { promptTokens: 1200, completionTokens: 34 } });
    const estimated = assistantTurn('Estimated', {
      usage: { promptTokens: 1200, completionTokens: 34, estimatedCost: 0.0042 },
    });
    const free = assistantTurn('Free', { usage: { promptTokens: 1200, completionTokens: 34, cost: 0 } });
    await chat.send(
      initMessage([userTurn('q1'), unreported, userTurn('q2'), estimated, userTurn('q3'), free]),
    );
    await chat.nextFrames();
    assert.strictEqual(
      await footerOf(unreported.id),
      'openai/gpt-4o-mini · 1,200 in · 34 out · cost not reported',
    );
    assert.strictEqual(
      await footerOf(estimated.id),
      'openai/gpt-4o-mini · 1,200 in · 34 out · ~$0.0042 (estimated)',
    );
    assert.strictEqual(await footerOf(free.id), 'openai/gpt-4o-mini · 1,200 in · 34 out · $0');
    const meter = chat.page.locator('.context-meter');
    const context = { type: 'context', attachments: [], usedTokens: 120, acceptsImages: true };
    await chat.send({ ...context, costUnreported: true });
    assert.strictEqual(await meter.locator('.context-cost').textContent(), 'cost not reported');
    assert.match((await meter.getAttribute('title')) ?? '', /reported no cost and the catalog no price/);
    await chat.send({ ...context, cost: 0.0042, costEstimated: true });
    assert.strictEqual(await meter.locator('.context-cost').textContent(), '~$0.0042');
    assert.match((await meter.getAttribute('title')) ?? '', /estimated from tokens × the catalog price/);
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('offers Add Credits beside a 402, which posts addCredits', async () => {
    const { chat } = fixture;
    const failed = assistantTurn('', {
      status: 'error',
      error: {
        message: 'The account has insufficient credits (402).',
        status: 402,
        actions: ['addCredits', 'selectModel', 'retry'],
      },
    });
    await chat.send(initMessage([userTurn('costly'), failed]));
    await chat.page.getByRole('button', { name: 'Add Credits' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'addCredits' });
  });
});
