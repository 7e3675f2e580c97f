import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { GatewayError } from '../../../../src/api/errors';
import type { ChatDelta, ToolCall } from '../../../../src/api/types';
import { ReplyAssembler, ToolCallAssembler } from '../../../../src/core/lm/replyParts';
import type { ReplyPart } from '../../../../src/core/lm/replyParts';

const call = (index: number, id: string, name: string, args: string): ToolCall => ({
  index,
  id,
  type: 'function',
  function: { name, arguments: args },
});

describe('reply deltas → language-model response parts', () => {
  it('reports text and reasoning as separate parts, and keeps the usage', () => {
    const reply = new ReplyAssembler();
    const deltas: ChatDelta[] = [
      { type: 'meta', id: 'g1', model: 'a/b', provider: 'P' },
      { type: 'reasoning', text: 'Thinking…' },
      { type: 'content', text: 'Hel' },
      { type: 'content', text: 'lo' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2, cost: 0.001 } },
    ];
    const parts = deltas.flatMap((d) => reply.push(d));
    assert.deepEqual(parts, [
      { kind: 'thinking', value: 'Thinking…' },
      { kind: 'text', value: 'Hel' },
      { kind: 'text', value: 'lo' },
    ]);
    assert.deepEqual(reply.finish(), []);
    assert.equal(reply.usage?.cost, 0.001);
    assert.equal(reply.provider, 'P');
    assert.equal(reply.finishReason, 'stop');
  });

  it('reports each tool call once, as soon as its arguments are a complete JSON object', () => {
    const tools = new ToolCallAssembler();
    assert.deepEqual(tools.update([call(0, 'a', 'get_weather', '{"city":')]), []);
    assert.deepEqual(
      tools.update([call(0, 'a', 'get_weather', '{"city":"Paris"'), call(1, 'b', 'get_time', '{}')]),
      [{ kind: 'toolCall', callId: 'b', name: 'get_time', input: {} }],
    );
    assert.deepEqual(
      tools.update([call(0, 'a', 'get_weather', '{"city":"Paris"}'), call(1, 'b', 'get_time', '{}')]),
      [{ kind: 'toolCall', callId: 'a', name: 'get_weather', input: { city: 'Paris' } }],
    );
    assert.deepEqual(tools.finish(), []);
  });

  it('at the end, reports calls without arguments as {} and fails on arguments that never became JSON', () => {
    const empty = new ToolCallAssembler();
    empty.update([call(0, '', 'ping', '')]);
    assert.deepEqual(empty.finish(), [{ kind: 'toolCall', callId: 'call_0', name: 'ping', input: {} }]);
    const broken = new ToolCallAssembler();
    broken.update([call(0, 'x', 'get_weather', '{"city": "Par')]);
    assert.throws(
      () => broken.finish(),
      (e: unknown) => GatewayError.is(e) && /get_weather.*not a JSON object/.test(e.message),
    );
    const array = new ToolCallAssembler();
    array.update([call(0, 'x', 'f', '[1,2]')]);
    assert.throws(() => array.finish(), /not a JSON object/);
  });

  it('whatever the fragmenting, every call arrives once with its exact input (property)', () => {
    const argsObject = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 8 }),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.string({ minLength: 1, maxLength: 10 }),
            input: argsObject,
            cuts: fc.array(fc.nat(), { maxLength: 6 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (calls) => {
          // Each call's JSON is cut into fragments; the fragments of all calls interleave round-robin.
          const pieces = calls.map((c) => {
            const json = JSON.stringify(c.input);
            const at = [...new Set(c.cuts.map((n) => n % (json.length + 1)))].sort((a, b) => a - b);
            const out: string[] = [];
            let from = 0;
            for (const cut of at) {
              out.push(json.slice(from, cut));
              from = cut;
            }
            out.push(json.slice(from));
            return out;
          });
          const merged = calls.map((c, i) => call(i, `id${i}`, c.name, ''));
          const tools = new ToolCallAssembler();
          const reported: ReplyPart[] = [];
          const longest = Math.max(...pieces.map((p) => p.length));
          for (let step = 0; step < longest; step++) {
            pieces.forEach((list, i) => {
              if (step < list.length) merged[i].function.arguments += list[step];
            });
            reported.push(...tools.update(merged));
          }
          reported.push(...tools.finish());
          assert.equal(reported.length, calls.length);
          const byId = new Map(reported.map((r) => [r.kind === 'toolCall' ? r.callId : '', r]));
          calls.forEach((c, i) => {
            const part = byId.get(`id${i}`);
            assert.ok(part && part.kind === 'toolCall');
            assert.equal(part.name, c.name);
            assert.deepEqual(part.input, JSON.parse(JSON.stringify(c.input)));
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
