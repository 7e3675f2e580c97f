import * as assert from 'node:assert/strict';
import {
  assistantTurn,
  newConversation,
  titleFrom,
  toApiMessages,
  toMarkdown,
  userTurn,
} from '../../../../src/core/chat/conversation';
import { explainPrompt } from '../../../../src/core/chat/explainPrompt';

describe('conversation', () => {
  it('titles a chat from the first line of its first prompt, shortened', () => {
    assert.equal(titleFrom('\n  How do I **sort** a list?\nmore'), 'How do I sort a list?');
    const long = titleFrom('x'.repeat(200));
    assert.ok(long.length <= 60 && long.endsWith('…'));
    assert.equal(titleFrom('   '), 'New chat');
  });

  it('builds the messages: system prompt, user turns, replies with text only', () => {
    const failed = { ...assistantTurn('a/b'), status: 'error' as const };
    const ok = { ...assistantTurn('a/b'), content: 'answer', status: 'complete' as const };
    const turns = [userTurn('q1'), failed, userTurn('q2'), ok, userTurn('q3')];
    assert.deepEqual(toApiMessages(turns, 'be brief'), [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'q1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'q3' },
    ]);
    assert.equal(toApiMessages(turns, '  ')[0].role, 'user');
  });

  it('exports as Markdown with reasoning, stop marks, errors and usage', () => {
    const c = newConversation();
    c.title = 'Sorting';
    c.turns.push(userTurn('How?'), {
      ...assistantTurn('openai/gpt-4o'),
      content: 'Like this.',
      reasoning: 'thinking',
      status: 'stopped',
      usage: { promptTokens: 10, completionTokens: 5, cost: 0.00123 },
    });
    const md = toMarkdown(c);
    assert.match(md, /^# Sorting/);
    assert.match(md, /## You\n\nHow\?/);
    assert.match(md, /## openai\/gpt-4o\n/);
    assert.match(md, /<summary>Reasoning<\/summary>\n\nthinking/);
    assert.match(md, /_\(stopped\)_/);
    assert.match(md, /10 tokens in, 5 out, \$0\.0012/);
  });

  it('explain prompt fences the code with a fence longer than any backtick run inside', () => {
    const prompt = explainPrompt({
      code: 'const s = ```x```;',
      languageId: 'typescript',
      fileName: 'src/a.ts',
    });
    assert.match(prompt, /Explain this typescript code from `src\/a\.ts`/);
    assert.match(prompt, /\n````typescript\nconst s = ```x```;\n````$/);
  });
});
