/**
 * Paid calls in the agent loop (media jobs): each one's estimate is held against the turn's and
 * the day's spend caps before it starts, paid calls run one at a time, a reply that asks for more
 * than a cap allows pauses and asks as a request does, and every call the user stopped is still
 * answered.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ChatDelta } from '../../../../src/api/types';
import { runAgentLoop } from '../../../../src/core/agent/agentLoop';
import { endTurn } from '../../../../src/core/agent/agentRequest';
import type { AssistantTurn } from '../../../../src/core/protocol/chatProtocol';
import type { AgentLoopDeps } from '../../../../src/core/agent/agentLoop';
import type { AgentProgress, PaidCall, PreparedCall, ToolSpec } from '../../../../src/core/agent/types';
import { stepMessages } from '../../../../src/core/chat/conversation';
import { dayKey } from '../../../../src/core/cost/costLedger';
import { SpendHolds } from '../../../../src/core/cost/spendHolds';
import type { HoldEnd, SpendHold } from '../../../../src/core/cost/spendHolds';

const builtin = { kind: 'builtin' as const, id: 'gateway', label: 'Gateway AI' };
const specs: ToolSpec[] = [
  { name: 'generate_media', description: '', parameters: {}, source: builtin, readOnly: false },
  { name: 'read_file', description: '', parameters: {}, source: builtin, readOnly: true },
];

/** What the model asks in its first reply; its second reply answers. */
function replies(calls: { name: string; arguments: string }[], cost = 0.001): ChatDelta[][] {
  const usage = (n: number): ChatDelta => ({
    type: 'usage',
    usage: { prompt_tokens: 10, completion_tokens: 5, cost: n === 0 ? cost : cost },
  });
  return [
    [
      { type: 'meta', id: 'gen-0' },
      {
        type: 'tool_calls',
        toolCalls: calls.map((c, index) => ({
          index,
          id: `call_${index}`,
          type: 'function',
          function: c,
        })),
      },
      { type: 'finish', reason: 'tool_calls' },
      usage(0),
    ],
    [
      { type: 'meta', id: 'gen-1' },
      { type: 'content', text: 'done' },
      { type: 'finish', reason: 'stop' },
      usage(1),
    ],
  ];
}

interface Run {
  deps: AgentLoopDeps;
  /** Jobs started, in order, and the most that ever ran at once. */
  started: string[];
  peak: number;
  pauses: AgentProgress[];
  holds: SpendHolds;
}

/**
 * Ten media calls (`generate_media` with `{"n": i}`), each estimated at `estimate` and reporting
 * `end(i)` when it finishes. Calls need no approval (as after *Allow in this chat*).
 */
function setup(options: {
  calls?: number;
  estimate?: number;
  end?: (i: number) => HoldEnd | 'leave';
  budget?: Omit<NonNullable<AgentLoopDeps['budget']>, 'holds' | 'spentToday'>;
  /**
   * Today's ledger: a reported cost lands in it as its job ends (the media feature records it),
   * and the holds are added to it, as the host's `spentForCaps` does.
   */
  ledger?: { total: number };
  shared?: boolean;
  answer?: (progress: AgentProgress) => boolean;
  holds?: SpendHolds;
  reads?: number;
}): Run {
  const count = options.calls ?? 10;
  const calls = [
    ...Array.from({ length: count }, (_, i) => ({
      name: 'generate_media',
      arguments: JSON.stringify({ n: i }),
    })),
    ...Array.from({ length: options.reads ?? 0 }, (_, i) => ({
      name: 'read_file',
      arguments: JSON.stringify({ n: 100 + i }),
    })),
  ];
  const script = replies(calls);
  const holds = options.holds ?? new SpendHolds();
  let running = 0;
  const run: Run = { started: [], peak: 0, pauses: [], holds, deps: undefined as unknown as AgentLoopDeps };
  let n = 0;
  const shared = options.shared ?? true;
  const ledger = options.ledger ?? { total: 0 };
  run.deps = {
    request: () => {
      const items = script[Math.min(n++, script.length - 1)];
      return (async function* () {
        for (const item of items) yield await Promise.resolve(item);
      })();
    },
    tools: {
      specs: () => specs,
      prepare: (name, args) => {
        const i = (args as { n?: number }).n ?? -1;
        const paid: PaidCall | undefined =
          name === 'generate_media'
            ? options.estimate !== undefined
              ? { estimate: options.estimate, basis: `$${options.estimate} per image` }
              : { basis: 'no price in the catalogs' }
            : undefined;
        const prepared: PreparedCall = {
          ...(paid ? { paid } : {}),
          run: async (_signal, hold?: SpendHold) => {
            run.started.push(`${name}#${i}`);
            running++;
            run.peak = Math.max(run.peak, running);
            await new Promise((resolve) => setTimeout(resolve, 1));
            running--;
            const end = options.end?.(i) ?? { kind: 'reported', cost: options.estimate ?? 0.1 };
            if (end !== 'leave' && end.kind === 'reported' && shared) ledger.total += end.cost;
            if (hold && end !== 'leave') hold.settle(end);
            return { text: `${name} ${i} made` };
          },
        };
        return Promise.resolve(prepared);
      },
    },
    needsApproval: () => false,
    approve: () => Promise.resolve({ choice: 'once' }),
    events: {
      delta: () => undefined,
      stepAdded: () => undefined,
      stepChanged: () => undefined,
      changed: () => undefined,
    },
    now: () => Date.UTC(2026, 11, 7, 12),
    maxSteps: 25,
    estimateTokens: () => 1,
    budget: {
      ...options.budget,
      // The ledger holds every reported cost at once (the jobs' own records), plus the holds.
      spentToday: () => ledger.total + (shared ? holds.total(dayKey(Date.UTC(2026, 11, 7, 12))) : 0),
      ...(shared ? { holds } : {}),
    },
    askToContinue: (progress) => {
      run.pauses.push(progress);
      return Promise.resolve(options.answer?.(progress) ?? false);
    },
  };
  return run;
}

const history = [{ role: 'user' as const, content: 'make ten pictures' }];

describe('agent loop: paid calls', () => {
  it('with a $0.50 turn cap, ten $0.20 jobs start two, then pause and ask; stopping answers the rest', async () => {
    const run = setup({ estimate: 0.2, budget: { maxTurnCost: 0.5 } });
    const result = await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.deepEqual(run.started, ['generate_media#0', 'generate_media#1']);
    assert.equal(run.pauses.length, 1);
    const pause = run.pauses[0].pause;
    assert.equal(pause?.kind, 'turnCost');
    assert.equal(pause?.cap, 0.5);
    assert.ok(Math.abs((pause?.spent ?? 0) - 0.401) < 1e-9, `spent ${pause?.spent}`);
    assert.deepEqual(pause?.call, { name: 'generate_media', estimate: 0.2 });
    assert.equal(result.end.kind, 'budget');
    const calls = result.steps[0].calls;
    assert.equal(calls.length, 10);
    assert.ok(
      calls.every((c) => c.result !== undefined),
      'every call answered',
    );
    assert.match(calls[0].result ?? '', /Cost: \$0\.2000, as the gateway reported/);
    for (const call of calls.slice(2)) {
      assert.equal(call.state, 'cancelled');
      assert.match(call.result ?? '', /^Not run: spend cap/);
    }
    // The history the next request would carry answers every tool_call_id.
    const messages = stepMessages(result.steps[0]);
    assert.equal(messages.filter((m) => m.role === 'tool').length, 10);
    assert.equal(run.holds.openCount, 0);
  });

  it('going on past the turn cap allows another cap’s worth', async () => {
    const run = setup({ estimate: 0.2, budget: { maxTurnCost: 0.5 }, answer: () => true });
    const result = await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.equal(run.started.length, 10);
    // 0.4 → pause, on to 0.9 → 0.8 → pause, on to 1.3 ... one pause per two jobs after the first two.
    assert.equal(run.pauses.length, 4);
    assert.equal(result.end.kind, 'answered');
    assert.ok(Math.abs((run.pauses.at(-1)?.cost ?? 0) - 1.601) < 1e-9);
  });

  it('paid calls run one at a time, after the reads before them; reads still run together', async () => {
    const run = setup({ estimate: 0.01, calls: 4, reads: 3 });
    await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.equal(run.started.filter((s) => s.startsWith('generate_media')).length, 4);
    // The three reads come after the paid calls in the reply, and run together.
    assert.equal(run.peak, 3);
    const media = setup({ estimate: 0.01, calls: 6 });
    await runAgentLoop(history, media.deps, new AbortController().signal);
    assert.equal(media.peak, 1);
  });

  it('a reported cost replaces the estimate in the turn’s cost', async () => {
    const run = setup({ estimate: 0.2, calls: 2, end: () => ({ kind: 'reported', cost: 0.05 }) });
    const progress: AgentProgress[] = [];
    run.deps.events.stepChanged = (_i, _s, p) => progress.push(p);
    await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.ok(Math.abs((progress.at(-1)?.cost ?? 0) - 0.101) < 1e-9, `cost ${progress.at(-1)?.cost}`);
  });

  it('a job that reports no cost keeps its estimate, said in its result, never as $0', async () => {
    const run = setup({
      estimate: 0.2,
      calls: 3,
      end: () => ({ kind: 'unreported' }),
      budget: { maxTurnCost: 0.5 },
    });
    const result = await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.equal(run.started.length, 2, 'the estimates count as spent');
    const first = result.steps[0].calls[0].result ?? '';
    assert.match(first, /not reported by the gateway; the estimate of \$0\.2000/);
    assert.doesNotMatch(first, /\$0(\.0+)?\b(?!\.)/);
    assert.equal(run.holds.total(dayKey(Date.UTC(2026, 11, 7, 12))), 0.4, 'kept for the day');
  });

  it('a job still running when its call returns stays held until it ends', async () => {
    const holds = new SpendHolds();
    const run = setup({ estimate: 0.2, calls: 1, end: () => 'leave', holds });
    const result = await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.match(
      result.steps[0].calls[0].result ?? '',
      /not known yet; the estimate of \$0\.2000 .* is held/,
    );
    assert.equal(holds.openCount, 1);
  });

  it('an unknown price passes no cap silently: with a cap set it asks first, and says why', async () => {
    const run = setup({ calls: 2, budget: { maxTurnCost: 5 } });
    const result = await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.equal(run.started.length, 0);
    assert.deepEqual(run.pauses[0].pause?.call, { name: 'generate_media' });
    assert.equal(result.end.kind, 'budget');
    // Without any cap, it runs (the card and the result say the price is unknown).
    const free = setup({ calls: 1, end: () => ({ kind: 'unreported' }) });
    const ran = await runAgentLoop(history, free.deps, new AbortController().signal);
    assert.equal(free.started.length, 1);
    assert.match(
      ran.steps[0].calls[0].result ?? '',
      /Cost: not reported by the gateway; no estimate: no price in the catalogs/,
    );
  });

  it('the day cap holds across two turns: the first turn’s jobs count in the second', async () => {
    const ledger = { total: 0 };
    const holds = new SpendHolds();
    const options = { estimate: 0.2, calls: 2, holds, budget: { maxDailyCost: 0.5 }, ledger };
    const first = setup(options);
    const one = await runAgentLoop(history, first.deps, new AbortController().signal);
    assert.equal(first.started.length, 2);
    assert.equal(one.end.kind, 'answered');
    // The first turn's requests are in the ledger by now (the host records them at its end).
    ledger.total += 0.002;
    const second = setup(options);
    const two = await runAgentLoop(history, second.deps, new AbortController().signal);
    assert.equal(second.started.length, 0, 'no job of the second turn started');
    assert.equal(second.pauses[0].pause?.kind, 'dayCost');
    assert.ok(Math.abs((second.pauses[0].pause?.spent ?? 0) - 0.403) < 1e-9);
    assert.equal(two.end.kind, 'budget');
    assert.ok(two.steps[0].calls.every((c) => /^Not run: spend cap/.test(c.result ?? '')));
  });

  it('the day cap counts the loop’s own holds when the host has none to share', async () => {
    const run = setup({ estimate: 0.2, shared: false, budget: { maxDailyCost: 0.5 }, end: () => 'leave' });
    await runAgentLoop(history, run.deps, new AbortController().signal);
    assert.equal(run.started.length, 2);
    assert.equal(run.pauses[0].pause?.kind, 'dayCost');
  });

  it('never starts more than the caps allow, whatever the prices and caps (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0.001, max: 3, noNaN: true }),
        fc.double({ min: 0.01, max: 5, noNaN: true }),
        fc.boolean(),
        async (calls, estimate, cap, daily) => {
          const run = setup({
            calls,
            estimate,
            budget: daily ? { maxDailyCost: cap } : { maxTurnCost: cap },
          });
          await runAgentLoop(history, run.deps, new AbortController().signal);
          // Every job started fit under the cap with the first reply's cost.
          assert.ok(
            0.001 + run.started.length * estimate <= cap + 1e-9,
            `${run.started.length} × ${estimate} > ${cap}`,
          );
          assert.equal(run.holds.openCount, 0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a turn stopped at a cap before a paid call says so, with the estimate or the unknown price', () => {
    const turn = (): AssistantTurn => ({
      id: 't',
      role: 'assistant',
      content: '',
      reasoning: '',
      status: 'streaming',
      model: 'a/b',
      createdAt: 1,
    });
    const priced = turn();
    endTurn(priced, {
      end: {
        kind: 'budget',
        pause: { kind: 'turnCost', spent: 0.4, cap: 0.5, call: { name: 'generate_media', estimate: 0.2 } },
      },
      steps: [],
    });
    assert.match(
      priced.error?.message ?? '',
      /before the next paid call \(generate_media, about \$0\.2000\)/,
    );
    const unknown = turn();
    endTurn(unknown, {
      end: { kind: 'budget', pause: { kind: 'dayCost', spent: 1, cap: 5, call: { name: 'generate_media' } } },
      steps: [],
    });
    assert.match(unknown.error?.message ?? '', /whose price is unknown.*gateway\.agent\.maxDailyCost/);
  });
});
