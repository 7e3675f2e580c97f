import * as assert from 'node:assert/strict';
import { parseTurn, parseWebviewMessage } from '../../../../src/core/protocol/chatProtocol';
import { parseAgentProgress } from '../../../../src/core/protocol/agentProtocol';

describe('Protocol: instruction chips and paused turns', () => {
  const turn = (extra: Record<string, unknown>) =>
    parseTurn(
      {
        id: 't1',
        role: 'assistant',
        content: '',
        reasoning: '',
        status: 'complete',
        model: 'a/b',
        createdAt: 1,
        ...extra,
      },
      () => undefined,
    );

  it("keeps a turn's instruction chips, and drops odd ones", () => {
    const parsed = turn({
      instructions: [
        { path: 'AGENTS.md', reason: 'always', tokens: 12.4 },
        { path: '.clinerules/ts.md', reason: 'matched', tokens: 30, cut: true },
        { path: 'x.md', reason: 'because', tokens: 1 },
        { path: '', reason: 'always', tokens: 1 },
        { path: 'y.md', reason: 'always', tokens: 'many', dropped: true },
        'AGENTS.md',
      ],
    });
    assert.deepEqual(parsed?.role === 'assistant' ? parsed.instructions : undefined, [
      { path: 'AGENTS.md', reason: 'always', tokens: 12 },
      { path: '.clinerules/ts.md', reason: 'matched', tokens: 30, cut: true },
      { path: 'y.md', reason: 'always', tokens: 0, dropped: true },
    ]);
  });

  it("keeps a paused turn's cap and pause, and drops an odd pause", () => {
    assert.deepEqual(
      parseAgentProgress({
        steps: 2,
        promptTokens: 1,
        completionTokens: 1,
        cost: 0.04,
        costCap: 0.05,
        pause: { kind: 'turnCost', spent: 0.04, cap: 0.05 },
      }),
      {
        steps: 2,
        promptTokens: 1,
        completionTokens: 1,
        cost: 0.04,
        costCap: 0.05,
        pause: { kind: 'turnCost', spent: 0.04, cap: 0.05 },
      },
    );
    // A pause before a paid call names it, with its estimate; an odd call is dropped, not the pause.
    assert.deepEqual(
      parseAgentProgress({
        steps: 1,
        pause: { kind: 'dayCost', spent: 0.4, cap: 0.5, call: { name: 'generate_media', estimate: 0.2 } },
      })?.pause,
      { kind: 'dayCost', spent: 0.4, cap: 0.5, call: { name: 'generate_media', estimate: 0.2 } },
    );
    for (const call of [{ name: 'no spaces' }, { name: 'x'.repeat(65) }, { estimate: 1 }, 'generate_media'])
      assert.deepEqual(
        parseAgentProgress({ steps: 1, pause: { kind: 'turnCost', spent: 1, cap: 1, call } })?.pause,
        {
          kind: 'turnCost',
          spent: 1,
          cap: 1,
        },
      );
    assert.deepEqual(
      parseAgentProgress({
        steps: 1,
        pause: { kind: 'turnCost', spent: 1, cap: 1, call: { name: 'm', estimate: -1 } },
      })?.pause?.call,
      { name: 'm' },
    );
    const odd = parseAgentProgress({ steps: 1, pause: { kind: 'forever', spent: 1, cap: 1 }, costCap: -1 });
    assert.equal(odd?.pause, undefined);
    assert.equal(odd?.costCap, undefined);
  });

  it('takes a pause decision only as continue or stop, for a turn id', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'agentPauseDecision', turnId: 't1', choice: 'continue' }), {
      type: 'agentPauseDecision',
      turnId: 't1',
      choice: 'continue',
    });
    assert.equal(
      parseWebviewMessage({ type: 'agentPauseDecision', turnId: 't1', choice: 'always' }),
      undefined,
    );
    assert.equal(parseWebviewMessage({ type: 'agentPauseDecision', turnId: 42, choice: 'stop' }), undefined);
  });
});
