/**
 * The model's own limits, not its top provider's, from three real OpenRouter catalog entries:
 * what the catalog keeps, what our language-model provider reports to VS Code, and where the
 * agent loop starts trimming (80% of the window).
 */
import * as assert from 'node:assert/strict';
import { parseCatalog } from '../../../../src/core/catalog/catalogCodec';
import { TRIM_AT, trimToolResults } from '../../../../src/core/agent/agentLoop';
import { toModelInfo } from '../../../../src/core/lm/modelInfo';
import type { ChatMessage } from '../../../../src/api/types';
import { OPENROUTER_LIMIT_ENTRIES } from './openrouterLimits.fixtures';

describe('True limits from the catalog', () => {
  const models = parseCatalog({ data: OPENROUTER_LIMIT_ENTRIES }) ?? [];
  const byId = new Map(models.map((m) => [m.id, m]));

  it('keeps each entry, and its top provider differs from it in every one', () => {
    assert.equal(models.length, 3);
    for (const entry of OPENROUTER_LIMIT_ENTRIES)
      assert.notEqual(entry.top_provider.context_length, entry.context_length, entry.id);
  });

  it("takes the model's own context_length, and the output limit where one is given", () => {
    assert.deepEqual(
      models.map((m) => [m.id, m.contextLength, m.maxCompletionTokens]),
      [
        ['z-ai/glm-5.3-flash', 1_048_576, 943_717],
        ['openrouter/auto', 2_000_000, undefined],
        ['qwen/qwen3-coder', 262_144, 66_536],
      ],
    );
  });

  it('reports the same limits to VS Code (the reply reserved out of the window)', () => {
    const info = (id: string) => {
      const { maxInputTokens, maxOutputTokens } = toModelInfo(id, byId.get(id));
      return [maxInputTokens, maxOutputTokens];
    };
    assert.deepEqual(info('z-ai/glm-5.3-flash'), [1_048_576 - 524_288, 524_288]);
    assert.deepEqual(info('openrouter/auto'), [2_000_000 - 8_192, 8_192]);
    assert.deepEqual(info('qwen/qwen3-coder'), [262_144 - 66_536, 66_536]);
  });

  it("trims old tool results at 80% of the model's window, not of its top provider's", () => {
    const context = byId.get('qwen/qwen3-coder')?.contextLength;
    assert.equal(context, 262_144);
    const tokens = (list: readonly ChatMessage[]) =>
      list.reduce((sum, m) => sum + (typeof m.content === 'string' ? m.content.length : 0), 0);
    const result = (n: number, size: number): ChatMessage => ({
      role: 'tool',
      tool_call_id: `call_${n}`,
      content: 'x'.repeat(size),
    });
    // 150,000 tokens: past 80% of the top provider's 128,000, well under 80% of 262,144.
    const history: ChatMessage[] = [
      { role: 'user', content: 'go' },
      result(1, 50_000),
      result(2, 50_000),
      result(3, 50_000),
    ];
    assert.ok(tokens(history) > 128_000 * TRIM_AT && tokens(history) < 262_144 * TRIM_AT);
    assert.equal(trimToolResults(history, context, tokens), history);
    // Past 80% of the real window, the oldest result goes first.
    const more = [...history, result(4, 70_000)];
    const trimmed = trimToolResults(more, context, tokens);
    assert.match(String(trimmed[1].content), /^\[Trimmed to fit/);
    assert.equal(trimmed[2].content, more[2].content);
  });
});
