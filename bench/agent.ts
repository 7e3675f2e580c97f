/**
 * The agent loop's own cost per step, in plain Node: the core loop (`runAgentLoop`) driving a
 * 50-step turn whose gateway and tools answer at once, so what is left is the loop's work:
 * reading the step, checking arguments, the approval policy, answering every call, rebuilding
 * and trimming the history for the next request. The peer is the panel without tools in the
 * same run: the same replies read as plain replies (one request, no calls). Goal: ≤ 5 ms a step.
 */
import { performance } from 'node:perf_hooks';
import type { ChatDelta, ChatMessage } from '../src/api/types';
import { runAgentLoop } from '../src/core/agent/agentLoop';
import type { ToolSpec } from '../src/core/agent/types';
import { estimateTokens } from '../src/core/chat/attachments';
import { median, round } from './report';
import type { SectionResult } from './report';

const STEPS = 50;
const ROUNDS = 7;
const RESULT = 'line of a file that was read\n'.repeat(80);
const source = { kind: 'builtin' as const, id: 'gateway', label: 'Gateway AI' };
const specs: ToolSpec[] = ['read_file', 'list_files', 'search_text', 'edit_file', 'run_command'].map(
  (name) => ({
    name,
    description: `${name} tool`,
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
    source,
    readOnly: name !== 'edit_file' && name !== 'run_command',
  }),
);

/** One reply as the client yields it: meta, 30 pieces of text, two calls (or none), finish, usage. */
function reply(step: number, calls: boolean): ChatDelta[] {
  const out: ChatDelta[] = [{ type: 'meta', id: `gen-${step}` }];
  for (let i = 0; i < 30; i++) out.push({ type: 'content', text: `word${i} ` });
  if (calls)
    out.push({
      type: 'tool_calls',
      toolCalls: [
        {
          index: 0,
          id: `a${step}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"src/f${step}.ts"}` },
        },
        {
          index: 1,
          id: `b${step}`,
          type: 'function',
          function: { name: 'edit_file', arguments: `{"path":"src/f${step}.ts"}` },
        },
      ],
    });
  out.push({ type: 'finish', reason: calls ? 'tool_calls' : 'stop' });
  out.push({ type: 'usage', usage: { prompt_tokens: 1000, completion_tokens: 50, cost: 0.001 } });
  return out;
}

async function* stream(items: ChatDelta[]): AsyncGenerator<ChatDelta> {
  for (const item of items) yield await Promise.resolve(item);
}

const history: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the build.' },
];

async function agentTurn(): Promise<number> {
  let n = 0;
  const started = performance.now();
  await runAgentLoop(
    history,
    {
      request: () => stream(reply(n, ++n < STEPS)),
      tools: {
        specs: () => specs,
        prepare: () => Promise.resolve({ run: () => Promise.resolve({ text: RESULT }) }),
      },
      needsApproval: (spec) => !spec.readOnly,
      approve: () => Promise.resolve({ choice: 'once' }),
      events: {
        delta: () => undefined,
        stepAdded: () => undefined,
        stepChanged: () => undefined,
        changed: () => undefined,
      },
      now: () => performance.now(),
      maxSteps: STEPS + 1,
      contextLength: 200_000,
      estimateTokens: (messages) =>
        messages.reduce((t, m) => t + estimateTokens(typeof m.content === 'string' ? m.content : ''), 0),
    },
    new AbortController().signal,
  );
  return (performance.now() - started) / STEPS;
}

/** The panel without tools: the same replies read one after another as plain replies. */
async function plainReplies(): Promise<number> {
  const started = performance.now();
  for (let n = 0; n < STEPS; n++) {
    let text = '';
    for await (const delta of stream(reply(n, false))) if (delta.type === 'content') text += delta.text;
    if (!text) throw new Error('no text');
  }
  return (performance.now() - started) / STEPS;
}

export async function benchAgent(): Promise<SectionResult> {
  await agentTurn();
  await plainReplies();
  const loop: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    loop.push(await agentTurn());
    plain.push(await plainReplies());
  }
  const perStep = median(loop);
  const perReply = median(plain);
  const overhead = Math.max(0, perStep - perReply);
  return {
    rows: [
      {
        name: `Agent loop: time per step of a ${STEPS}-step turn (tools and gateway instant)`,
        value: round(perStep, 3),
        unit: 'ms',
        peer: 'the same replies read as plain replies (panel without tools)',
        ratio: round(perStep / perReply, 1),
      },
      {
        name: "Agent loop: the loop's own overhead per step",
        value: round(overhead, 3),
        unit: 'ms',
        goal: '≤ 5 ms',
        ratio: round(overhead / 5, 3),
        met: overhead <= 5,
      },
    ],
    notes: [
      `Median of ${ROUNDS} rounds; a plain reply of the same size takes ${round(perReply, 3)} ms to read. Each step reads 30 text pieces and 2 calls, answers a ${RESULT.length}-character result and rebuilds the whole history.`,
    ],
  };
}
