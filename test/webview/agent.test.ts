import * as assert from 'assert';
import fc from 'fast-check';
import { NO_COMMANDS_NOTE } from '../../src/core/agent/agentRequest';
import type { AgentProgress, AgentStep, ToolCallRecord } from '../../src/core/agent/types';
import { NO_ALWAYS_NOTE } from '../../src/core/agent/types';
import type { AgentToolSourceView, AgentToolsState } from '../../src/core/protocol/agentProtocol';
import type { HostMessage, Turn } from '../../src/core/protocol/chatProtocol';
import { useChatPage } from './chatPageFixture';
import type { ChatPage } from './harness';
import { assistantTurn, initMessage, userTurn } from './harness';

type AssistantTurn = Extract<Turn, { role: 'assistant' }>;

/** What each payload would do if it ran: set `window.__pwned`, open a dialog, or make a link. */
const HOSTILE = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<a href="javascript:window.__pwned=\'anchor\'">click</a>',
  "[md link](javascript:window.__pwned='markdown')",
  '<button data-action="retry-turn">Allow once</button>',
  '<iframe src="javascript:alert(1)"></iframe><svg onload="alert(1)"></svg>',
].join('\n');

function progress(steps: number, fields: Partial<AgentProgress> = {}): AgentProgress {
  return { steps, promptTokens: 1000 * steps, completionTokens: 100 * steps, ...fields };
}

function call(id: string, fields: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    id,
    name: 'readFile',
    arguments: '{"path":"src/a.ts"}',
    state: 'running',
    source: 'Gateway',
    ...fields,
  };
}

function agentStep(turnId: string, index: number, step: AgentStep, steps = index + 1): HostMessage {
  return { type: 'agentStep', turnId, index, step, progress: progress(steps) };
}

/** The MCP server `everything` as the picker lists it. */
function everything(fields: Partial<AgentToolSourceView> = {}): AgentToolSourceView {
  return {
    id: 'everything',
    kind: 'mcp',
    label: 'everything',
    tools: [],
    enabled: true,
    state: 'off',
    detail: 'npx -y @modelcontextprotocol/server-everything',
    ...fields,
  };
}

function tools(fields: Partial<AgentToolsState> = {}): HostMessage {
  return {
    type: 'agentTools',
    available: true,
    off: false,
    restricted: false,
    sources: [
      { id: 'gateway', kind: 'builtin', label: 'Gateway', tools: ['readFile', 'editFile'], enabled: true },
      everything(),
    ],
    ...fields,
  };
}

/** A streaming agent turn on the page, after one prompt. */
async function startAgentTurn(chat: ChatPage): Promise<AssistantTurn> {
  await chat.send(initMessage([userTurn('Fix the bug in a.ts')]));
  const turn = assistantTurn('', { status: 'streaming', agent: progress(0) });
  await chat.send({ type: 'turnAdded', turn });
  return turn;
}

/** Nothing in the agent's part of the page is an element that model or tool text could make. */
async function dangerousElements(chat: ChatPage): Promise<string[]> {
  return chat.page.locator('#app').evaluate((root) => {
    interface El {
      tagName: string;
      attributes: ArrayLike<{ name: string }>;
      querySelectorAll(selector: string): ArrayLike<El>;
      closest(selector: string): unknown;
    }
    const found: string[] = [];
    for (const element of Array.from(
      (root as unknown as El).querySelectorAll('.agent-steps *, .tool-picker *'),
    )) {
      if (/^(SCRIPT|IFRAME|STYLE|FORM|SVG|IMG|A|OBJECT|EMBED)$/i.test(element.tagName))
        found.push(element.tagName);
      for (const attribute of Array.from(element.attributes))
        if (/^on/i.test(attribute.name)) found.push(`${element.tagName}[${attribute.name}]`);
    }
    return found;
  });
}

const STATES = ['awaitingApproval', 'running', 'done', 'failed', 'denied', 'cancelled'] as const;

/** A step as the host might send it at any moment: calls in any order, states and text. */
const stepArb: fc.Arbitrary<AgentStep> = fc.record({
  content: fc.oneof(fc.constant(''), fc.string({ maxLength: 30 }), fc.constant(HOSTILE)),
  calls: fc.uniqueArray(
    fc.record({
      id: fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5'),
      name: fc.string({ maxLength: 12 }),
      arguments: fc.oneof(fc.string({ maxLength: 40 }), fc.constant(HOSTILE)),
      state: fc.constantFrom(...STATES),
      result: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
      durationMs: fc.option(fc.nat(100_000), { nil: undefined }),
    }),
    { selector: (c) => c.id, maxLength: 5 },
  ),
});

/** What each step on screen shows: its cards' ids and states, in order. */
async function stepsOnScreen(chat: ChatPage, turnId: string): Promise<string[][]> {
  return chat.page.locator(`[data-turn-id="${turnId}"] .agent-step`).evaluateAll((steps) =>
    steps.map((step) =>
      Array.from(
        (
          step as unknown as {
            querySelectorAll(
              s: string,
            ): ArrayLike<{ getAttribute(n: string): string | null; className: string }>;
          }
        ).querySelectorAll('.tool-card'),
      ).map((card) => `${card.getAttribute('data-call-id')}:${/\bis-(\w+)/.exec(card.className)?.[1]}`),
    ),
  );
}

describe('chat webview: agent steps, tool cards, approvals and the tool picker', function () {
  this.timeout(30_000);
  const fixture = useChatPage();

  it('renders a step and its cards from turnUpdated, then updates each card in place from agentStep', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    await chat.streamText(turn.id, 'Let me **read** the file first.');
    const step: AgentStep = {
      content: 'Let me **read** the file first.',
      calls: [
        call('c1', { state: 'running', startedAt: Date.now() }),
        call('c2', { name: 'search', state: 'running' }),
      ],
    };
    await chat.send({
      type: 'turnUpdated',
      turn: { ...turn, content: '', steps: [step], agent: progress(1) },
    });
    const card = page.locator('.tool-card[data-call-id="c1"]');
    assert.strictEqual(await page.locator('.agent-step .step-text strong').textContent(), 'read');
    assert.strictEqual(await page.locator('.tool-card').count(), 2);
    assert.match((await card.locator('.tool-state').textContent()) ?? '', /Running/);
    assert.strictEqual(await card.locator('.tool-source').textContent(), 'Gateway');
    // The text moved into the step: the live answer is empty.
    assert.strictEqual(((await page.locator('.reply').textContent()) ?? '').trim(), '');

    // Mark the card's element: an update in place keeps it.
    await card.evaluate((element) => ((element as unknown as { __marker: number }).__marker = 1));
    const done = {
      ...step,
      calls: [call('c1', { state: 'done', durationMs: 1234, result: 'line 1\nline 2' }), step.calls[1]],
    };
    await chat.send(agentStep(turn.id, 0, done));
    assert.strictEqual(
      await card.evaluate((element) => (element as unknown as { __marker?: number }).__marker),
      1,
    );
    assert.match((await card.locator('.tool-state').textContent()) ?? '', /Done/);
    assert.strictEqual(await card.locator('.tool-duration').textContent(), '1.2 s');
    assert.strictEqual(await card.locator('.tool-output').isVisible(), false, 'the result is folded');
    await card.locator('.tool-result summary').click();
    assert.strictEqual(await card.locator('.tool-output').textContent(), 'line 1\nline 2');
    // Arguments are pretty JSON, as text.
    await card.locator('.tool-args summary').click();
    assert.strictEqual(await card.locator('.tool-arguments').textContent(), '{\n  "path": "src/a.ts"\n}');

    const failed = {
      ...done,
      calls: [done.calls[0], call('c2', { name: 'search', state: 'failed', result: 'Error: bad regex' })],
    };
    await chat.send(agentStep(turn.id, 0, failed));
    assert.ok(
      await page.locator('.tool-card[data-call-id="c2"].is-failed').isVisible(),
      'a failed call stands out',
    );
    // The result the user opened stays open through later updates.
    assert.ok(await card.locator('.tool-output').isVisible());

    // The counter shows the turn's progress while it runs.
    await chat.send({ ...agentStep(turn.id, 0, failed), progress: progress(2, { cost: 0.0123 }) });
    assert.match(
      (await page.locator('.agent-counter').textContent()) ?? '',
      /2 steps · 2,200 tokens · \$0\.0123/,
    );

    // The final answer streams after the steps.
    await chat.streamText(turn.id, 'Fixed.');
    await chat.send({
      type: 'turnUpdated',
      turn: { ...turn, content: 'Fixed.', status: 'complete', steps: [failed], agent: progress(2) },
    });
    assert.strictEqual(((await page.locator('.reply').textContent()) ?? '').trim(), 'Fixed.');
    assert.strictEqual(await page.locator('.tool-card').count(), 2);
    assert.strictEqual(
      await card.evaluate((element) => (element as unknown as { __marker?: number }).__marker),
      1,
    );
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('a card awaiting approval takes no focus while the view does not have it (the user types elsewhere)', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    // As in VS Code when the keyboard is in an editor: this view's document does not have the focus.
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        document: { hasFocus(): boolean; activeElement: unknown };
        focusBefore: unknown;
      };
      g.document.hasFocus = () => false;
      g.focusBefore = g.document.activeElement;
    });
    await chat.send({ type: 'turnUpdated', turn: { ...turn, steps: [] } });
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [
          call('cmd2', {
            name: 'runCommand',
            state: 'awaitingApproval',
            confirmation: { kind: 'command', command: 'npm test', cwd: '/work/project', timeoutSeconds: 120 },
          }),
        ],
      }),
    );
    const card = page.locator('.tool-card[data-call-id="cmd2"]');
    await card.waitFor();
    assert.ok(
      await card.evaluate((element) => {
        const g = globalThis as unknown as { document: { activeElement: unknown }; focusBefore: unknown };
        return g.document.activeElement === g.focusBefore && element !== g.focusBefore;
      }),
      'the focus stayed where it was',
    );
  });

  it('a command awaiting approval shows the exact command and posts each choice for its call', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    const command = 'rm -rf build && npm test -- --grep "a b"';
    const awaiting: AgentStep = {
      content: '',
      calls: [
        call('cmd1', {
          name: 'runCommand',
          state: 'awaitingApproval',
          confirmation: { kind: 'command', command, cwd: '/work/project', timeoutSeconds: 120 },
        }),
      ],
    };
    await chat.send({ type: 'turnUpdated', turn: { ...turn, steps: [] } });
    await chat.send(agentStep(turn.id, 0, awaiting));
    const card = page.locator('.tool-card[data-call-id="cmd1"]');
    assert.strictEqual(await card.locator('.tool-command').textContent(), command);
    assert.match((await card.locator('.tool-confirm').textContent()) ?? '', /\/work\/project/);
    assert.match((await card.locator('.tool-confirm').textContent()) ?? '', /2 min 00 s/);
    // A command is never allowed wholesale: only this exact command line, in this folder.
    assert.strictEqual(await card.getByRole('button', { name: /Always allow this tool/ }).count(), 0);
    assert.deepStrictEqual(await card.locator('.tool-approval-buttons button').allTextContents(), [
      'Allow once',
      'Allow in this chat',
      'Always allow this exact command',
      'Deny…',
      'Deny',
      'Cancel',
    ]);
    // The focus goes to the card (not to a button), so a stray Enter approves nothing.
    assert.ok(
      await card.evaluate((element) => {
        const node = element as unknown as { ownerDocument: { activeElement: unknown } };
        return node === node.ownerDocument.activeElement;
      }),
    );
    await page.keyboard.press('Enter');
    assert.ok(!(await chat.posted()).some((m) => m.type === 'toolDecision'));

    // From the keyboard: Tab to "Allow in this chat" and press it.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focusedName = await page.evaluate(() =>
      (
        globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } } }
      ).document.activeElement.getAttribute('aria-label'),
    );
    assert.strictEqual(focusedName, 'Allow this tool for the rest of this chat');
    await page.keyboard.press('Enter');
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'toolDecision',
      turnId: turn.id,
      callId: 'cmd1',
      choice: 'chat',
    });
    assert.ok(
      await card.getByRole('button', { name: 'Allow this call once' }).isDisabled(),
      'one answer per call',
    );

    // The host moves it on: the buttons go.
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [{ ...awaiting.calls[0], state: 'running', startedAt: Date.now() }],
      }),
    );
    assert.strictEqual(await card.locator('.tool-approval button').count(), 0);

    for (const [name, choice] of [
      ['Allow this call once', 'once'],
      [
        'Always run this exact command line in this folder without asking (Gateway AI: Manage Commands the Agent Runs Without Asking removes it)',
        'command',
      ],
    ] as const) {
      const id = `cmd-${choice}`;
      await chat.send(agentStep(turn.id, 1, { content: '', calls: [{ ...awaiting.calls[0], id }] }, 2));
      await page.locator(`.tool-card[data-call-id="${id}"]`).getByRole('button', { name }).click();
      assert.deepStrictEqual((await chat.posted()).at(-1), {
        type: 'toolDecision',
        turnId: turn.id,
        callId: id,
        choice,
      });
    }
  });

  it('a card offers only the choices the host keeps: no Always allow for a server VS Code runs, only Allow once where asked each time', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    const confirmation = {
      kind: 'tool' as const,
      name: 'echo',
      source: 'VS Code MCP: everything',
      arguments: '{}',
    };
    await chat.send({ type: 'turnUpdated', turn: { ...turn, steps: [] } });
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [
          call('vs1', {
            name: 'echo',
            state: 'awaitingApproval',
            confirmation: { ...confirmation, noAlways: true },
          }),
          call('own1', { name: 'echo', state: 'awaitingApproval', confirmation }),
        ],
      }),
    );
    const buttons = (id: string) =>
      page.locator(`.tool-card[data-call-id="${id}"] .tool-approval-buttons button`).allTextContents();
    assert.deepStrictEqual((await buttons('vs1')).slice(0, 3), ['Allow once', 'Allow in this chat', 'Deny…']);
    await chat.send(
      agentStep(
        turn.id,
        1,
        {
          content: '',
          calls: [
            call('once1', {
              name: 'echo',
              state: 'awaitingApproval',
              confirmation: { ...confirmation, onceOnly: true },
            }),
          ],
        },
        2,
      ),
    );
    assert.deepStrictEqual((await buttons('once1')).slice(0, 2), ['Allow once', 'Deny…']);
    assert.deepStrictEqual((await buttons('own1')).slice(0, 3), [
      'Allow once',
      'Allow in this chat',
      'Always allow this tool',
    ]);
  });

  it('deny opens an optional reason, posts it with the denial, and the card shows it', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    const pending = call('t1', {
      name: 'mcp_fetch',
      state: 'awaitingApproval',
      confirmation: {
        kind: 'tool',
        name: 'fetch',
        source: 'everything',
        arguments: '{\n  "url": "https://x"\n}',
      },
    });
    await chat.send(agentStep(turn.id, 0, { content: '', calls: [pending] }));
    const card = page.locator('.tool-card[data-call-id="t1"]');
    assert.strictEqual(
      await card.locator('.tool-confirm .tool-arguments').textContent(),
      '{\n  "url": "https://x"\n}',
    );
    await card.getByRole('button', { name: 'Deny this call' }).click();
    const reason = card.getByLabel('Reason (optional)');
    assert.ok(await reason.isVisible());
    // Escape goes back to the choices; it does not stop the turn.
    await reason.press('Escape');
    assert.ok(!(await reason.isVisible()));
    assert.ok(!(await chat.posted()).some((m) => m.type === 'stop'));
    await card.getByRole('button', { name: 'Deny this call' }).click();
    await reason.fill('  Do not touch the network.  ');
    await card.getByRole('button', { name: 'Deny, with this reason' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'toolDecision',
      turnId: turn.id,
      callId: 't1',
      choice: 'deny',
      reason: 'Do not touch the network.',
    });
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [{ ...pending, state: 'denied', reason: 'Do not touch the network.' }],
      }),
    );
    assert.match((await card.locator('.tool-state').textContent()) ?? '', /Denied/);
    assert.strictEqual(await card.locator('.tool-reason').textContent(), 'Reason: Do not touch the network.');

    // A denial without a reason posts none.
    await chat.send(agentStep(turn.id, 1, { content: '', calls: [{ ...pending, id: 't2' }] }, 2));
    const second = page.locator('.tool-card[data-call-id="t2"]');
    await second.getByRole('button', { name: 'Deny this call' }).click();
    await second.getByRole('button', { name: 'Deny, with this reason' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'toolDecision',
      turnId: turn.id,
      callId: 't2',
      choice: 'deny',
    });
  });

  it('an edit shows its path, "new file" and the coloured diff, and opens the diff', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    const diff =
      '--- a/src/new.ts\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+export const a = 1;\n-old line\n context';
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [
          call('e1', {
            name: 'editFile',
            state: 'awaitingApproval',
            confirmation: { kind: 'edit', path: 'src/new.ts', created: true, diff },
          }),
        ],
      }),
    );
    const card = page.locator('.tool-card[data-call-id="e1"]');
    assert.strictEqual(await card.locator('.tool-path').textContent(), 'src/new.ts');
    assert.strictEqual(await card.locator('.tool-badge').textContent(), 'new file');
    assert.strictEqual(await card.locator('.tool-diff').textContent(), diff, 'the diff, exactly');
    assert.strictEqual(await card.locator('.diff-add').textContent(), '+export const a = 1;\n');
    assert.strictEqual(await card.locator('.diff-del').textContent(), '-old line\n');
    const [added, removed] = await Promise.all(
      ['.diff-add', '.diff-del'].map((selector) =>
        card
          .locator(selector)
          .evaluate(
            (element) =>
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
              ).getComputedStyle(element).backgroundColor,
          ),
      ),
    );
    assert.notStrictEqual(added, removed, 'added and removed lines are coloured apart');
    await card.getByRole('button', { name: 'Open the diff in the editor' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'openToolDiff',
      turnId: turn.id,
      callId: 'e1',
    });
  });

  it("an edit through a link alias: the card names the real file and says why it asks; an extension tool's card says why there is no Always", async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    const why =
      '"docs/setup.md" is a link to /w/.vscode/tasks.json: it is VS Code configuration (it matches "**/.vscode/**"), so a change to it can make something run later. It asks every time, even after Allow in this chat.';
    await chat.send(
      agentStep(turn.id, 0, {
        content: '',
        calls: [
          call('link1', {
            name: 'edit_file',
            state: 'awaitingApproval',
            confirmation: {
              kind: 'edit',
              path: 'docs/setup.md',
              realPath: '/w/.vscode/tasks.json',
              created: false,
              diff: '',
              onceOnly: true,
              why,
            },
          }),
          call('ext1', {
            name: 'install_package',
            state: 'awaitingApproval',
            confirmation: {
              kind: 'tool',
              name: 'install_package',
              source: 'Acme Installer',
              arguments: '{}',
              noAlways: true,
            },
          }),
        ],
      }),
    );
    const link = page.locator('.tool-card[data-call-id="link1"]');
    assert.strictEqual(await link.locator('.tool-path').textContent(), 'docs/setup.md');
    assert.match(
      (await link.locator('.tool-confirm-fact').allTextContents()).join('|'),
      /Link to\/w\/\.vscode\/tasks\.json/,
    );
    assert.strictEqual(await link.locator('.tool-confirm-why').textContent(), why);
    const extension = page.locator('.tool-card[data-call-id="ext1"]');
    assert.strictEqual(await extension.locator('.tool-confirm-note').textContent(), NO_ALWAYS_NOTE);
    assert.deepStrictEqual(
      (await extension.locator('.tool-approval-buttons button').allTextContents()).slice(0, 3),
      ['Allow once', 'Allow in this chat', 'Deny…'],
    );
  });

  it('keeps hostile text in arguments, results, diffs, commands and sources inert', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const turn = await startAgentTurn(chat);
    const step: AgentStep = {
      content: HOSTILE,
      reasoning: HOSTILE,
      calls: [
        call('h1', {
          name: HOSTILE,
          source: HOSTILE,
          arguments: JSON.stringify({ html: HOSTILE }),
          state: 'done',
          result: HOSTILE,
        }),
        call('h2', { arguments: HOSTILE, state: 'failed', result: HOSTILE }),
        call('h3', { state: 'denied', reason: HOSTILE }),
        call('h4', {
          state: 'awaitingApproval',
          confirmation: { kind: 'command', command: HOSTILE, cwd: HOSTILE, timeoutSeconds: 5 },
        }),
        call('h5', {
          state: 'awaitingApproval',
          confirmation: { kind: 'edit', path: HOSTILE, created: false, diff: `+${HOSTILE}\n-${HOSTILE}` },
        }),
        call('h6', {
          state: 'awaitingApproval',
          confirmation: { kind: 'tool', name: HOSTILE, source: HOSTILE, arguments: HOSTILE },
        }),
      ],
    };
    await chat.send({ type: 'turnUpdated', turn: { ...turn, steps: [step] } });
    await chat.send(
      tools({
        reason: HOSTILE,
        sources: [
          {
            id: 'x',
            kind: 'mcp',
            label: HOSTILE,
            tools: [HOSTILE],
            enabled: true,
            state: 'error',
            detail: HOSTILE,
          },
        ],
      }),
    );
    await page.getByRole('button', { name: /Agent tools/ }).click();
    for (const summary of await page
      .locator('.agent-steps summary:visible, .tool-picker summary:visible')
      .all())
      await summary.click();

    assert.deepStrictEqual(await dangerousElements(chat), []);
    assert.strictEqual(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned),
      undefined,
    );
    assert.deepStrictEqual(dialogs, []);
    // The text is there, as text.
    assert.strictEqual(
      await page.locator('.tool-card[data-call-id="h4"] .tool-command').textContent(),
      HOSTILE,
    );
    assert.strictEqual(
      await page.locator('.tool-card[data-call-id="h1"] .tool-output').textContent(),
      HOSTILE,
    );
    // The only buttons in the cards are ours: the hostile "Allow once" is text, and pressing
    // nothing was posted by rendering.
    const buttons = await page
      .locator('.agent-steps button')
      .evaluateAll((els) =>
        els.map((el) =>
          (el as unknown as { getAttribute(n: string): string | null }).getAttribute('aria-label'),
        ),
      );
    assert.ok(
      buttons.every((label) => label !== null),
      'every button is one of ours, with its label',
    );
    assert.ok(!(await chat.posted()).some((m) => m.type === 'toolDecision' || m.type === 'retry'));
    assert.deepStrictEqual(chat.errors(), []);
  });

  it("the tool picker posts setAgentTools and setToolSource, and shows a server's command before it starts", async () => {
    const { chat } = fixture;
    const { page } = chat;
    await chat.send(initMessage([]));
    const toggle = page.getByRole('button', { name: 'Agent tools for this chat' });
    assert.ok(!(await toggle.isVisible()), 'hidden until the host says what tools there are');
    await chat.send(tools());
    await toggle.click();
    const panel = page.getByRole('region', { name: 'Agent tools for this chat' });
    assert.ok(await panel.isVisible());
    assert.strictEqual(
      await panel.locator('.tool-server-detail').textContent(),
      'npx -y @modelcontextprotocol/server-everything',
    );
    assert.match((await panel.locator('.tool-server-state').textContent()) ?? '', /Not started/);

    await panel.getByRole('checkbox', { name: /^Gateway/ }).uncheck();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setAgentTools',
      choices: { disabledSources: ['gateway'] },
    });
    await panel.getByRole('checkbox', { name: 'Tools', exact: true }).uncheck();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setAgentTools',
      choices: { off: true, disabledSources: ['gateway'] },
    });
    await panel.getByRole('button', { name: 'Start the MCP server everything' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setToolSource',
      sourceId: 'everything',
      enabled: true,
    });

    // The server runs, then fails: its state and error show; the panel stays open.
    await chat.send(
      tools({
        sources: [everything({ tools: ['echo', 'add'], state: 'running' })],
      }),
    );
    assert.match((await panel.locator('.tool-server-state').textContent()) ?? '', /Running/);
    await panel.getByRole('button', { name: 'Stop the MCP server everything' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'setToolSource',
      sourceId: 'everything',
      enabled: false,
    });
    await chat.send(
      tools({
        sources: [everything({ state: 'error', detail: 'spawn npx ENOENT' })],
      }),
    );
    assert.match(
      (await panel.locator('.tool-server').textContent()) ?? '',
      /Failed to start.*spawn npx ENOENT/s,
    );

    // Unavailable with this model, and Restricted Mode, say why.
    await chat.send(tools({ available: false, reason: 'This model does not take tools.', restricted: true }));
    assert.match((await panel.textContent()) ?? '', /This model does not take tools\./);
    assert.match((await panel.textContent()) ?? '', /Restricted Mode: edits and commands are off/);
    assert.ok(await panel.getByRole('checkbox', { name: 'Tools', exact: true }).isDisabled());
    // A host without processes (VS Code for the Web) says what it cannot do, as text.
    await chat.send(tools({ platformNote: NO_COMMANDS_NOTE }));
    assert.equal((await panel.locator('.tool-picker-platform').textContent())?.trim(), NO_COMMANDS_NOTE);
    await chat.send(tools());
    assert.equal(await panel.locator('.tool-picker-platform').count(), 0);
    await panel.locator('summary').first().press('Escape');
    assert.ok(!(await panel.isVisible()));
  });

  it('a finished turn that edited files offers Undo this turn, and shows when it was undone', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = assistantTurn('Done.', {
      steps: [{ content: '', calls: [call('e1', { state: 'done', durationMs: 20 })] }],
      agent: progress(2, { cost: 0.5 }),
      edited: ['src/a.ts', 'src/new.ts'],
    });
    await chat.send(initMessage([userTurn('edit'), turn]));
    assert.match((await page.locator('.agent-counter').textContent()) ?? '', /2 steps/);
    const undo = page.getByRole('button', { name: /Undo this turn/ });
    await page.locator('.agent-edited-files summary').click();
    assert.deepStrictEqual(await page.locator('.agent-edited-files li').allTextContents(), [
      'src/a.ts',
      'src/new.ts',
    ]);
    await undo.click();
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'undoTurn', turnId: turn.id });
    await chat.send({ type: 'turnUpdated', turn: { ...turn, undone: true } });
    assert.strictEqual(await undo.count(), 0);
    assert.match((await page.locator('.agent-undo').textContent()) ?? '', /Undone.*Restored 2 files/s);
  });

  it('a reload (init with stored steps) shows the steps and cards again', async () => {
    const { chat } = fixture;
    const { page } = chat;
    const steps: AgentStep[] = Array.from({ length: 3 }, (_, index) => ({
      content: `Step ${index} text`,
      calls: [
        call(`r${index}`, {
          state: index === 2 ? 'failed' : 'done',
          result: `result ${index}`,
          durationMs: 5,
        }),
      ],
    }));
    const turn = assistantTurn('All done.', { steps, agent: progress(3) });
    await chat.send(initMessage([userTurn('go'), turn]));
    await chat.waitForCount('.tool-card', 3);
    const texts = await page.locator('.agent-step .step-text').allTextContents();
    assert.deepStrictEqual(
      texts.map((text) => text.trim()),
      ['Step 0 text', 'Step 1 text', 'Step 2 text'],
    );
    assert.strictEqual(await page.locator('.tool-card.is-failed').count(), 1);
    assert.strictEqual(((await page.locator('.reply').textContent()) ?? '').trim(), 'All done.');
  });

  it("a step takes its reasoning along, and the host's note on a repeated call shows in its card", async () => {
    const { chat } = fixture;
    const { page } = chat;
    const turn = await startAgentTurn(chat);
    await chat.send({ type: 'turnDelta', id: turn.id, reasoning: 'I should read the file.' });
    assert.ok(await page.locator('.turn-assistant > .reasoning').isVisible());
    const note =
      'The model made this same call 3 times in a row. Allow it to go on, or deny to stop the loop.';
    const step: AgentStep = {
      content: '',
      reasoning: 'I should read the file.',
      calls: [call('n1', { state: 'awaitingApproval', note })],
    };
    await chat.send({
      type: 'turnUpdated',
      turn: { ...turn, reasoning: '', steps: [step], agent: progress(1) },
    });
    assert.ok(!(await page.locator('.turn-assistant > .reasoning').isVisible()), 'the live block empties');
    await page.locator('.step-reasoning summary').click();
    assert.strictEqual(await page.locator('.step-reasoning-text').textContent(), 'I should read the file.');
    const card = page.locator('.tool-card[data-call-id="n1"]');
    assert.strictEqual(await card.locator('.tool-note').textContent(), note);
    // Without a confirmation from the host, the tool's name and full arguments are asked about.
    assert.strictEqual(
      await card.locator('.tool-confirm .tool-arguments').textContent(),
      '{\n  "path": "src/a.ts"\n}',
    );
    await card.getByRole('button', { name: 'Allow this call once' }).click();
    assert.deepStrictEqual((await chat.posted()).at(-1), {
      type: 'toolDecision',
      turnId: turn.id,
      callId: 'n1',
      choice: 'once',
    });
  });

  it('after any sequence of step updates, each step shows exactly its latest calls, in order (property)', async () => {
    const { chat } = fixture;
    const turn = await startAgentTurn(chat);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(3), stepArb), { minLength: 1, maxLength: 10 }),
        async (updates) => {
          const errorsBefore = chat.errors().length;
          // Start each sequence from a turn without steps.
          await chat.send({ type: 'turnUpdated', turn: { ...turn, steps: [] } });
          const latest: AgentStep[] = [];
          for (const [index, step] of updates) {
            for (let fill = latest.length; fill < index; fill++) latest[fill] = { content: '', calls: [] };
            latest[index] = step;
          }
          const messages = updates.map(([index, step]) => agentStep(turn.id, index, step));
          await chat.page.evaluate(
            (all) => {
              const page = globalThis as unknown as { postMessage(message: unknown, origin: string): void };
              for (const message of all) page.postMessage(message, '*');
            },
            messages.slice(0, -1),
          );
          // Messages are handled in order: once the last is handled (and painted), all are.
          await chat.send(messages[messages.length - 1]);
          assert.deepStrictEqual(
            await stepsOnScreen(chat, turn.id),
            latest.map((step) => step.calls.map((c) => `${c.id}:${c.state}`)),
          );
          assert.deepStrictEqual(await dangerousElements(chat), []);
          assert.deepStrictEqual(chat.errors().slice(errorsBefore), [], 'nothing threw in the page');
        },
      ),
      { numRuns: 60 },
    );
  });
});
