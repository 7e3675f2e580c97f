/**
 * `error.metadata` (provider, the upstream error, moderation's reasons and flagged input) read
 * alike wherever an error comes from: an HTTP error body, a 200 body, a chunk after a 200 stream.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatChunkReader } from '../../../src/api/chatChunks';
import { parseChatReply } from '../../../src/api/chatStream';
import { GatewayError } from '../../../src/api/errors';
import {
  describeErrorMetadata,
  MAX_FLAGGED_CHARS,
  MAX_RAW_CHARS,
  MAX_REASONS,
  parseErrorMetadata,
} from '../../../src/api/errorMetadata';
import { httpError } from '../../../src/api/httpErrors';
import type { ChatDelta } from '../../../src/api/types';
import { collect, makeClient, userRequest, withSimulator } from './helpers';

const KEY = 'sk-or-v1-metadata0123456789abcdef';

describe('api: error metadata', () => {
  it('reads the provider, the raw upstream error as text or JSON, the reasons and the flagged input', () => {
    assert.deepEqual(
      parseErrorMetadata({
        provider_name: 'Anthropic',
        raw: { type: 'overloaded_error', message: 'Overloaded' },
        reasons: ['violence', 7, { code: 'hate' }],
        flagged_input: 'draw a\nfight',
      }),
      {
        provider: 'Anthropic',
        raw: '{"type":"overloaded_error","message":"Overloaded"}',
        reasons: ['violence', '7', '{"code":"hate"}'],
        flaggedInput: 'draw a fight',
      },
    );
    assert.deepEqual(parseErrorMetadata({ raw: 'upstream said no', reasons: 'spam' }), {
      raw: 'upstream said no',
      reasons: ['spam'],
    });
    for (const nothing of [undefined, null, 'text', 42, [], {}, { raw: '', reasons: [], provider_name: 3 }])
      assert.deepEqual(parseErrorMetadata(nothing), {}, JSON.stringify(nothing));
  });

  it('cuts every part to length after redacting the key', () => {
    const parsed = parseErrorMetadata(
      {
        raw: `${'x'.repeat(MAX_RAW_CHARS - 5)}${KEY}`,
        reasons: Array.from({ length: 20 }, (_, i) => `reason ${i}`),
        flagged_input: `${'y'.repeat(MAX_FLAGGED_CHARS - 3)}${KEY}`,
      },
      KEY,
    );
    assert.ok(!JSON.stringify(parsed).includes('sk-or'), JSON.stringify(parsed));
    assert.ok(parsed.raw!.length <= MAX_RAW_CHARS + 1);
    assert.equal(parsed.reasons?.length, MAX_REASONS);
    assert.ok(parsed.flaggedInput!.length <= MAX_FLAGGED_CHARS + 1);
  });

  it('adds what the message does not say already', () => {
    assert.equal(describeErrorMetadata({}), '');
    assert.equal(describeErrorMetadata({ raw: 'boom' }, 'it went boom'), '');
    assert.equal(
      describeErrorMetadata({ raw: 'boom', reasons: ['a', 'b'], flaggedInput: 'x' }, 'failed'),
      ' (boom) Flagged for: a, b. Flagged input: "x"',
    );
  });

  it('a moderation 403 says why and what was flagged, and names the provider', () => {
    const body = JSON.stringify({
      error: {
        code: 403,
        message: 'Input was flagged',
        metadata: { reasons: ['violence'], flagged_input: 'a fight', provider_name: 'OpenAI' },
      },
    });
    const error = httpError(403, {}, body, { operation: 'chat', model: 'openai/gpt-4o', secret: KEY });
    assert.equal(error.provider, 'OpenAI');
    assert.match(error.message, /through provider OpenAI \(403\)/);
    assert.match(error.message, /Input was flagged Flagged for: violence\. Flagged input: "a fight"/);
  });

  it('an error chunk after 200 ends the reply with its message, provider, code and upstream error', () => {
    const reader = new ChatChunkReader(KEY);
    const out: ChatDelta[] = [];
    reader.read({ id: 'gen-1', choices: [{ index: 0, delta: { content: 'Hal' } }] }, out);
    const chunk = {
      id: 'gen-1',
      error: {
        code: 502,
        message: 'Provider returned error',
        metadata: { provider_name: 'Groq', raw: 'timeout' },
      },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    };
    assert.throws(
      () => reader.read(chunk, out),
      (error: unknown) =>
        GatewayError.is(error) &&
        error.kind === 'stream' &&
        error.provider === 'Groq' &&
        error.code === 502 &&
        error.message ===
          'The provider Groq ended the reply with an error: Provider returned error (timeout)',
    );
    assert.deepEqual(
      out.filter((d) => d.type === 'content'),
      [{ type: 'content', text: 'Hal' }],
      'the text before it stays',
    );
  });

  it('a choice that ends in "error" without an error object, or carries its own, ends the reply too', () => {
    for (const choice of [
      { index: 0, delta: {}, finish_reason: 'error' },
      { index: 0, error: { message: 'choice failed' }, finish_reason: 'error' },
    ]) {
      assert.throws(
        () => new ChatChunkReader(KEY).read({ choices: [choice] }, []),
        (error: unknown) => GatewayError.is(error) && error.kind === 'stream',
        JSON.stringify(choice),
      );
    }
  });

  it('a 200 body that is an error reads its metadata the same way', () => {
    const body = JSON.stringify({
      error: { message: 'Refused', metadata: { provider_name: 'Mistral', reasons: ['self-harm'] } },
    });
    assert.throws(
      () => parseChatReply(body, KEY),
      (error: unknown) =>
        GatewayError.is(error) &&
        error.provider === 'Mistral' &&
        /answered with an error: Refused Flagged for: self-harm\./.test(error.message),
    );
  });

  it('fuzz: any metadata reads into bounded strings without the key, and never throws', () => {
    const quoting = fc.string().map((text) => `${text}${KEY}`);
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), quoting);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record(
            {
              provider_name: value,
              raw: value,
              reasons: fc.oneof(value, fc.array(value, { maxLength: 30 })),
              flagged_input: value,
            },
            { requiredKeys: [] },
          ),
        ),
        (metadata) => {
          const parsed = parseErrorMetadata(metadata, KEY);
          const text = describeErrorMetadata(parsed, 'message');
          assert.ok(!text.includes(KEY) && !JSON.stringify(parsed).includes(KEY));
          assert.ok(text.length < MAX_RAW_CHARS + MAX_REASONS * 81 + MAX_FLAGGED_CHARS + 200);
          assert.ok(!/[\n\r]/.test(text), 'one line');
          for (const reason of parsed.reasons ?? []) assert.equal(typeof reason, 'string');
        },
      ),
    );
  });
});

describe('api: errors with metadata from the simulator', () => {
  const ctx = withSimulator();

  it('an error event after 200 ends the stream with its message, provider and upstream error', async () => {
    const { client } = makeClient(ctx.sim);
    const { completion, error } = await collect(
      client.streamChat(userRequest('partial then #sim:error-chunk')),
    );
    assert.equal(error?.kind, 'stream');
    assert.equal(error?.provider, 'SimProvider');
    assert.match(error?.message ?? '', /disconnected mid-stream \(\{"type":"overloaded_error"/);
    assert.ok(completion.content.length > 0, 'the partial text is kept');
  });

  it('a moderation refusal names the reasons and the flagged input, as text', async () => {
    const { client } = makeClient(ctx.sim);
    const { error } = await collect(client.streamChat(userRequest('a brawl #sim:moderation')));
    assert.equal(error?.status, 403);
    assert.match(error?.message ?? '', /Flagged for: violence, \[harassment\]\(command:/);
    assert.match(error?.message ?? '', /Flagged input: "a brawl #sim:moderation"/);
  });

  it('`: PROCESSING` comments between every chunk never become text', async () => {
    const { client } = makeClient(ctx.sim);
    const plain = await collect(client.streamChat(userRequest('same words')));
    const commented = await collect(client.streamChat(userRequest('same words #sim:processing')));
    const request = ctx.sim.requests.at(-1);
    assert.deepEqual(request?.scenarios, ['processing']);
    assert.doesNotMatch(commented.completion.content, /PROCESSING/);
    assert.equal(
      commented.completion.content.replaceAll(' #sim:processing', ''),
      plain.completion.content,
      'the same reply, comments aside',
    );
  });
});
