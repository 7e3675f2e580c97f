import * as assert from 'node:assert/strict';
import { GatewayError } from '../../../../src/api/errors';
import { DeltaBatcher } from '../../../../src/core/chat/deltaBatcher';
import { buildChatRequest } from '../../../../src/core/chat/requestBuilder';
import { toTurnError } from '../../../../src/core/chat/turnError';
import type { GatewaySettings } from '../../../../src/core/config/settingsModel';
import type { HostMessage } from '../../../../src/core/protocol/chatProtocol';

const base: GatewaySettings['chat'] = {
  model: 'a/b',
  models: [],
  systemPrompt: '',
  temperature: undefined,
  maxTokens: undefined,
  reasoningEffort: 'default',
  responseFormat: 'text',
  webSearch: false,
  provider: undefined,
  plugins: [],
  tools: [],
  imageInput: 'auto',
  forceParameters: false,
  promptCaching: true,
  compactionModel: '',
};

describe('chat request from settings', () => {
  const messages = [{ role: 'user' as const, content: 'hi' }];

  it('sends only model, messages and stream by default', () => {
    assert.deepEqual(buildChatRequest(base, 'v/m', messages), { model: 'v/m', messages, stream: true });
  });

  it('maps every chat setting to its interface parameter', () => {
    const tool = { type: 'function', function: { name: 'f', parameters: {} } };
    const request = buildChatRequest(
      {
        ...base,
        temperature: 0.3,
        maxTokens: 500,
        reasoningEffort: 'high',
        responseFormat: 'json_object',
        webSearch: true,
        provider: { order: ['openai'] },
        plugins: [{ id: 'file-parser' }],
        tools: [tool],
      },
      'v/m',
      messages,
    );
    assert.deepEqual(request, {
      model: 'v/m',
      messages,
      stream: true,
      temperature: 0.3,
      max_tokens: 500,
      reasoning: { effort: 'high' },
      response_format: { type: 'json_object' },
      provider: { order: ['openai'] },
      plugins: [{ id: 'file-parser' }, { id: 'web' }],
      tools: [tool],
    });
    assert.deepEqual(buildChatRequest({ ...base, reasoningEffort: 'none' }, 'v/m', messages).reasoning, {
      enabled: false,
    });
  });
});

describe('chat errors in words a user acts on', () => {
  it('offers Set API Key on 401 and on a missing key', () => {
    assert.deepEqual(
      toTurnError(new GatewayError({ kind: 'http', status: 401, message: 'bad key' })).actions,
      ['setApiKey', 'retry'],
    );
    assert.deepEqual(
      toTurnError(new GatewayError({ kind: 'config', message: 'No API key is set.' })).actions,
      ['setApiKey', 'retry'],
    );
  });

  it('keeps the wait of a 429 and the provider of a 5xx', () => {
    const limited = toTurnError(
      new GatewayError({ kind: 'http', status: 429, message: 'slow down', retryAfter: 7 }),
    );
    assert.equal(limited.retryAfter, 7);
    const upstream = toTurnError(
      new GatewayError({ kind: 'http', status: 502, message: 'provider failed', provider: 'Azure' }),
    );
    assert.equal(upstream.provider, 'Azure');
    assert.deepEqual(upstream.actions, ['retry']);
  });

  it('never shows a raw stack for an unexpected error', () => {
    const error = toTurnError(new TypeError('x is undefined'));
    assert.equal(error.message, 'Something went wrong: x is undefined');
    assert.ok(!error.message.includes('at '));
  });
});

describe('DeltaBatcher', () => {
  it('merges deltas and posts at most once per frame', async () => {
    const posted: HostMessage[] = [];
    const batcher = new DeltaBatcher('t1', (m) => posted.push(m), 10);
    for (let i = 0; i < 100; i++) batcher.add({ content: 'a' });
    batcher.add({ reasoning: 'r' });
    assert.equal(posted.length, 0);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(posted, [{ type: 'turnDelta', id: 't1', content: 'a'.repeat(100), reasoning: 'r' }]);
    batcher.flush();
    assert.equal(posted.length, 1, 'nothing new, nothing posted');
  });
});
