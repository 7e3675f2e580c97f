import * as assert from 'node:assert/strict';
import { parseHostMessage, parseTurn, parseWebviewMessage } from '../../../../src/core/protocol/chatProtocol';
import { parseConversation } from '../../../../src/core/chat/conversationCodec';

describe('Protocol: modes and custom agents', () => {
  it('a workspace agent named with a homoglyph is marked as a workspace agent by its id, whatever its fields claim', () => {
    const parsed = parseHostMessage({
      type: 'modes',
      current: 'custom:.github/agents/ask.agent.md',
      options: [
        { id: 'ask', label: 'Ask', description: '', custom: true },
        { id: 'custom:.github/agents/ask.agent.md', label: '\u0410sk', description: '', custom: false },
      ],
      warnings: [],
    });
    assert.ok(parsed && parsed.type === 'modes');
    assert.deepEqual(
      parsed.options.map((o) => [o.id, o.custom]),
      [
        ['ask', false],
        ['custom:.github/agents/ask.agent.md', true],
      ],
    );
  });

  it('takes a mode choice only for a mode id, and a plan hand-off only for a turn id', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'setMode', mode: 'plan' }), {
      type: 'setMode',
      mode: 'plan',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'setMode', mode: 'custom:.gateway/agents/a.agent.md' }), {
      type: 'setMode',
      mode: 'custom:.gateway/agents/a.agent.md',
    });
    for (const mode of [
      'yolo',
      '',
      3,
      { id: 'plan' },
      'custom:',
      `custom:${'a'.repeat(5000)}`,
      'custom:a\u0000',
    ])
      assert.equal(parseWebviewMessage({ type: 'setMode', mode }), undefined, JSON.stringify(mode));
    assert.deepEqual(parseWebviewMessage({ type: 'runPlan', turnId: 't1' }), {
      type: 'runPlan',
      turnId: 't1',
    });
    assert.equal(parseWebviewMessage({ type: 'runPlan', turnId: '' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'runPlan' }), undefined);
  });

  it("shows the picker's options inert and bounded, dropping odd ones", () => {
    const parsed = parseHostMessage({
      type: 'modes',
      current: 'plan',
      options: [
        { id: 'agent', label: 'Agent', description: 'All tools', custom: false },
        { id: 'plan', label: 'Plan', description: 'Reads', custom: false },
        {
          id: 'custom:.github/agents/x.agent.md',
          label: 'Evil \u202E[link](command:x)\u0007',
          description: 7,
          custom: true,
          warning: 'bad\nheader',
        },
        { id: 'nope', label: 'Not a mode' },
        { id: 'plan', label: 'Again' },
        'agent',
      ],
      warnings: ['Restricted Mode', 5, { a: 1 }],
    });
    assert.ok(parsed?.type === 'modes');
    assert.equal(parsed.current, 'plan');
    assert.deepEqual(
      parsed.options.map((o) => o.id),
      ['agent', 'plan', 'custom:.github/agents/x.agent.md'],
    );
    const custom = parsed.options[2];
    assert.doesNotMatch(custom.label, /\u202E|\]\(/);
    assert.ok(!custom.label.includes('\u0007'));
    assert.equal(custom.description, '');
    assert.equal(custom.warning, 'bad header');
    assert.deepEqual(parsed.warnings, ['Restricted Mode']);
    assert.equal(parseHostMessage({ type: 'modes', current: 'nope', options: [] }), undefined);
    assert.equal(parseHostMessage({ type: 'modes', current: 'agent' }), undefined);
    const many = parseHostMessage({
      type: 'modes',
      current: 'agent',
      options: Array.from({ length: 500 }, (_, i) => ({ id: `custom:a${i}`, label: 'x'.repeat(10_000) })),
      warnings: Array.from({ length: 500 }, () => 'w'),
    });
    assert.ok(many?.type === 'modes');
    assert.ok(many.options.length <= 60 && many.warnings.length <= 20);
    assert.ok(many.options.every((o) => o.label.length <= 100));
  });

  it('keeps a Plan turn’s mark and a chat’s mode in storage, and drops an odd one', () => {
    const turn = parseTurn(
      {
        id: 't',
        role: 'assistant',
        content: '1.',
        reasoning: '',
        status: 'complete',
        model: 'm',
        plan: true,
      },
      () => undefined,
    );
    assert.equal(turn?.role === 'assistant' && turn.plan, true);
    const chat = (mode: unknown) => parseConversation({ id: 'c-1', title: 't', turns: [], mode });
    assert.equal(chat('ask')?.value.mode, 'ask');
    assert.equal(chat(undefined)?.value.mode, undefined);
    const odd = chat({ evil: true });
    assert.equal(odd?.value.mode, undefined);
    assert.ok(odd?.dropped.includes('mode'));
  });
});
