import * as assert from 'node:assert/strict';
import { GatewayError } from '../../../../src/api/errors';
import { toLmFailure } from '../../../../src/core/lm/errors';
import { buildLmRequest, TOOL_MODE_REQUIRED } from '../../../../src/core/lm/request';
import { estimateMessageTokens, estimateTextTokens, IMAGE_TOKENS } from '../../../../src/core/lm/tokens';

const settings = { reasoningEffort: 'default' as const, provider: undefined, plugins: [] };
const messages = [{ role: 'user' as const, content: 'hi' }];

describe('language-model request', () => {
  it('sends model, messages and stream, and nothing else by default', () => {
    assert.deepEqual(buildLmRequest({ model: 'a/b', messages, settings }), {
      model: 'a/b',
      messages,
      stream: true,
    });
  });

  it("applies provider, plugins and reasoning effort, and passes the caller's model options through", () => {
    const request = buildLmRequest({
      model: 'a/b',
      messages,
      settings: { reasoningEffort: 'none', provider: { order: ['x'] }, plugins: [{ id: 'web' }] },
      modelOptions: {
        temperature: 0.2,
        reasoning: { effort: 'high' },
        model: 'evil/override',
        stream: false,
        messages: [],
      },
    });
    assert.deepEqual(request, {
      model: 'a/b',
      messages,
      stream: true,
      // The caller's options win over the settings, but cannot replace what the request is.
      reasoning: { effort: 'high' },
      provider: { order: ['x'] },
      plugins: [{ id: 'web' }],
      temperature: 0.2,
    });
    assert.deepEqual(
      buildLmRequest({ model: 'a/b', messages, settings: { ...settings, reasoningEffort: 'low' } }).reasoning,
      { effort: 'low' },
    );
  });

  it('maps tools to OpenAI functions and the tool mode to tool_choice', () => {
    const tools = [
      {
        name: 'f',
        description: 'does f',
        inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
      },
      { name: 'g', description: 'g' },
    ];
    const auto = buildLmRequest({ model: 'a/b', messages, settings, tools, toolMode: 1 });
    assert.deepEqual(auto.tools, [
      { type: 'function', function: { name: 'f', description: 'does f', parameters: tools[0].inputSchema } },
      {
        type: 'function',
        function: { name: 'g', description: 'g', parameters: { type: 'object', properties: {} } },
      },
    ]);
    assert.equal(auto.tool_choice, 'auto');
    assert.equal(
      buildLmRequest({ model: 'a/b', messages, settings, tools, toolMode: TOOL_MODE_REQUIRED }).tool_choice,
      'required',
    );
    assert.equal(
      'tool_choice' in
        buildLmRequest({ model: 'a/b', messages, settings, tools: [], toolMode: TOOL_MODE_REQUIRED }),
      false,
    );
  });
});

describe('token estimate', () => {
  it('counts about four ASCII characters per token and one per other character', () => {
    assert.equal(estimateTextTokens(''), 0);
    assert.equal(estimateTextTokens('abcdefgh'), 2);
    assert.equal(estimateTextTokens('日本語'), 3);
    assert.equal(estimateTextTokens('🎉'), 1);
  });

  it('adds images, tool calls and tool results, plus a little per message', () => {
    const tokens = estimateMessageTokens({
      role: 'user',
      parts: [
        { kind: 'text', value: 'abcd' },
        { kind: 'data', mimeType: 'image/png', data: new Uint8Array(10) },
        { kind: 'toolResult', callId: 'c', content: [{ kind: 'text', value: 'abcdefgh' }] },
      ],
    });
    assert.equal(tokens, 4 + 1 + IMAGE_TOKENS + 4 + 2);
    assert.ok(
      estimateMessageTokens({
        role: 'assistant',
        parts: [{ kind: 'toolCall', callId: 'c', name: 'get_weather', input: { city: 'Paris' } }],
      }) > 8,
    );
  });
});

describe("errors for VS Code's chat", () => {
  const http = (status: number, message = `HTTP ${status}`) =>
    new GatewayError({ kind: 'http', status, message });

  it('maps statuses to LanguageModelError kinds and keeps our actionable words', () => {
    assert.deepEqual(
      toLmFailure(
        http(401, "The gateway rejected the API key. Set a valid key with 'Gateway AI: Set API Key'."),
      ),
      {
        code: 'NoPermissions',
        message:
          "Gateway AI: The gateway rejected the API key. Set a valid key with 'Gateway AI: Set API Key'.",
        cancelled: false,
      },
    );
    assert.equal(toLmFailure(http(403)).code, 'NoPermissions');
    assert.equal(toLmFailure(http(404)).code, 'NotFound');
    assert.equal(toLmFailure(http(429)).code, 'Blocked');
    assert.equal(toLmFailure(http(502)).code, 'Unknown');
    assert.equal(
      toLmFailure(new GatewayError({ kind: 'config', message: 'No API key is set' })).code,
      'NoPermissions',
    );
    assert.equal(toLmFailure(new GatewayError({ kind: 'network', message: 'closed' })).code, 'Unknown');
    assert.equal(toLmFailure(new Error('boom')).message, 'Gateway AI: Something went wrong: boom');
  });

  it("recognises a cancellation, and neutralises links in the gateway's words", () => {
    assert.equal(toLmFailure(new GatewayError({ kind: 'aborted', message: 'cancelled' })).cancelled, true);
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    assert.equal(toLmFailure(abort).cancelled, true);
    assert.doesNotMatch(
      toLmFailure(http(500, 'Gateway message: [fix it](command:gateway.clearApiKey)')).message,
      /\]\(/,
    );
  });
});
