/**
 * The agent loop's core with the real gateway client against the simulator's scripted model:
 * the history the loop builds (ids, every call answered, tools on every follow-up, the model's
 * own arguments) is one a provider accepts, step after step, and what the loop sends back
 * (results, errors, a denial's reason) is what the model reads. Fake tools, real wire.
 */
import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/api/types';
import { AgentStopped, newTally, runAgentLoop } from '../../../src/core/agent/agentLoop';
import type { AgentLoopDeps } from '../../../src/core/agent/agentLoop';
import type { ApprovalDecision, ToolCallRecord, ToolSpec } from '../../../src/core/agent/types';
import { makeClient, withSimulator } from './helpers';

const builtin = { kind: 'builtin' as const, id: 'gateway', label: 'Gateway AI' };
const SPECS: ToolSpec[] = [
  { name: 'read_file', readOnly: true },
  { name: 'edit_file', readOnly: false },
  { name: 'run_command', readOnly: false },
].map((t) => ({ ...t, description: t.name, parameters: { type: 'object' }, source: builtin }));

function prompt(steps: unknown[]): ChatMessage[] {
  return [{ role: 'user', content: `Go.\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\`` }];
}

describe('simulator: the agent loop against the scripted model, over the real client', () => {
  const ctx = withSimulator();

  function deps(
    decide: (call: ToolCallRecord) => ApprovalDecision = () => ({ choice: 'once' }),
    maxSteps = 25,
  ): AgentLoopDeps & { answer: () => string; asked: ToolCallRecord[] } {
    const { client } = makeClient(ctx.sim);
    let answer = '';
    const asked: ToolCallRecord[] = [];
    return {
      request: (messages, tools, signal) => {
        answer = '';
        return client.streamChat(
          {
            model: 'testvendor/echo-model',
            stream: true,
            messages,
            tools: tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          },
          { signal },
        );
      },
      tools: {
        specs: () => SPECS,
        prepare: (name, args) =>
          Promise.resolve({
            ...(name === 'run_command'
              ? { confirmation: { kind: 'command' as const, command: 'x', cwd: '/w', timeoutSeconds: 5 } }
              : {}),
            run: () =>
              Promise.resolve(
                name === 'read_file' && (args as { path?: string }).path === 'missing.txt'
                  ? { text: '"missing.txt" does not exist.', isError: true }
                  : { text: `${name} ran with ${JSON.stringify(args)}` },
              ),
          }),
      },
      needsApproval: (spec) => !spec.readOnly,
      approve: (call) => {
        asked.push({ ...call });
        return Promise.resolve(decide(call));
      },
      events: {
        delta: (delta) => {
          if (delta.type === 'content') answer += delta.text;
        },
        stepAdded: () => undefined,
        stepChanged: () => undefined,
        changed: () => undefined,
      },
      now: () => Date.now(),
      maxSteps,
      estimateTokens: (messages) => JSON.stringify(messages).length / 4,
      answer: () => answer,
      asked,
    };
  }

  it('reads in parallel, edits, is denied with a reason, and answers: every request valid', async () => {
    const before = ctx.sim.requests.length;
    const d = deps((call) =>
      call.name === 'run_command' ? { choice: 'deny', reason: 'not here, please' } : { choice: 'once' },
    );
    const tally = newTally();
    const result = await runAgentLoop(
      prompt([
        {
          calls: [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'read_file', arguments: { path: 'missing.txt' } },
          ],
        },
        { text: 'Editing.', calls: [{ name: 'edit_file', arguments: { path: 'a.txt' } }] },
        { calls: [{ name: 'run_command', arguments: { command: 'make' } }] },
        { text: 'Heard: {{results}} | first: {{result:1}}' },
      ]),
      d,
      new AbortController().signal,
      tally,
    );
    assert.equal(result.end.kind, 'answered');
    const requests = ctx.sim.requests.slice(before);
    assert.deepEqual(
      requests.map((r) => r.agentStep),
      [1, 2, 3, 4],
    );
    assert.ok(requests.every((r) => r.wireProblem === undefined));
    assert.ok(requests.every((r) => r.offeredTools?.join() === 'read_file,edit_file,run_command'));
    assert.deepEqual(
      requests[1].toolMessages?.map((m) => [m.callId, m.name]),
      [
        ['call_1', 'read_file'],
        ['call_2', 'read_file'],
      ],
    );
    assert.match(requests[1].toolMessages?.[1]?.content ?? '', /^Error: "missing\.txt" does not exist/);
    assert.deepEqual(
      d.asked.map((c) => c.name),
      ['edit_file', 'run_command'],
    );
    assert.equal(
      d.answer(),
      'Heard: [call_4 run_command] The user denied this call. Their reason: not here, please | first: read_file ran with {"path":"a.txt"}',
    );
    assert.ok((tally.progress.cost ?? 0) > 0, 'the turn’s cost moved');
    assert.equal(tally.progress.steps, 4);
  });

  it('feeds an unknown tool and bad JSON arguments back, and the provider accepts the history', async () => {
    const before = ctx.sim.requests.length;
    const d = deps();
    const result = await runAgentLoop(
      prompt([
        {
          calls: [
            { name: 'delete_everything', arguments: {} },
            { name: 'read_file', arguments: '{"path": "a.txt", ' },
          ],
        },
        { text: '{{results}}' },
      ]),
      d,
      new AbortController().signal,
    );
    assert.equal(result.end.kind, 'answered');
    const last = ctx.sim.requests.at(-1)!;
    assert.equal(last.wireProblem, undefined);
    assert.equal(ctx.sim.requests.length - before, 2);
    assert.match(
      d.answer(),
      /\[call_1 delete_everything\] Error: there is no tool named "delete_everything"/,
    );
    assert.match(d.answer(), /\[call_2 read_file\] Error: the arguments are not a JSON object/);
  });

  it('stops at the step cap, and pauses on the same call repeated', async () => {
    const before = ctx.sim.requests.length;
    const capped = await runAgentLoop(
      prompt([
        { calls: [{ name: 'read_file', arguments: '{"path":"a.txt","start_line":{{step}}}' }], repeat: true },
      ]),
      deps(undefined, 4),
      new AbortController().signal,
    );
    assert.deepEqual(capped.end, { kind: 'stepCap', steps: 4 });
    assert.equal(ctx.sim.requests.length - before, 4);

    const d = deps((call) => (call.note ? { choice: 'deny', reason: 'enough' } : { choice: 'once' }), 10);
    const paused = await runAgentLoop(
      prompt([{ calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }], repeat: true }]),
      d,
      new AbortController().signal,
    );
    // The first two ran without asking; the third identical call asked, with the loop's note,
    // and denying it ended the loop.
    assert.deepEqual(paused.end, { kind: 'repeatDenied' });
    assert.equal(d.asked.length, 1);
    assert.equal(d.asked[0]?.id, 'call_3');
    assert.match(d.asked[0].note ?? '', /3 times in a row/);
    assert.deepEqual(
      paused.steps.slice(0, 3).map((step) => step.calls[0].state),
      ['done', 'done', 'denied'],
    );
    assert.equal(ctx.sim.requests.at(-1)?.wireProblem, undefined);
  });

  it('Stop during a hanging step closes the connection and ends the loop', async () => {
    const controller = new AbortController();
    const d = deps();
    const before = ctx.sim.requests.length;
    const running = runAgentLoop(
      prompt([
        { calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { text: 'Thinking', hang: true },
      ]),
      d,
      controller.signal,
    );
    // The hang step's text has arrived: the second request is held open.
    while (!(d.answer().includes('Thinking') && ctx.sim.requests.length - before === 2))
      await new Promise((resolve) => setImmediate(resolve));
    const hanging = ctx.sim.requests[before + 1].id;
    controller.abort();
    await assert.rejects(running, (error) => error instanceof AgentStopped);
    await ctx.sim.waitForClosedConnection(hanging, 2000);
    assert.equal(ctx.sim.requests.length - before, 2);
  });
});
