import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { toOpenAiMessages } from '../../../../src/core/lm/messages';
import type { LmMessage, LmPart } from '../../../../src/core/lm/messages';

const text = (value: string): LmPart => ({ kind: 'text', value });
const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);

describe('language-model messages → OpenAI messages', () => {
  it('maps user, assistant and system text to string content, with names', () => {
    const messages: LmMessage[] = [
      { role: 'system', parts: [text('Be brief.')] },
      { role: 'user', name: 'ada', parts: [text('Hello '), text('there')] },
      { role: 'assistant', parts: [text('Hi!')] },
    ];
    assert.deepEqual(toOpenAiMessages(messages), [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there', name: 'ada' },
      { role: 'assistant', content: 'Hi!' },
    ]);
  });

  it('sends an image data part as an image_url data: URL beside the text', () => {
    const [message] = toOpenAiMessages([
      { role: 'user', parts: [text('What is this?'), { kind: 'data', mimeType: 'image/png', data: png }] },
    ]);
    assert.deepEqual(message.content, [
      { type: 'text', text: 'What is this?' },
      {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` },
      },
    ]);
  });

  it('decodes text and JSON data parts, and drops other binary data', () => {
    const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
    const [message] = toOpenAiMessages([
      {
        role: 'user',
        parts: [
          text('a'),
          { kind: 'data', mimeType: 'text/plain', data: utf8('b') },
          { kind: 'data', mimeType: 'application/json', data: utf8('{"c":1}') },
          { kind: 'data', mimeType: 'cache_control', data: utf8('ephemeral') },
        ],
      },
    ]);
    assert.equal(message.content, 'ab{"c":1}');
  });

  it('maps tool calls to assistant tool_calls and tool results to role "tool" messages, in order', () => {
    const messages: LmMessage[] = [
      { role: 'user', parts: [text('Weather?')] },
      {
        role: 'assistant',
        parts: [
          { kind: 'toolCall', callId: 'c1', name: 'get_weather', input: { city: 'Paris' } },
          { kind: 'toolCall', callId: 'c2', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        parts: [
          { kind: 'toolResult', callId: 'c1', content: [text('18 °C')] },
          {
            kind: 'toolResult',
            callId: 'c2',
            content: [text('14:05'), { kind: 'data', mimeType: 'image/png', data: png }],
          },
          text('Thanks'),
        ],
      },
    ];
    const out = toOpenAiMessages(messages);
    assert.deepEqual(out.slice(0, 4), [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '18 °C' },
      { role: 'tool', tool_call_id: 'c2', content: '14:05' },
    ]);
    // A tool message cannot carry an image: it follows in the user message.
    assert.equal(out[4].role, 'user');
    assert.deepEqual(
      (out[4].content as Array<{ type: string }>).map((p) => p.type),
      ['image_url', 'text'],
    );
    assert.equal(out.length, 5);
  });

  it('leaves out thinking and unknown parts, and messages left empty', () => {
    const out = toOpenAiMessages([
      { role: 'assistant', parts: [{ kind: 'other' }] },
      { role: 'assistant', parts: [{ kind: 'other' }, text('Answer')] },
    ]);
    assert.deepEqual(out, [{ role: 'assistant', content: 'Answer' }]);
  });

  describe('at the boundary (property)', () => {
    const part: fc.Arbitrary<LmPart> = fc.letrec<{ part: LmPart }>((tie) => ({
      part: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.record({ kind: fc.constant('text' as const), value: fc.string() }),
        fc.record({
          kind: fc.constant('data' as const),
          mimeType: fc.constantFrom('image/png', 'image/jpeg', 'text/plain', 'application/json', 'x/y', ''),
          data: fc.uint8Array({ maxLength: 64 }),
        }),
        fc.record({
          kind: fc.constant('toolCall' as const),
          callId: fc.string({ minLength: 1 }),
          name: fc.string({ minLength: 1 }),
          input: fc.jsonValue(),
        }),
        fc.record({
          kind: fc.constant('toolResult' as const),
          callId: fc.string({ minLength: 1 }),
          content: fc.array(tie('part'), { maxLength: 3 }),
        }),
        fc.constant({ kind: 'other' as const }),
      ),
    })).part;
    const message: fc.Arbitrary<LmMessage> = fc.record({
      role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const),
      name: fc.option(fc.string(), { nil: undefined }),
      parts: fc.array(part, { maxLength: 6 }),
    });

    it('never throws, keeps every text, image, tool call and tool result, and emits valid JSON arguments', () => {
      fc.assert(
        fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
          const out = toOpenAiMessages(messages);
          const json = JSON.stringify(out);
          let images = 0;
          let calls = 0;
          let results = 0;
          const count = (parts: LmPart[], inToolResult: boolean) => {
            for (const p of parts) {
              if (p.kind === 'data' && /^image\//.test(p.mimeType)) images++;
              if (p.kind === 'toolCall' && !inToolResult) calls++;
              if (p.kind === 'toolResult' && !inToolResult) {
                results++;
                count(p.content, true);
              }
            }
          };
          for (const m of messages)
            count(
              m.role === 'assistant'
                ? m.parts.filter((p) => p.kind !== 'toolResult')
                : m.parts.filter((p) => p.kind !== 'toolCall'),
              false,
            );
          // Assistant messages carry no images or tool results; user and system carry no tool calls.
          const assistantImages = messages
            .filter((m) => m.role === 'assistant')
            .flatMap((m) => m.parts)
            .filter((p) => p.kind === 'data' && /^image\//.test(p.mimeType)).length;
          assert.equal((json.match(/"type":"image_url"/g) ?? []).length, images - assistantImages);
          assert.equal(out.flatMap((m) => m.tool_calls ?? []).length, calls);
          assert.equal(out.filter((m) => m.role === 'tool').length, results);
          for (const call of out.flatMap((m) => m.tool_calls ?? []))
            assert.doesNotThrow(() => JSON.parse(call.function.arguments));
          // Every text arrives (adjacent texts are joined, so each is a substring of the output).
          for (const p of messages.flatMap((m) => m.parts)) {
            if (p.kind === 'text')
              assert.ok(
                json.includes(JSON.stringify(p.value).slice(1, -1)),
                `text ${JSON.stringify(p.value)} is kept`,
              );
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
