import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ChatMessage } from '../../../../src/api/types';
import { buildChatRequest } from '../../../../src/core/chat/requestBuilder';
import {
  countCacheBreakpoints,
  LARGE_PART_CHARS,
  MAX_CACHE_BREAKPOINTS,
  needsCacheBreakpoints,
  withCacheBreakpoints,
} from '../../../../src/core/cost/promptCache';
import { buildLmRequest } from '../../../../src/core/lm/request';

const EPHEMERAL = { type: 'ephemeral' };

/** Every word of a message, in order, whatever form its content takes. */
function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content
    .map((part) => (part && typeof part === 'object' && 'text' in part ? String(part.text) : ''))
    .join('');
}

describe('prompt caching: where the cache_control marks go', () => {
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'First question' },
    { role: 'assistant', content: 'First answer' },
    { role: 'user', content: 'Second question' },
  ];

  it('marks the system prompt and the last user message of an Anthropic model, in the parts form', () => {
    const marked = withCacheBreakpoints(conversation, 'anthropic/claude-sonnet-4');
    assert.deepEqual(marked[0], {
      role: 'system',
      content: [{ type: 'text', text: 'You are terse.', cache_control: EPHEMERAL }],
    });
    assert.deepEqual(marked[3], {
      role: 'user',
      content: [{ type: 'text', text: 'Second question', cache_control: EPHEMERAL }],
    });
    assert.deepEqual(marked.slice(1, 3), conversation.slice(1, 3));
    assert.equal(countCacheBreakpoints(marked), 2);
    assert.equal(conversation[0].content, 'You are terse.', 'the input is untouched');
  });

  it('marks Gemini through the gateway too, and leaves automatic-caching models alone', () => {
    assert.equal(countCacheBreakpoints(withCacheBreakpoints(conversation, 'google/gemini-2.5-flash')), 2);
    for (const model of ['openai/gpt-4o-mini', 'deepseek/deepseek-chat', 'x-ai/grok-4', 'google/veo-3'])
      assert.deepEqual(withCacheBreakpoints(conversation, model), conversation, model);
    assert.equal(needsCacheBreakpoints('openai/gpt-4o', true), true, 'a catalog hint wins');
    assert.equal(needsCacheBreakpoints('anthropic/claude', false), false);
  });

  it('marks large attachments, at most four marks in all, and keeps a caller’s own marks', () => {
    const big = 'x'.repeat(LARGE_PART_CHARS);
    const user: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'Look at these' },
        { type: 'text', text: big },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'text', text: big },
        { type: 'text', text: big },
      ],
    };
    const marked = withCacheBreakpoints(
      [{ role: 'system', content: 'S' }, user],
      'anthropic/claude-3.5-haiku',
    );
    assert.equal(countCacheBreakpoints(marked), MAX_CACHE_BREAKPOINTS);
    const own: ChatMessage = {
      role: 'user',
      content: [{ type: 'text', text: 'mine', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    };
    const withOwn = withCacheBreakpoints(
      [own, own, own, own, { role: 'user', content: 'next' }],
      'anthropic/x',
    );
    assert.equal(countCacheBreakpoints(withOwn), 4, 'no room left: nothing added');
    assert.deepEqual(withOwn[4], { role: 'user', content: 'next' });
  });

  it('the chat request marks prompts unless the setting is off; the language-model request too', () => {
    const chat = { promptCaching: true } as Parameters<typeof buildChatRequest>[0];
    const on = buildChatRequest(
      { ...chat, plugins: [], tools: [] },
      'anthropic/claude-sonnet-4',
      conversation,
    );
    assert.equal(countCacheBreakpoints(on.messages), 2);
    const off = buildChatRequest(
      { ...chat, promptCaching: false, plugins: [], tools: [] },
      'anthropic/claude-sonnet-4',
      conversation,
    );
    assert.equal(countCacheBreakpoints(off.messages), 0);
    const settings = { reasoningEffort: 'default' as const, provider: undefined, plugins: [] };
    const lm = buildLmRequest({
      model: 'anthropic/claude-sonnet-4',
      messages: conversation,
      settings: { ...settings, promptCaching: true },
    });
    assert.equal(countCacheBreakpoints(lm.messages), 2);
    assert.equal(
      countCacheBreakpoints(
        buildLmRequest({ model: 'anthropic/x', messages: conversation, settings }).messages,
      ),
      0,
    );
  });

  const part = fc.oneof(
    fc.record({
      type: fc.constant('text'),
      text: fc.oneof(fc.string(), fc.constant('y'.repeat(LARGE_PART_CHARS))),
    }),
    fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url: fc.string() }) }),
    fc.record({ type: fc.constant('text'), text: fc.string(), cache_control: fc.constant(EPHEMERAL) }),
    fc.jsonValue(),
  );
  const message = fc.record({
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    content: fc.oneof(fc.string(), fc.constant(null), fc.array(part, { maxLength: 6 })),
  }) as fc.Arbitrary<ChatMessage>;

  it('never adds past four marks, never changes a word, never touches its input (property)', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 12 }),
        fc.constantFrom('anthropic/claude-sonnet-4', 'google/gemini-2.5-pro', 'openai/gpt-4o'),
        (messages, model) => {
          const before = JSON.stringify(messages);
          const marked = withCacheBreakpoints(messages, model);
          assert.equal(JSON.stringify(messages), before, 'input unchanged');
          assert.equal(marked.length, messages.length);
          const had = countCacheBreakpoints(messages);
          const now = countCacheBreakpoints(marked);
          assert.ok(now >= had);
          assert.ok(now <= Math.max(had, MAX_CACHE_BREAKPOINTS), `${now} marks`);
          marked.forEach((m, i) => {
            assert.equal(m.role, messages[i].role);
            assert.equal(textOf(m), textOf(messages[i]));
          });
          if (!needsCacheBreakpoints(model)) assert.deepEqual(marked, messages);
        },
      ),
    );
  });
});
