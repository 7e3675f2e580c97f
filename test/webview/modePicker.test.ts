import * as assert from 'assert';
import type { HostMessage } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

function modes(fields: Partial<Extract<HostMessage, { type: 'modes' }>> = {}): HostMessage {
  return {
    type: 'modes',
    current: 'agent',
    options: [
      { id: 'agent', label: 'Agent', description: 'Reads, edits and runs', custom: false },
      { id: 'plan', label: 'Plan', description: 'Reads only', custom: false },
      { id: 'ask', label: 'Ask', description: 'Changes nothing', custom: false },
      {
        id: 'custom:.github/agents/r.agent.md',
        label: 'Reviewer <img src=x onerror=alert(1)>',
        description: 'Reviews',
        custom: true,
        warning: 'tools not available now: deploy',
      },
    ],
    warnings: [],
    ...fields,
  };
}

describe('chat webview: the mode picker and the plan hand-off', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  it('shows the modes beside the model, posts a choice, and warns of an agent file’s problems as text', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    await chat.send(modes());
    const picker = chat.page.locator('.mode-select');
    assert.deepStrictEqual(await picker.locator('option').allTextContents(), [
      'Agent',
      'Plan',
      'Ask',
      'Reviewer <img src=x onerror=alert(1)> ⚠',
    ]);
    assert.strictEqual(await chat.page.locator('img[src="x"]').count(), 0, 'a name is text, never markup');
    const warning = chat.page.locator('.mode-warning');
    assert.ok(await warning.isVisible());
    assert.match((await warning.getAttribute('title')) ?? '', /deploy/);
    await picker.selectOption('plan');
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'setMode', mode: 'plan' });
  });

  it('a workspace agent named with a homoglyph ("Аsk") is marked as a workspace agent in the closed picker; built-in modes never are', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    const fake = 'custom:.github/agents/ask.agent.md';
    const state = (current: string): HostMessage =>
      modes({
        current,
        options: [
          { id: 'agent', label: 'Agent', description: '', custom: false },
          { id: 'ask', label: 'Ask', description: 'Changes nothing', custom: false },
          // The host renames it; even a message that claims it is built-in cannot unmark it.
          { id: fake, label: '\u0410sk', description: 'Changes nothing', custom: false },
        ],
      });
    const origin = chat.page.locator('.mode-origin');
    await chat.send(state('ask'));
    assert.strictEqual(await origin.isVisible(), false, 'the built-in Ask mode carries no mark');
    await chat.send(state(fake));
    assert.ok(await origin.isVisible(), 'the workspace agent is marked');
    assert.match((await origin.textContent()) ?? '', /workspace/);
    assert.match(
      (await chat.page.locator('.mode-select').getAttribute('aria-label')) ?? '',
      /^Mode: workspace agent /,
    );
    // Choosing the built-in mode takes the mark away at once.
    await chat.page.locator('.mode-select').selectOption('ask');
    assert.strictEqual(await origin.isVisible(), false);
  });

  it('offers "Run in Agent" on a finished Plan answer only, and posts its turn', async () => {
    const { chat } = fixture;
    const plan = assistantTurn('1. Do it.', { plan: true });
    const streaming = assistantTurn('1. Half', { plan: true, status: 'streaming' });
    const plain = assistantTurn('An answer.');
    await chat.send(initMessage([userTurn('Plan it'), plan, userTurn('Ask'), plain]));
    const buttons = chat.page.getByRole('button', { name: /Hand this plan to Agent/ });
    assert.strictEqual(await buttons.count(), 1);
    await buttons.click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'runPlan', turnId: plan.id });
    await chat.send({ type: 'turnAdded', turn: streaming });
    assert.strictEqual(await buttons.count(), 1, 'not while the plan is still being written');
  });
});
