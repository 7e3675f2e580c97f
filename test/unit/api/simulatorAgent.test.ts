import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { agentReply, parseAgentScript, toolWireProblem } from '../../simulator/agentScript';
import type { AgentScript } from '../../simulator/agentScript';
import { withSimulator } from './helpers';

const TOOLS = ['read_file', 'edit_file', 'run_command'].map((name) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: {} } },
}));

function fenced(steps: unknown): string {
  return `Do the task.\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\`\n`;
}

interface Streamed {
  status: number;
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
  /** How many chunks carried a piece of each call's arguments, by index. */
  argumentChunks: number[];
  finishReason: string | null;
  usage?: { cost?: number };
  error?: string;
}

/** Reads a streamed reply the way a client merges it: tool-call deltas by `index`. */
async function stream(
  origin: string,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Streamed> {
  const response = await fetch(`${origin}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-agent', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'testvendor/echo-model', stream: true, ...body }),
    signal,
  });
  const result: Streamed = {
    status: response.status,
    text: '',
    calls: [],
    argumentChunks: [],
    finishReason: null,
  };
  if (response.status !== 200) {
    result.error = ((await response.json()) as { error: { message: string } }).error.message;
    return result;
  }
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as {
      usage?: { cost?: number };
      choices: Array<{
        finish_reason: string | null;
        delta: {
          content?: string | null;
          tool_calls?: Array<{ index: number; id?: string; function: { name?: string; arguments?: string } }>;
        };
      }>;
    };
    if (chunk.usage) result.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    result.text += choice.delta.content ?? '';
    for (const delta of choice.delta.tool_calls ?? []) {
      const call = (result.calls[delta.index] ??= { id: '', name: '', arguments: '' });
      if (delta.id) call.id = delta.id;
      if (delta.function.name) call.name = delta.function.name;
      if (delta.function.arguments) {
        call.arguments += delta.function.arguments;
        result.argumentChunks[delta.index] = (result.argumentChunks[delta.index] ?? 0) + 1;
      }
    }
    if (choice.finish_reason) result.finishReason = choice.finish_reason;
  }
  return result;
}

/** The assistant message a client sends back for a streamed reply with calls. */
function assistantWith(reply: Streamed): Record<string, unknown> {
  return {
    role: 'assistant',
    content: reply.text || null,
    tool_calls: reply.calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    })),
  };
}

describe('simulator: the scripted tool-calling model (sim-agent)', () => {
  const ctx = withSimulator();

  it('parses a script: an array or {steps}, object or raw-string arguments, hang and repeat', () => {
    const script = parseAgentScript(
      fenced([
        {
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'x', arguments: '{"bad' },
          ],
        },
        { text: 'wait', hang: true },
        { calls: [{ name: 'read_file' }], repeat: true, reasoning: 'Why: {{step}}' },
      ]),
    );
    assert.deepEqual(script, {
      steps: [
        {
          text: '',
          calls: [
            { name: 'read_file', arguments: '{"path":"a.txt"}' },
            { name: 'x', arguments: '{"bad' },
          ],
          reasoning: '',
          hang: false,
          repeat: false,
        },
        { text: 'wait', reasoning: '', calls: [], hang: true, repeat: false },
        {
          text: '',
          reasoning: 'Why: {{step}}',
          calls: [{ name: 'read_file', arguments: '{}' }],
          hang: false,
          repeat: true,
        },
      ],
    });
    assert.deepEqual(parseAgentScript(fenced({ steps: [{ text: 'hi' }] })), {
      steps: [{ text: 'hi', reasoning: '', calls: [], hang: false, repeat: false }],
    });
    assert.equal(parseAgentScript('no script here'), undefined);
    assert.match((parseAgentScript('```sim-agent\n[oops\n```') as { error: string }).error, /not JSON/);
    assert.match((parseAgentScript(fenced([])) as { error: string }).error, /non-empty/);
    assert.match((parseAgentScript(fenced([{ calls: [{}] }])) as { error: string }).error, /Step 1: .*name/);
  });

  it('never throws on arbitrary scripts or request bodies', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (script, body) => {
        const parsed = parseAgentScript(`\`\`\`sim-agent\n${JSON.stringify(script)}\n\`\`\``);
        const messages = [{ role: 'user', content: 'x' }, ...(Array.isArray(body) ? body : [body])];
        const problem = toolWireProblem({ messages, tools: body }, new Set());
        assert.ok(problem === undefined || typeof problem === 'string');
        if (parsed && !('error' in parsed)) agentReply(parsed, messages, 0);
      }),
    );
  });

  it('streams a step as OpenAI tool_calls deltas: ids, indexes, split arguments, finish_reason, cost', async () => {
    const prompt = fenced([
      {
        text: 'Reading both.',
        calls: [
          { name: 'read_file', arguments: { path: 'notes.txt', start_line: 1, end_line: 40 } },
          { name: 'read_file', arguments: { path: 'other/long-name.txt' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const reply = await stream(ctx.sim.origin, {
      messages: [{ role: 'user', content: prompt }],
      tools: TOOLS,
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.text, 'Reading both.');
    assert.deepEqual(reply.calls, [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"notes.txt","start_line":1,"end_line":40}' },
      { id: 'call_2', name: 'read_file', arguments: '{"path":"other/long-name.txt"}' },
    ]);
    assert.ok(
      reply.argumentChunks.every((n) => n > 1),
      `arguments in several chunks: ${reply.argumentChunks.join()}`,
    );
    assert.equal(reply.finishReason, 'tool_calls');
    assert.ok((reply.usage?.cost ?? 0) > 0, 'usage with cost');
    const record = ctx.sim.requests.at(-1)!;
    assert.equal(record.agentStep, 1);
    assert.deepEqual(record.offeredTools, ['read_file', 'edit_file', 'run_command']);
    assert.equal(record.toolMessages, undefined);
  });

  it('answers the next step after the tool results, with {{results}} and {{result:N}} filled in', async () => {
    const prompt = fenced([
      {
        calls: [
          { name: 'read_file', arguments: { path: 'a' } },
          { name: 'read_file', arguments: { path: 'b' } },
        ],
      },
      { text: 'Then {{step}}.', calls: [{ name: 'run_command', arguments: { command: 'echo {{step}}' } }] },
      { text: 'Last: {{results}} / first: {{result:1}} / missing: {{result:9}}' },
    ]);
    const messages: unknown[] = [{ role: 'user', content: prompt }];
    const first = await stream(ctx.sim.origin, { messages, tools: TOOLS });
    messages.push(
      assistantWith(first),
      { role: 'tool', tool_call_id: 'call_1', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'beta' }] },
    );
    const second = await stream(ctx.sim.origin, { messages, tools: TOOLS });
    assert.equal(second.text, 'Then 2.');
    assert.deepEqual(second.calls, [
      { id: 'call_3', name: 'run_command', arguments: '{"command":"echo 2"}' },
    ]);
    assert.deepEqual(ctx.sim.requests.at(-1)?.toolMessages, [
      { callId: 'call_1', name: 'read_file', content: 'alpha' },
      { callId: 'call_2', name: 'read_file', content: 'beta' },
    ]);
    messages.push(assistantWith(second), {
      role: 'tool',
      tool_call_id: 'call_3',
      content: 'Denied by the user: not now',
    });
    const last = await stream(ctx.sim.origin, { messages, tools: TOOLS });
    assert.equal(last.finishReason, 'stop');
    assert.deepEqual(last.calls, []);
    assert.equal(
      last.text,
      'Last: [call_3 run_command] Denied by the user: not now / first: alpha / missing: (no result for call_9)',
    );
    assert.equal(ctx.sim.requests.at(-1)?.agentStep, 3);
    // Past the end of the script: a text reply that says so.
    messages.push({ role: 'assistant', content: last.text }, { role: 'user', content: prompt });
    const again = await stream(ctx.sim.origin, { messages, tools: TOOLS });
    assert.deepEqual(
      again.calls.map((c) => c.id),
      ['call_4', 'call_5'],
      'ids stay unique in the conversation',
    );
  });

  it('sends raw-string arguments exactly, so a client can be fed invalid JSON', async () => {
    const reply = await stream(ctx.sim.origin, {
      messages: [
        {
          role: 'user',
          content: fenced([{ calls: [{ name: 'edit_file', arguments: '{"path": "a.txt", ' }] }]),
        },
      ],
      tools: TOOLS,
    });
    assert.equal(reply.calls[0].arguments, '{"path": "a.txt", ');
  });

  it('repeats a repeat step for ever and says when a script ran out', () => {
    const script = parseAgentScript(
      fenced([
        { text: 'go' },
        { calls: [{ name: 'read_file', arguments: { line: '{{step}}' } }], repeat: true },
      ]),
    ) as AgentScript;
    const messages: unknown[] = [{ role: 'user', content: 'x' }];
    for (let n = 0; n < 30; n++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `call_${n + 1}`, type: 'function', function: { name: 'read_file', arguments: '{}' } },
        ],
      });
      messages.push({ role: 'tool', tool_call_id: `call_${n + 1}`, content: 'ok' });
    }
    const reply = agentReply(script, messages, 0);
    assert.equal(reply.step, 31);
    assert.deepEqual(reply.calls, [{ id: 'call_31', name: 'read_file', arguments: '{"line":"31"}' }]);
    assert.equal(reply.reasoning, '', 'no reasoning unless the step has some');
    const reasoned = parseAgentScript(fenced([{ reasoning: 'Because {{step}}', text: 'ok' }])) as AgentScript;
    assert.equal(agentReply(reasoned, [{ role: 'user', content: 'x' }], 0).reasoning, 'Because 1');
    const short = parseAgentScript(fenced([{ calls: [{ name: 'read_file' }] }])) as AgentScript;
    assert.match(agentReply(short, messages, 0).text, /has 1 steps; this was step 31/);
  });

  it('hangs on a hang step until the client goes away', async () => {
    const controller = new AbortController();
    const response = await fetch(`${ctx.sim.origin}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-agent', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'testvendor/echo-model',
        stream: true,
        messages: [{ role: 'user', content: fenced([{ text: 'Thinking hard', hang: true }]) }],
      }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('Thinking')) {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value);
    }
    assert.doesNotMatch(seen, /finish_reason":"stop|\[DONE\]/);
    const request = ctx.sim.requests.at(-1)!;
    controller.abort();
    const closed = await ctx.sim.waitForClosedConnection(request.id, 2000);
    assert.equal(closed.requestId, request.id);
  });

  it('refuses with 400, as a provider does, a tool conversation that breaks the wire rules', async () => {
    const prompt = fenced([{ calls: [{ name: 'read_file' }, { name: 'read_file' }] }, { text: 'ok' }]);
    const first = await stream(ctx.sim.origin, {
      messages: [{ role: 'user', content: prompt }],
      tools: TOOLS,
    });
    const asked = assistantWith(first);
    const both = [
      { role: 'tool', tool_call_id: 'call_1', content: 'one' },
      { role: 'tool', tool_call_id: 'call_2', content: 'two' },
    ];
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'a call left unanswered',
        { messages: [{ role: 'user', content: prompt }, asked, both[0]], tools: TOOLS },
        /did not have response messages: call_2/,
      ],
      [
        'no tools on the follow-up',
        { messages: [{ role: 'user', content: prompt }, asked, ...both] },
        /must define tools/,
      ],
      [
        'a call answered twice',
        { messages: [{ role: 'user', content: prompt }, asked, ...both, both[0]], tools: TOOLS },
        /answers tool_call_id "call_1", which .* answered already/,
      ],
      [
        'a result for no call',
        {
          messages: [
            { role: 'user', content: prompt },
            asked,
            ...both,
            { role: 'assistant', content: 'x' },
            both[0],
          ],
          tools: TOOLS,
        },
        /role 'tool' must be a response/,
      ],
      [
        'a duplicate tool name',
        { messages: [{ role: 'user', content: prompt }], tools: [...TOOLS, TOOLS[0]] },
        /unique/,
      ],
      [
        'an invalid tool name',
        {
          messages: [{ role: 'user', content: prompt }],
          tools: [{ type: 'function', function: { name: 'read file' } }],
        },
        /does not match pattern/,
      ],
      [
        'a call renamed in the history',
        {
          messages: [
            { role: 'user', content: prompt },
            {
              ...asked,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'gateway_read', arguments: '{}' } },
              ],
            },
            both[0],
          ],
          tools: TOOLS,
        },
        /calls 'gateway_read', which the request's tools do not declare/,
      ],
      [
        'arguments that are not a string',
        {
          messages: [
            { role: 'user', content: prompt },
            {
              ...asked,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: {} } },
              ],
            },
            both[0],
          ],
          tools: TOOLS,
        },
        /string arguments/,
      ],
    ];
    for (const [what, body, expected] of cases) {
      const reply = await stream(ctx.sim.origin, body);
      assert.equal(reply.status, 400, what);
      assert.match(reply.error ?? '', expected, what);
      assert.match(ctx.sim.requests.at(-1)?.wireProblem ?? '', expected, what);
    }
    const valid = await stream(ctx.sim.origin, {
      messages: [{ role: 'user', content: prompt }, asked, ...both],
      tools: TOOLS,
    });
    assert.equal(valid.status, 200);
    assert.equal(valid.text, 'ok');
  });
});
