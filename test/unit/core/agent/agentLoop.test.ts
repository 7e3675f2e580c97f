import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatChunkReader } from '../../../../src/api/chatChunks';
import type { ChatDelta, ChatMessage } from '../../../../src/api/types';
import {
  AgentStopped,
  addUsage,
  capResult,
  newTally,
  runAgentLoop,
  trimToolResults,
} from '../../../../src/core/agent/agentLoop';
import type { AgentLoopDeps } from '../../../../src/core/agent/agentLoop';
import type {
  ApprovalDecision,
  PreparedCall,
  ToolCallRecord,
  ToolOutput,
  ToolSpec,
} from '../../../../src/core/agent/types';
import { MAX_TOOL_RESULT_CHARS, ToolInputError } from '../../../../src/core/agent/types';
import { stepMessages } from '../../../../src/core/chat/conversation';

const builtin = { kind: 'builtin' as const, id: 'gateway', label: 'Gateway AI' };

function spec(name: string, readOnly: boolean): ToolSpec {
  return { name, description: name, parameters: { type: 'object' }, source: builtin, readOnly };
}

/** One scripted reply: text and tool calls, given as the deltas the client would yield. */
interface Reply {
  text?: string;
  calls?: { id?: string; name: string; arguments: string }[];
  cost?: number;
  /** The gateway reports tokens but no cost. */
  noCost?: true;
}

function deltas(reply: Reply, n: number): ChatDelta[] {
  const out: ChatDelta[] = [{ type: 'meta', id: `gen-${n}` }];
  if (reply.text) out.push({ type: 'content', text: reply.text });
  if (reply.calls?.length)
    out.push({
      type: 'tool_calls',
      toolCalls: reply.calls.map((c, index) => ({
        index,
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    });
  out.push({ type: 'finish', reason: reply.calls?.length ? 'tool_calls' : 'stop' });
  out.push({
    type: 'usage',
    usage: {
      prompt_tokens: 10,
      completion_tokens: 5,
      ...(reply.noCost ? {} : { cost: reply.cost ?? 0.001 }),
    },
  });
  return out;
}

/** A fake clock that moves 7 ms each time it is read. */
function clock() {
  let t = 1000;
  return () => (t += 7);
}

interface Harness {
  deps: AgentLoopDeps;
  requests: ChatMessage[][];
  ran: string[];
  log: string[];
  asked: ToolCallRecord[];
}

function harness(
  replies: Reply[],
  options: {
    decide?: (call: ToolCallRecord) => ApprovalDecision | Promise<ApprovalDecision>;
    run?: (name: string, args: unknown, signal: AbortSignal) => Promise<ToolOutput>;
    maxSteps?: number;
  } = {},
): Harness {
  const h: Harness = {
    requests: [],
    ran: [],
    log: [],
    asked: [],
    deps: undefined as unknown as AgentLoopDeps,
  };
  const specs = [
    spec('read_file', true),
    spec('list_files', true),
    spec('edit_file', false),
    spec('run_command', false),
  ];
  let n = 0;
  h.deps = {
    request: (messages) => {
      h.requests.push(messages);
      const reply = replies[Math.min(n, replies.length - 1)];
      const items = deltas(reply, n++);
      return (async function* () {
        for (const item of items) yield await Promise.resolve(item);
      })();
    },
    tools: {
      specs: () => specs,
      prepare: (name, args) => {
        if (name === 'read_file' && (args as { path?: unknown }).path === '../secret')
          return Promise.reject(new ToolInputError('The path leaves the workspace.'));
        const prepared: PreparedCall = {
          run: async (signal) => {
            h.log.push(`start ${name}`);
            const output = options.run
              ? await options.run(name, args, signal)
              : { text: `${name} ok ${JSON.stringify(args)}` };
            h.log.push(`end ${name}`);
            h.ran.push(name);
            return output;
          },
        };
        if (name === 'run_command')
          prepared.confirmation = {
            kind: 'command',
            command: String((args as { command?: unknown }).command),
            cwd: '/w',
            timeoutSeconds: 60,
          };
        return Promise.resolve(prepared);
      },
    },
    needsApproval: (s) => !s.readOnly,
    approve: (call) => {
      h.asked.push({ ...call });
      return Promise.resolve(options.decide?.(call) ?? { choice: 'once' });
    },
    events: {
      delta: () => undefined,
      stepAdded: () => undefined,
      stepChanged: () => undefined,
      changed: () => undefined,
    },
    now: clock(),
    maxSteps: options.maxSteps ?? 25,
    estimateTokens: (messages) =>
      messages.reduce((t, m) => t + JSON.stringify(m.content ?? '').length / 4, 0),
  };
  return h;
}

const history: ChatMessage[] = [{ role: 'user', content: 'do it' }];

/** Every assistant tool call is answered by one tool message, in order, before the next assistant message. */
function assertAnswered(messages: ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i].tool_calls;
    if (!calls) continue;
    calls.forEach((call, k) => {
      const answer = messages[i + 1 + k];
      assert.equal(answer?.role, 'tool', `call ${call.id} answered`);
      assert.equal(answer.tool_call_id, call.id);
      assert.equal(typeof answer.content, 'string');
    });
  }
}

describe('agent loop', () => {
  it('runs tools until the model answers, sending every result back', async () => {
    const h = harness([
      { text: 'Reading.', calls: [{ id: 'a', name: 'read_file', arguments: '{"path":"x"}' }] },
      { calls: [{ id: 'b', name: 'edit_file', arguments: '{"path":"x"}' }] },
      { text: 'Done.' },
    ]);
    const tally = newTally();
    const result = await runAgentLoop(history, h.deps, new AbortController().signal, tally);
    assert.equal(result.end.kind, 'answered');
    assert.equal(result.steps.length, 2);
    assert.deepEqual(h.ran, ['read_file', 'edit_file']);
    assert.equal(h.asked.length, 1, 'only the edit asked');
    assert.equal(h.asked[0].name, 'edit_file');
    assert.equal(tally.progress.steps, 3);
    assert.equal(tally.progress.promptTokens, 30);
    assert.ok(Math.abs((tally.progress.cost ?? 0) - 0.003) < 1e-12);
    assert.deepEqual(
      tally.generations.map((g) => g.id),
      ['gen-0', 'gen-1', 'gen-2'],
    );
    assert.equal(tally.usage?.prompt_tokens, 30);
    const last = h.requests[2];
    assertAnswered(last);
    assert.equal(last[1].content, 'Reading.');
    assert.match(String(last[2].content), /read_file ok/);
    const call = result.steps[0].calls[0];
    assert.equal(call.state, 'done');
    assert.equal(call.durationMs, 7);
    assert.equal(call.source, 'Gateway AI');
  });

  it('runs independent reads in parallel and a change alone, in order', async () => {
    const gates: Record<string, () => void> = {};
    const h = harness(
      [
        {
          calls: [
            { id: 'r1', name: 'read_file', arguments: '{"path":"a"}' },
            { id: 'r2', name: 'list_files', arguments: '{}' },
            { id: 'e', name: 'edit_file', arguments: '{"path":"a"}' },
            { id: 'r3', name: 'read_file', arguments: '{"path":"b"}' },
          ],
        },
        { text: 'ok' },
      ],
      {
        run: (name, args) =>
          new Promise((resolve) => {
            const key = `${name}:${JSON.stringify(args)}`;
            gates[key] = () => resolve({ text: key });
            // Both reads are running before either ends: release them in reverse.
            if (gates['read_file:{"path":"a"}'] && gates['list_files:{}']) {
              gates['list_files:{}']();
              gates['read_file:{"path":"a"}']();
            }
            if (name !== 'read_file' && name !== 'list_files') resolve({ text: key });
            if (key === 'read_file:{"path":"b"}') resolve({ text: key });
          }),
      },
    );
    await runAgentLoop(history, h.deps, new AbortController().signal);
    // Both reads started before either ended.
    assert.deepEqual(h.log.slice(0, 2), ['start read_file', 'start list_files']);
    assert.deepEqual(h.log.slice(2, 4).sort(), ['end list_files', 'end read_file']);
    assert.deepEqual(h.log.slice(4), [
      'start edit_file',
      'end edit_file',
      'start read_file',
      'end read_file',
    ]);
  });

  it('feeds back bad JSON, an unknown tool, refused arguments and a throwing tool as results', async () => {
    const h = harness(
      [
        {
          calls: [
            { id: 'a', name: 'read_file', arguments: '{"path": "x"' },
            { id: 'b', name: 'delete_everything', arguments: '{}' },
            { id: 'c', name: 'read_file', arguments: '{"path":"../secret"}' },
            { id: 'd', name: 'list_files', arguments: '[1]' },
            { id: 'e', name: 'read_file', arguments: '{"path":"boom"}' },
          ],
        },
        { text: 'I see.' },
      ],
      {
        run: (_name, args) =>
          (args as { path?: string }).path === 'boom'
            ? Promise.reject(new Error('disk on fire'))
            : Promise.resolve({ text: 'fine' }),
      },
    );
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    const [a, b, c, d, e] = result.steps[0].calls;
    assert.match(a.result ?? '', /not a JSON object/);
    assert.match(b.result ?? '', /no tool named "delete_everything"/);
    assert.match(c.result ?? '', /leaves the workspace/);
    assert.match(d.result ?? '', /got an array/);
    assert.match(e.result ?? '', /disk on fire/);
    for (const call of result.steps[0].calls) assert.equal(call.state, 'failed');
    assertAnswered(h.requests[1]);
    assert.equal(result.end.kind, 'answered');
  });

  it('sends a deny and its reason back, and does not run the rest of that reply', async () => {
    const h = harness(
      [
        {
          calls: [
            { id: 'a', name: 'run_command', arguments: '{"command":"rm -rf /"}' },
            { id: 'b', name: 'edit_file', arguments: '{"path":"x"}' },
          ],
        },
        { text: 'understood' },
      ],
      { decide: () => ({ choice: 'deny', reason: 'never delete things' }) },
    );
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(h.ran, []);
    assert.equal(h.asked.length, 1);
    const [a, b] = result.steps[0].calls;
    assert.equal(a.state, 'denied');
    assert.equal(a.reason, 'never delete things');
    assert.match(a.result ?? '', /never delete things/);
    assert.equal(b.state, 'cancelled');
    assertAnswered(h.requests[1]);
    assert.match(String(h.requests[1][2].content), /denied.*never delete things/);
  });

  it('stops at the step cap with every call answered', async () => {
    const h = harness([{ calls: [{ id: 'a', name: 'read_file', arguments: '{"path":"x","n":1}' }] }], {
      maxSteps: 4,
    });
    // Different arguments each time would be fairer; the same read is fine below the repeat limit
    // only once, so vary them through the id-less calls below.
    let n = 0;
    const request = h.deps.request;
    h.deps.request = (messages, tools, signal) => {
      n++;
      return n > 0
        ? (async function* () {
            for await (const d of request(messages, tools, signal))
              yield d.type === 'tool_calls'
                ? {
                    ...d,
                    toolCalls: d.toolCalls.map((c) => ({
                      ...c,
                      function: { ...c.function, arguments: `{"n":${n}}` },
                    })),
                  }
                : d;
          })()
        : request(messages, tools, signal);
    };
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(result.end, { kind: 'stepCap', steps: 4 });
    assert.equal(h.requests.length, 4);
    assertAnswered([...history, ...result.steps.flatMap(stepMessages)]);
  });

  it('asks before the same call runs a third time in a row, even a read', async () => {
    const h = harness(
      [
        { calls: [{ name: 'read_file', arguments: '{"path":"x"}' }] },
        { calls: [{ name: 'read_file', arguments: '{"path":"x"}' }] },
        { calls: [{ name: 'read_file', arguments: '{ "path": "x" }' }] },
        { text: 'x' },
      ],
      {
        decide: () => ({ choice: 'deny' }),
      },
    );
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.equal(h.ran.length, 2, 'the first two ran without asking');
    assert.equal(h.asked.length, 1);
    assert.match(h.asked[0].note ?? '', /3 times in a row/);
    assert.equal(
      h.asked[0].confirmation?.onceOnly,
      true,
      'the card offers only Allow once, as the host keeps it',
    );
    assert.equal(h.asked[0].confirmation?.kind, 'tool');
    assert.equal(result.steps[2].calls[0].state, 'denied');
    // Ids the model left out are made up, unique in the turn.
    const ids = result.steps.flatMap((s) => s.calls.map((c) => c.id));
    assert.equal(new Set(ids).size, ids.length);
  });

  it('Stop aborts a running tool and answers every call "not run"', async () => {
    const abort = new AbortController();
    const h = harness(
      [
        {
          calls: [
            { id: 'a', name: 'run_command', arguments: '{"command":"sleep 100"}' },
            { id: 'b', name: 'read_file', arguments: '{"path":"x"}' },
          ],
        },
      ],
      {
        run: (_name, _args, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(new Error('killed')));
            abort.abort();
          }),
      },
    );
    await assert.rejects(runAgentLoop(history, h.deps, abort.signal), (error) => {
      assert.ok(error instanceof AgentStopped);
      const [a, b] = error.steps[0].calls;
      assert.equal(a.state, 'cancelled');
      assert.equal(b.state, 'cancelled');
      assertAnswered([...history, ...error.steps.flatMap(stepMessages)]);
      return true;
    });
  });

  it('Stop while a call awaits approval answers it "not run"', async () => {
    const abort = new AbortController();
    const h = harness([{ calls: [{ id: 'a', name: 'edit_file', arguments: '{}' }] }]);
    h.deps.approve = (_call, _prepared, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')));
        abort.abort();
      });
    await assert.rejects(runAgentLoop(history, h.deps, abort.signal), (error) => {
      assert.ok(error instanceof AgentStopped);
      assert.equal(error.steps[0].calls[0].state, 'cancelled');
      return true;
    });
    assert.deepEqual(h.ran, []);
  });

  it('trims the oldest tool results when the context fills, keeping the newest and a note', () => {
    const big = 'x'.repeat(4000);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      ...[1, 2, 3, 4].flatMap((n): ChatMessage[] => [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: `c${n}`, content: big },
      ]),
    ];
    const estimate = (ms: readonly ChatMessage[]) =>
      ms.reduce((t, m) => t + (typeof m.content === 'string' ? m.content.length : 0) / 4, 0);
    assert.equal(trimToolResults(messages, 100_000, estimate), messages, 'fits: untouched');
    const trimmed = trimToolResults(messages, 3000, estimate);
    const contents = trimmed.filter((m) => m.role === 'tool').map((m) => String(m.content));
    assert.match(contents[0], /Trimmed/);
    assert.match(contents[1], /Trimmed/);
    assert.equal(contents[2], big);
    assert.equal(contents[3], big);
    assert.equal(messages[2].content, big, 'the stored history is not changed');
  });

  it('caps a huge result with a note', () => {
    const capped = capResult('y'.repeat(MAX_TOOL_RESULT_CHARS * 3));
    assert.equal(capped.length, MAX_TOOL_RESULT_CHARS);
    assert.match(capped, /cut: the result was/);
  });

  it('answers every call of any streamed tool-call fragments (split arguments, bad JSON, unknown names, 100 calls)', async () => {
    const fragment = fc.record(
      {
        index: fc.oneof(fc.nat(120), fc.constant(-1), fc.string()),
        id: fc.oneof(fc.constantFrom('a', 'b', ''), fc.string({ maxLength: 8 })),
        name: fc.oneof(fc.constantFrom('read_file', 'edit_file', 'nope', ''), fc.string({ maxLength: 6 })),
        arguments: fc.oneof(
          fc.constantFrom('{"pa', 'th":"x"}', '{}', '{', 'null', '[]'),
          fc.string({ maxLength: 10 }),
        ),
      },
      { requiredKeys: [] },
    );
    const many = fc.constant(
      Array.from({ length: 100 }, (_, i) => ({
        index: i,
        id: `c${i}`,
        name: 'read_file',
        arguments: `{"path":"f${i}"}`,
      })),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(fragment, { maxLength: 40 }), many), async (fragments) => {
        // The real client's chunk reader merges the fragments by index.
        const reader = new ChatChunkReader('sk-test');
        const out: ChatDelta[] = [];
        for (const f of fragments) {
          const { name, arguments: args, ...rest } = f;
          reader.read(
            {
              choices: [
                {
                  index: 0,
                  delta: { tool_calls: [{ ...rest, type: 'function', function: { name, arguments: args } }] },
                },
              ],
            },
            out,
          );
        }
        const snapshot = [...out].reverse().find((d) => d.type === 'tool_calls');
        let served = false;
        const h = harness([{ text: 'end' }]);
        h.deps.request = () =>
          (async function* (): AsyncGenerator<ChatDelta> {
            if (!served && snapshot) {
              served = true;
              yield await Promise.resolve(snapshot);
            } else yield { type: 'content', text: 'end' };
          })();
        const result = await runAgentLoop(history, h.deps, new AbortController().signal);
        assert.equal(result.end.kind, 'answered');
        for (const step of result.steps)
          for (const call of step.calls)
            assert.equal(typeof call.result, 'string', `call ${call.id} answered`);
        assertAnswered([...history, ...result.steps.flatMap(stepMessages)]);
      }),
      { numRuns: 300 },
    );
  });

  it('makes every call id unique in the conversation, and names providers take', async () => {
    const h = harness([
      {
        calls: [
          { id: 'call_x', name: 'read_file', arguments: '{"path":"a"}' },
          { id: '', name: 'read_file', arguments: '{"path":"b"}' },
          { id: 'seen-before', name: 'read file!', arguments: '{}' },
          { id: 'call_x', name: 'list_files', arguments: '{}' },
        ],
      },
      { text: 'ok' },
    ]);
    h.deps.usedIds = new Set(['seen-before']);
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    const ids = result.steps[0].calls.map((c) => c.id);
    assert.equal(new Set([...ids, 'seen-before']).size, 5);
    assert.equal(ids[0], 'call_x');
    assert.equal(result.steps[0].calls[2].name, 'read_file_');
    assert.match(result.steps[0].calls[2].result ?? '', /no tool named/);
  });

  it('answers arguments nested too deep or too long without throwing', async () => {
    const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const h = harness([{ calls: [{ id: 'd', name: 'read_file', arguments: deep }] }, { text: 'ok' }]);
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.match(result.steps[0].calls[0].result ?? '', /nested more than 64 deep/);
  });

  it('answers every call even when asking the user fails', async () => {
    const h = harness([
      {
        calls: [
          { id: 'r', name: 'read_file', arguments: '{"path":"a"}' },
          { id: 'e', name: 'edit_file', arguments: '{}' },
          { id: 'c', name: 'run_command', arguments: '{"command":"x"}' },
        ],
      },
    ]);
    h.deps.approve = () => Promise.reject(new Error('settings write failed'));
    const steps: ToolCallRecord[][] = [];
    h.deps.events.stepChanged = (_i, step) => steps.push(step.calls.map((c) => ({ ...c })));
    await assert.rejects(
      runAgentLoop(history, h.deps, new AbortController().signal),
      /settings write failed/,
    );
    const last = steps[steps.length - 1];
    assert.deepEqual(
      last.map((c) => c.state),
      ['done', 'cancelled', 'cancelled'],
    );
    assert.ok(last.every((c) => typeof c.result === 'string'));
  });

  it('Stop does not wait for a tool that ignores it', async () => {
    const abort = new AbortController();
    const h = harness([{ calls: [{ id: 'r', name: 'read_file', arguments: '{"path":"a"}' }] }], {
      run: () => {
        abort.abort();
        return new Promise(() => undefined);
      },
    });
    await assert.rejects(runAgentLoop(history, h.deps, abort.signal), (error) => {
      assert.ok(error instanceof AgentStopped);
      assert.equal(error.steps[0].calls[0].state, 'cancelled');
      return true;
    });
  });

  it('a denied repeat ends the loop', async () => {
    const same = { calls: [{ name: 'read_file', arguments: '{"path":"x"}' }] };
    const h = harness([same, same, same, same, same, { text: 'never' }], {
      decide: () => ({ choice: 'deny' }),
    });
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(result.end, { kind: 'repeatDenied' });
    assert.equal(h.asked.length, 1);
    assert.equal(h.requests.length, 3);
  });

  it('sums usage across requests, the nested details too', () => {
    const total = addUsage(
      addUsage(undefined, { prompt_tokens: 10, cost: 0.5, prompt_tokens_details: { cached_tokens: 4 } }),
      {
        prompt_tokens: 5,
        completion_tokens_details: { reasoning_tokens: 3 },
        prompt_tokens_details: { cache_write_tokens: 2 },
      },
    );
    assert.deepEqual(total, {
      prompt_tokens: 15,
      cost: 0.5,
      completion_tokens_details: { reasoning_tokens: 3 },
      prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 },
    });
  });
});

describe('Agent loop: spend and step caps', () => {
  const read = (n: number): Reply => ({
    calls: [{ name: 'read_file', arguments: `{"path":"f${n}.txt"}` }],
    cost: 0.02,
  });
  const replies = [read(1), read(2), read(3), read(4), { text: 'Done.', cost: 0.02 }];

  it('pauses before the request that would pass the turn cap, showing what was spent, and goes on once allowed', async () => {
    const h = harness(replies);
    const pauses: unknown[] = [];
    h.deps.budget = { maxTurnCost: 0.05, spentToday: () => 0 };
    h.deps.askToContinue = (progress) => {
      pauses.push({
        requests: h.requests.length,
        pause: progress.pause,
        cost: progress.cost,
        cap: progress.costCap,
      });
      return Promise.resolve(true);
    };
    const tally = newTally();
    const result = await runAgentLoop(history, h.deps, new AbortController().signal, tally);
    assert.deepEqual(result.end, { kind: 'answered' });
    // After two replies ($0.04), a third ($0.02 more) would pass $0.05: asked before it.
    assert.equal(pauses.length, 2);
    assert.deepEqual(pauses[0], {
      requests: 2,
      pause: { kind: 'turnCost', spent: 0.04, cap: 0.05 },
      cost: 0.04,
      cap: 0.05,
    });
    // Going on allows another cap's worth: the next pause is past $0.04 + $0.05.
    assert.equal((pauses[1] as { requests: number }).requests, 4);
    assert.equal(h.requests.length, 5);
    assert.equal(tally.progress.pause, undefined);
  });

  it('counts tokens × price against the caps where the gateway reports no cost, and says it is estimated', async () => {
    const unpriced = replies.map((r): Reply => ({ ...r, noCost: true }));
    const h = harness(unpriced);
    const seen: unknown[] = [];
    h.deps.budget = {
      maxTurnCost: 0.05,
      spentToday: () => 0,
      // $0.001 in, $0.002 out per token: 10 in and 5 out are $0.02 a reply.
      estimate: (usage) => (usage.prompt_tokens ?? 0) * 0.001 + (usage.completion_tokens ?? 0) * 0.002,
    };
    h.deps.askToContinue = (progress) => {
      seen.push({ pause: progress.pause, estimated: progress.costEstimated });
      return Promise.resolve(false);
    };
    const tally = newTally();
    const result = await runAgentLoop(history, h.deps, new AbortController().signal, tally);
    assert.equal(result.end.kind, 'budget');
    assert.equal(h.requests.length, 2);
    assert.deepEqual(seen, [{ pause: { kind: 'turnCost', spent: 0.04, cap: 0.05 }, estimated: true }]);
    assert.equal(tally.progress.costUnreported, undefined);
    // The turn's usage keeps what the gateway said: no cost was reported.
    assert.equal(tally.usage?.cost, undefined);
  });

  it('without a price either, counts tokens alone and says the cost is unknown', async () => {
    const h = harness(replies.map((r): Reply => ({ ...r, noCost: true })));
    h.deps.budget = { maxTurnCost: 0.05, spentToday: () => 0, estimate: () => undefined };
    h.deps.askToContinue = () => Promise.resolve(false);
    const tally = newTally();
    const result = await runAgentLoop(history, h.deps, new AbortController().signal, tally);
    assert.deepEqual(result.end, { kind: 'answered' });
    assert.equal(tally.progress.cost, undefined);
    assert.equal(tally.progress.costUnreported, true);
    assert.equal(tally.progress.promptTokens, 50);
  });

  it('stops there, with every call answered, when the user says stop', async () => {
    const h = harness(replies);
    h.deps.budget = { maxTurnCost: 0.05, spentToday: () => 0 };
    h.deps.askToContinue = () => Promise.resolve(false);
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(result.end, { kind: 'budget', pause: { kind: 'turnCost', spent: 0.04, cap: 0.05 } });
    assert.equal(h.requests.length, 2);
    assertAnswered([...history, ...result.steps.flatMap(stepMessages)]);
  });

  it("counts a summary of earlier turns in the turn's cost, against its cap", async () => {
    const h = harness(replies);
    h.deps.budget = { maxTurnCost: 0.05, spentToday: () => 0 };
    h.deps.askToContinue = () => Promise.resolve(false);
    let summaries = 0;
    h.deps.compact = (messages) =>
      Promise.resolve(summaries++ === 0 ? { history: [...messages], cost: 0.03 } : undefined);
    const tally = newTally();
    const result = await runAgentLoop(history, h.deps, new AbortController().signal, tally);
    // The summary ($0.03) and one reply ($0.02): another reply would pass $0.05.
    assert.equal(h.requests.length, 1);
    assert.equal(result.end.kind, 'budget');
    const spent = result.end.kind === 'budget' ? result.end.pause.spent : undefined;
    assert.ok(Math.abs((spent ?? 0) - 0.05) < 1e-12, String(spent));
    assert.ok(Math.abs((tally.usage?.cost ?? 0) - 0.05) < 1e-12, "the turn's usage has the summary too");
  });

  it('checks the caps again after a summary, before the request it made room for', async () => {
    const h = harness(replies);
    const pauses: string[] = [];
    h.deps.budget = { maxTurnCost: 0.05, spentToday: () => 0 };
    h.deps.askToContinue = (progress) => {
      pauses.push(`${progress.pause?.kind} ${progress.pause?.spent.toFixed(2)}`);
      return Promise.resolve(false);
    };
    // The first reply costs $0.02; before the second request a summary costs $0.04.
    let calls = 0;
    h.deps.compact = (messages) =>
      Promise.resolve(++calls === 2 ? { history: [...messages], cost: 0.04 } : undefined);
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.equal(h.requests.length, 1, 'the second request was not sent');
    assert.equal(result.end.kind, 'budget');
    assert.deepEqual(pauses, ['turnCost 0.06']);
  });

  it("counts today's spending elsewhere against the daily cap, and asks once per turn", async () => {
    const h = harness(replies);
    const kinds: string[] = [];
    h.deps.budget = { maxDailyCost: 1, spentToday: () => 0.95 };
    h.deps.askToContinue = (progress) => {
      kinds.push(`${progress.pause?.kind} ${progress.pause?.spent.toFixed(2)}`);
      return Promise.resolve(true);
    };
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(result.end, { kind: 'answered' });
    assert.deepEqual(kinds, ['dayCost 0.99']);
  });

  it('a day already over its cap asks before the first request; no caps, no questions', async () => {
    const over = harness(replies);
    over.deps.budget = { maxDailyCost: 1, spentToday: () => 1.5 };
    over.deps.askToContinue = () => Promise.resolve(false);
    const stopped = await runAgentLoop(history, over.deps, new AbortController().signal);
    assert.equal(stopped.end.kind, 'budget');
    assert.equal(over.requests.length, 0);

    const free = harness(replies);
    free.deps.budget = { maxTurnCost: 0, maxDailyCost: 0, spentToday: () => 99 };
    free.deps.askToContinue = () => Promise.reject(new Error('not asked'));
    assert.deepEqual((await runAgentLoop(history, free.deps, new AbortController().signal)).end, {
      kind: 'answered',
    });
  });

  it('asks at the step cap, and allows as many steps again', async () => {
    const h = harness(replies, { maxSteps: 2 });
    const asked: unknown[] = [];
    h.deps.askToContinue = (progress) => {
      asked.push(progress.pause);
      return Promise.resolve(asked.length === 1);
    };
    const result = await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(asked, [
      { kind: 'steps', spent: 2, cap: 2 },
      { kind: 'steps', spent: 4, cap: 4 },
    ]);
    assert.deepEqual(result.end, { kind: 'stepCap', steps: 4 });
  });

  it('Stop while paused stops the turn', async () => {
    const h = harness(replies);
    const stop = new AbortController();
    h.deps.budget = { maxTurnCost: 0.01, spentToday: () => 0 };
    h.deps.askToContinue = (_progress, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('stopped')));
        stop.abort();
      });
    await assert.rejects(runAgentLoop(history, h.deps, stop.signal), AgentStopped);
  });

  it('lets the host add to each request, with the steps so far', async () => {
    const h = harness([read(1), { text: 'Done.' }]);
    const seen: number[] = [];
    h.deps.prepare = (messages, steps) => {
      seen.push(steps.length);
      return [{ role: 'system', content: `steps ${steps.length}` }, ...messages];
    };
    await runAgentLoop(history, h.deps, new AbortController().signal);
    assert.deepEqual(seen, [0, 1]);
    assert.deepEqual(
      h.requests.map((r) => r[0].content),
      ['steps 0', 'steps 1'],
    );
  });
});
