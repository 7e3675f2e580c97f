import * as assert from 'node:assert/strict';
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { ChatChunkReader } from '../../../src/api/chatChunks';
import { chatDeltasFromJson, chatDeltasFromSse, parseChatCompletion } from '../../../src/api/chatStream';
import { GatewayError } from '../../../src/api/errors';
import { ChatAccumulator, foldChatDeltas } from '../../../src/api/fold';
import { SseParser, readSseData } from '../../../src/api/transport/sse';
import type { ChatDelta } from '../../../src/api/types';

/** Stands in for a network body: an async source of `size`-byte pieces, each ready at once. */
// eslint-disable-next-line @typescript-eslint/require-await -- async by design, with nothing to wait for
async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function dataOf(text: string, size: number): Promise<string[]> {
  const all: string[] = [];
  for await (const batch of readSseData(pieces(Buffer.from(text, 'utf8'), size))) all.push(...batch);
  return all;
}

async function deltasOf(text: string, size = 1_000_000): Promise<ChatDelta[]> {
  const deltas: ChatDelta[] = [];
  for await (const delta of chatDeltasFromSse(
    readSseData(pieces(Buffer.from(text, 'utf8'), size)),
    'secret-key',
  ))
    deltas.push(delta);
  return deltas;
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id: 'g1', model: 'v/m', provider: 'P', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

describe('api: SSE parsing (pure)', () => {
  const stream =
    ': OPENROUTER PROCESSING\n\n' +
    chunk({ content: 'Hé 😀 ' }) +
    ': OPENROUTER PROCESSING\n\n' +
    chunk({ content: '你好' }) +
    `data: ${JSON.stringify({ id: 'g1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
    `data: ${JSON.stringify({ id: 'g1', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, cost: 0.5 } })}\n\n` +
    'data: [DONE]\n\n';

  it('gives the same events whatever the read size, splitting UTF-8 characters included', async () => {
    assert.deepEqual(await dataOf('\uFEFFdata: after a BOM\n\n', 1), ['after a BOM']);
    const whole = await dataOf(stream, 1_000_000);
    assert.equal(whole.length, 5);
    for (const size of [1, 2, 3, 7]) assert.deepEqual(await dataOf(stream, size), whole, `read size ${size}`);
    for (const size of [1, 2, 3])
      assert.deepEqual(await dataOf(stream.replace(/\n/g, '\r\n'), size), whole, `CRLF, read size ${size}`);
  });

  it('folds deltas into the completion: content, usage with cost, finish; ignores comments', async () => {
    const completion = foldChatDeltas(await deltasOf(stream, 1));
    assert.equal(completion.content, 'Hé 😀 你好');
    assert.equal(completion.finishReason, 'stop');
    assert.equal(completion.usage?.cost, 0.5);
    assert.equal(completion.provider, 'P');
  });

  it('reads the last event even without a final blank line, and stops at [DONE]', async () => {
    assert.deepEqual(await dataOf('data: a\n\ndata: b', 1), ['a', 'b']);
    const afterDone = await deltasOf(
      `${chunk({ content: 'x' })}data: [DONE]\n\n${chunk({ content: 'ignored' })}`,
    );
    assert.equal(foldChatDeltas(afterDone).content, 'x');
  });

  it('reads multi-line data fields as one event', async () => {
    assert.deepEqual(await dataOf('data: {"a":\ndata: 1}\n\n', 2), ['{"a":\n1}']);
  });

  it('treats an end without [DONE] and without finish_reason as a cut connection', async () => {
    await assert.rejects(
      deltasOf(chunk({ content: 'partial' })),
      (error: unknown) => GatewayError.is(error) && error.kind === 'network',
    );
    // A finish_reason is enough: some gateways omit [DONE].
    const finished = await deltasOf(
      chunk({ content: 'ok' }) +
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    );
    assert.equal(foldChatDeltas(finished).finishReason, 'stop');
  });

  it('throws invalid_response on broken JSON, scrubbed of the key', async () => {
    await assert.rejects(deltasOf('data: {"oops": secret-key\n\n'), (error: unknown) => {
      assert.ok(GatewayError.is(error));
      assert.equal(error.kind, 'invalid_response');
      assert.ok(!error.message.includes('secret-key'));
      return true;
    });
  });

  it('throws a stream error on an error chunk, with code and provider', async () => {
    const text =
      chunk({ content: 'so far' }) +
      `data: ${JSON.stringify({ error: { message: 'overloaded secret-key', code: 'E42', metadata: { provider_name: 'Prov' } } })}\n\n`;
    const seen: ChatDelta[] = [];
    await assert.rejects(
      (async () => {
        for await (const delta of chatDeltasFromSse(readSseData(pieces(Buffer.from(text), 5)), 'secret-key'))
          seen.push(delta);
      })(),
      (error: unknown) => {
        assert.ok(GatewayError.is(error));
        assert.equal(error.kind, 'stream');
        assert.equal(error.code, 'E42');
        assert.equal(error.provider, 'Prov');
        assert.ok(!error.message.includes('secret-key'));
        return true;
      },
    );
    assert.equal(foldChatDeltas(seen).content, 'so far');
  });
});

describe('api: chat chunk variants (pure)', () => {
  const read = (...chunks: unknown[]): ChatDelta[] => {
    const reader = new ChatChunkReader('k');
    const out: ChatDelta[] = [];
    for (const c of chunks) reader.read(c, out);
    return out;
  };

  it('reads reasoning from reasoning or reasoning_content, and annotations from delta or message', () => {
    const deltas = read(
      { choices: [{ index: 0, delta: { reasoning_content: 'think' } }] },
      {
        choices: [
          {
            index: 0,
            delta: { reasoning: ' more', reasoning_details: [{ type: 'reasoning.text', text: ' more' }] },
          },
        ],
      },
      {
        choices: [
          {
            index: 0,
            delta: { content: 'a' },
            message: { annotations: [{ type: 'url_citation', url_citation: { url: 'u' } }] },
          },
        ],
      },
      {
        choices: [
          { index: 0, delta: { annotations: [{ type: 'url_citation', url_citation: { url: 'u' } }] } },
        ],
      },
    );
    const completion = foldChatDeltas(deltas);
    assert.equal(completion.reasoning, 'think more');
    assert.equal(completion.reasoningDetails.length, 1);
    assert.equal(completion.annotations.length, 1, 'a repeated citation is kept once');
  });

  it('merges tool-call fragments by index, out of order', () => {
    const completion = foldChatDeltas(
      read(
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 1, id: 'b', type: 'function', function: { name: 'second', arguments: '{"y"' } },
                ],
              },
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 0, id: 'a', type: 'function', function: { name: 'first', arguments: '' } },
                ],
              },
            },
          ],
        },
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  { index: 0, function: { arguments: '{"x":1}' } },
                  { index: 1, function: { arguments: ':2}' } },
                ],
              },
            },
          ],
        },
      ),
    );
    assert.deepEqual(
      completion.toolCalls.map((call) => [call.id, call.function.name, call.function.arguments]),
      [
        ['a', 'first', '{"x":1}'],
        ['b', 'second', '{"y":2}'],
      ],
    );
  });

  it('takes content given as a list of parts, and a whole JSON reply as deltas', () => {
    assert.equal(
      foldChatDeltas(
        read({ choices: [{ index: 0, delta: { content: [{ type: 'text', text: 'a' }, 'b'] } }] }),
      ).content,
      'ab',
    );
    assert.deepEqual(
      chatDeltasFromJson(
        { id: 'x', choices: [{ index: 0, message: { content: 'hi' }, finish_reason: 'stop' }] },
        'k',
      ),
      [
        { type: 'meta', id: 'x', model: undefined, provider: undefined },
        { type: 'content', text: 'hi' },
        { type: 'finish', reason: 'stop' },
      ],
    );
  });

  it('rejects a non-JSON or choice-less whole reply', () => {
    assert.throws(
      () => parseChatCompletion('<html>', 'k'),
      (error: unknown) => GatewayError.is(error) && error.kind === 'invalid_response',
    );
    assert.throws(
      () => parseChatCompletion('{"id":"x"}', 'k'),
      (error: unknown) => GatewayError.is(error) && error.kind === 'invalid_response',
    );
  });

  it('the accumulator keeps the text so far', () => {
    const accumulator = new ChatAccumulator();
    accumulator.add({ type: 'content', text: 'a' });
    accumulator.add({ type: 'content', text: 'b' });
    accumulator.add({ type: 'usage', usage: { prompt_tokens: 1 } });
    accumulator.add({ type: 'usage', usage: { cost: 2 } });
    assert.equal(accumulator.text, 'ab');
    assert.deepEqual(accumulator.completion.usage, { prompt_tokens: 1, cost: 2 });
  });
});

describe('api: SSE parsing against eventsource-parser', () => {
  /** One line of a stream, as a server could write it. */
  const fieldName = fc.constantFrom('data', 'event', 'id', 'retry', 'dat', 'DATA', 'data ', '');
  const value = fc.string({ unit: fc.constantFrom('a', ' ', ':', 'é', '😀', '\u2028', '{', '"', 'x') });
  const line = fc.oneof(
    fc.tuple(fieldName, fc.constantFrom(':', ': ', ':  ', ''), value).map(([f, sep, v]) => `${f}${sep}${v}`),
    value.map((v) => `:${v}`),
    fc.constant(''),
  );
  const lineEnd = fc.constantFrom('\n', '\r', '\r\n');
  const stream = fc
    .tuple(fc.array(fc.tuple(line, lineEnd), { maxLength: 30 }), fc.constantFrom('', '\n', '\r', '\n\n'))
    .map(([lines, tail]) => `${lines.map(([l, e]) => l + e).join('')}${tail}`);

  /** The events eventsource-parser gives, fed the same pieces and then an end of line and event. */
  function reference(pieces: readonly string[]): string[] {
    const events: string[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event.data) });
    for (const piece of pieces) parser.feed(piece);
    parser.feed('\n\n');
    return events;
  }

  function ours(pieces: readonly string[]): string[] {
    const events: string[] = [];
    const parser = new SseParser((data) => events.push(data));
    for (const piece of pieces) parser.feed(piece);
    parser.end();
    return events;
  }

  it('gives the same events on any stream, split anywhere, line ends included', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...at].map((start, index) => text.slice(start, [...at, text.length][index]));
        assert.deepEqual(ours(pieces), reference(pieces));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives up on an event larger than its limit, and never buffers past it', () => {
    const parser = new SseParser(() => undefined, 100);
    assert.throws(() => parser.feed(`data: ${'x'.repeat(200)}`), GatewayError);
    const lines = new SseParser(() => undefined, 100);
    assert.throws(() => {
      for (let i = 0; i < 20; i++) lines.feed('data: 0123456789\n');
    }, GatewayError);
  });

  it('counts each data line of an event by what it holds in memory, not only by its characters', () => {
    // An empty `data` line is 5 bytes of stream but a slot in the event's list of lines: counted
    // as one character each, 200 MB of them (the default stream cap) held about 400 MB of heap.
    const empty = new SseParser(() => undefined, 1000);
    assert.throws(() => empty.feed('data\n'.repeat(200)), GatewayError);
    const few = new SseParser(() => undefined, 1000);
    assert.doesNotThrow(() => few.feed('data\n'.repeat(20)));
  });
});
