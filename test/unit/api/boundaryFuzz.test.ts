/**
 * Property-based fuzzing of every boundary where gateway data (and settings) come in: arbitrary
 * JSON mixed into otherwise valid chunks, whole replies, error bodies, media records and settings.
 * Nothing may throw out of a boundary except its documented GatewayError, folding deltas must reach
 * the finish, and every output must have the promised types. The last suite fuzzes the real client
 * over loopback. Case counts are printed (`fuzz cases:`) for the record.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { ChatChunkReader } from '../../../src/api/chatChunks';
import { parseChatCompletion } from '../../../src/api/chatStream';
import { createGatewayClient } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';
import { foldChatDeltas } from '../../../src/api/fold';
import { httpError } from '../../../src/api/httpErrors';
import { MAX_MEDIA_ID_CHARS, normalizeMediaRecord, normalizeMediaStarted } from '../../../src/api/media';
import {
  mediaRouteBody,
  normalizeSyncRecord,
  parseChatMediaModels,
  parseImageModels,
  parseVideoModels,
} from '../../../src/api/mediaRoutes';
import { ProblemReporter } from '../../../src/api/problems';
import type { ChatCompletion, ChatDelta, GatewayDataProblem, MediaRecord } from '../../../src/api/types';
import { parseSettings } from '../../../src/core/config/settingsModel';
import { Setting, VsCodeSetting } from '../../../src/core/ids';

const RUNS = Number(process.env.GATEWAY_FUZZ_RUNS) || 1000;
let cases = 0;
const counted =
  <A extends unknown[]>(check: (...args: A) => void) =>
  (...args: A): void => {
    cases++;
    check(...args);
  };
after(() => console.log(`      fuzz cases: ${cases}`));

const optional = (value: unknown): boolean => value === undefined;
const isCount = (value: unknown): boolean =>
  optional(value) || (typeof value === 'number' && Number.isInteger(value) && value >= 0);

/** Every delta has exactly the promised types. */
function assertDelta(delta: ChatDelta): void {
  switch (delta.type) {
    case 'meta':
      for (const value of [delta.id, delta.model, delta.provider])
        assert.ok(optional(value) || typeof value === 'string');
      break;
    case 'content':
    case 'reasoning':
      assert.equal(typeof delta.text, 'string');
      assert.ok(delta.text.length > 0);
      break;
    case 'reasoning_details':
      for (const detail of delta.details) {
        assert.equal(typeof detail.type, 'string');
        for (const name of ['text', 'summary', 'data', 'signature', 'format', 'id'] as const)
          assert.ok(optional(detail[name]) || typeof detail[name] === 'string');
        assert.ok(isCount(detail.index));
      }
      break;
    case 'tool_calls':
      for (const call of delta.toolCalls) {
        assert.ok(isCount(call.index));
        assert.ok(optional(call.id) || typeof call.id === 'string');
        assert.equal(typeof call.type, 'string');
        assert.equal(typeof call.function.name, 'string');
        assert.equal(typeof call.function.arguments, 'string');
      }
      break;
    case 'finish':
      assert.equal(typeof delta.reason, 'string');
      break;
    case 'usage': {
      const { usage } = delta;
      for (const value of [usage.prompt_tokens, usage.completion_tokens, usage.total_tokens])
        assert.ok(isCount(value));
      assert.ok(optional(usage.cost) || (Number.isFinite(usage.cost) && usage.cost! >= 0));
      assert.ok(isCount(usage.completion_tokens_details?.reasoning_tokens));
      assert.ok(isCount(usage.prompt_tokens_details?.cached_tokens));
      assert.ok(isCount(usage.prompt_tokens_details?.cache_write_tokens));
      const upstream = usage.cost_details?.upstream_inference_cost;
      assert.ok(optional(upstream) || (Number.isFinite(upstream) && upstream! >= 0));
      const allowed = new Set([
        'prompt_tokens',
        'completion_tokens',
        'total_tokens',
        'cost',
        'cost_details',
        'completion_tokens_details',
        'prompt_tokens_details',
      ]);
      assert.ok(Object.keys(usage).every((key) => allowed.has(key)));
      break;
    }
    case 'annotations':
      for (const annotation of delta.annotations) {
        assert.equal(annotation.type, 'url_citation');
        assert.equal(typeof annotation.url_citation.url, 'string');
        assert.ok(
          optional(annotation.url_citation.title) || typeof annotation.url_citation.title === 'string',
        );
      }
      break;
    default:
      assert.fail(`unknown delta ${JSON.stringify(delta)}`);
  }
}

function assertCompletion(completion: ChatCompletion): void {
  assert.equal(typeof completion.content, 'string');
  assert.equal(typeof completion.reasoning, 'string');
  assert.ok(Array.isArray(completion.toolCalls) && Array.isArray(completion.annotations));
  assert.ok(optional(completion.finishReason) || typeof completion.finishReason === 'string');
}

// Arbitrary JSON, and values that often trip code up: prototype names, huge and odd numbers.
const hostile = fc.oneof(
  fc.jsonValue(),
  fc.anything(),
  fc.constantFrom('__proto__', 'constructor', 'toString', '', '  ', 'NaN', '1e400', '-1', '0.5'),
  fc.constantFrom(-1, 1.5, 1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0),
);
/** A field that is usually right and sometimes anything. */
const maybe = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 2, arbitrary: valid },
    { weight: 2, arbitrary: hostile },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const usageArb = fc.record(
  {
    prompt_tokens: maybe(fc.nat()),
    completion_tokens: maybe(fc.nat()),
    total_tokens: maybe(fc.nat()),
    cost: maybe(fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constant('0.0012'))),
    completion_tokens_details: maybe(fc.record({ reasoning_tokens: maybe(fc.nat()) })),
    prompt_tokens_details: maybe(
      fc.record({ cached_tokens: maybe(fc.nat()), cache_write_tokens: maybe(fc.nat()) }),
    ),
    cost_details: maybe(fc.record({ upstream_inference_cost: maybe(fc.double({ min: 0, max: 10 })) })),
  },
  { requiredKeys: [] },
);
const toolFragment = maybe(
  fc.record(
    {
      index: maybe(fc.nat({ max: 5 })),
      id: maybe(fc.string()),
      type: maybe(fc.constant('function')),
      function: maybe(
        fc.record({ name: maybe(fc.string()), arguments: maybe(fc.string()) }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: [] },
  ),
);
const annotation = maybe(
  fc.record(
    {
      type: maybe(fc.constant('url_citation')),
      url_citation: maybe(
        fc.record({ url: maybe(fc.webUrl()), title: maybe(fc.string()) }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: [] },
  ),
);
const deltaArb = fc.record(
  {
    role: maybe(fc.constant('assistant')),
    content: maybe(
      fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: maybe(fc.string()) }))),
    ),
    reasoning: maybe(fc.string()),
    reasoning_content: maybe(fc.string()),
    reasoning_details: maybe(
      fc.array(maybe(fc.record({ type: maybe(fc.string()), text: maybe(fc.string()) }))),
    ),
    tool_calls: maybe(fc.array(toolFragment, { maxLength: 4 })),
    annotations: maybe(fc.array(annotation, { maxLength: 4 })),
  },
  { requiredKeys: [] },
);
const chunkArb = fc.record(
  {
    id: maybe(fc.string()),
    model: maybe(fc.string()),
    provider: maybe(fc.string()),
    choices: maybe(
      fc.array(
        maybe(
          fc.record(
            {
              index: maybe(fc.constant(0)),
              delta: maybe(deltaArb),
              message: maybe(deltaArb),
              finish_reason: maybe(fc.constantFrom('stop', 'length', 'tool_calls')),
            },
            { requiredKeys: [] },
          ),
        ),
        { maxLength: 2 },
      ),
    ),
    usage: maybe(usageArb),
  },
  { requiredKeys: [] },
);
const anyChunk = fc.oneof({ weight: 6, arbitrary: chunkArb }, { weight: 1, arbitrary: hostile });

describe('fuzz: the chat boundary', () => {
  it('reads any chunks into typed deltas without throwing, and folding reaches the finish', () => {
    fc.assert(
      fc.property(
        fc.array(anyChunk, { maxLength: 8 }),
        counted((chunks: unknown[]) => {
          const problems: GatewayDataProblem[] = [];
          const reader = new ChatChunkReader('sk-secret', new ProblemReporter((p) => problems.push(p)));
          const deltas: ChatDelta[] = [];
          for (const chunk of chunks) reader.read(chunk, deltas);
          // A well-formed last chunk always finishes the reply, whatever came before.
          reader.read({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }, deltas);
          for (const delta of deltas) assertDelta(delta);
          const completion = foldChatDeltas(deltas);
          assertCompletion(completion);
          assert.equal(completion.finishReason, 'stop');
          assert.ok(reader.finished);
          assert.equal(new Set(problems.map((p) => p.path)).size, problems.length, 'each path once');
        }),
      ),
      { numRuns: RUNS * 3 },
    );
  });

  it('throws nothing but a stream GatewayError for chunks with an error field', () => {
    fc.assert(
      fc.property(
        hostile.filter((value) => value !== undefined && value !== null),
        anyChunk,
        counted((error: unknown, chunk: unknown) => {
          const reader = new ChatChunkReader('sk-secret');
          const base = typeof chunk === 'object' && chunk !== null && !Array.isArray(chunk) ? chunk : {};
          try {
            reader.read({ ...base, error }, []);
            assert.fail('an error chunk must end the reply');
          } catch (thrown) {
            assert.ok(GatewayError.is(thrown), String(thrown));
            assert.equal(thrown.kind, 'stream');
            assert.equal(typeof thrown.message, 'string');
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('parses any whole reply into a typed completion or a GatewayError', () => {
    fc.assert(
      fc.property(
        fc.oneof(chunkArb, hostile, fc.string()),
        counted((body: unknown) => {
          const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? 'null');
          try {
            assertCompletion(parseChatCompletion(text, 'sk-secret'));
          } catch (thrown) {
            assert.ok(GatewayError.is(thrown), String(thrown));
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: error bodies, media records and settings', () => {
  it('turns any error body into a GatewayError with a bounded message', () => {
    const errorBody = fc.oneof(
      fc.record(
        {
          error: maybe(
            fc.record(
              {
                message: maybe(fc.string()),
                code: maybe(fc.integer()),
                metadata: maybe(
                  fc.record({ raw: hostile, provider_name: maybe(fc.string()), headers: hostile }),
                ),
              },
              { requiredKeys: [] },
            ),
          ),
          message: maybe(fc.string()),
        },
        { requiredKeys: [] },
      ),
      hostile,
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 300, max: 599 }),
        errorBody,
        fc.dictionary(fc.constantFrom('retry-after', 'x-provider', '__proto__', 'constructor'), fc.string()),
        counted((status: number, body: unknown, headers: Record<string, string>) => {
          const text = typeof body === 'string' ? body : (JSON.stringify(body) ?? '');
          const error = httpError(status, headers, text, { operation: 'chat', secret: 'sk-secret' });
          assert.ok(GatewayError.is(error));
          assert.equal(typeof error.message, 'string');
          assert.ok(error.message.length < 2000);
          assert.ok(optional(error.provider) || typeof error.provider === 'string');
          assert.ok(optional(error.retryAfter) || Number.isFinite(error.retryAfter));
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('reads any media record into a typed record whose status is ours or absent', () => {
    const statuses = fc.oneof(
      fc.constantFrom('queued', 'processing', 'completed', 'failed', 'succeeded', 'Cancelled', 'expired'),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', ''),
      hostile,
    );
    const recordArb = fc.oneof(
      fc.record(
        { id: maybe(fc.string()), status: statuses, output: hostile, result: hostile, error: hostile },
        { requiredKeys: [] },
      ),
      hostile,
    );
    const allowed = new Set(['queued', 'processing', 'completed', 'failed', 'cancelled', 'expired']);
    fc.assert(
      fc.property(
        recordArb,
        counted((body: unknown) => {
          const record: MediaRecord = normalizeMediaRecord(body, 'asked');
          assert.equal(typeof record.id, 'string');
          assert.ok(record.status === undefined || allowed.has(record.status));
          assert.ok(optional(record.error) || typeof record.error === 'string');
          for (const output of record.outputs) {
            if (output.kind === 'url') assert.equal(typeof output.url, 'string');
            else if (output.kind === 'data')
              assert.ok(typeof output.data === 'string' && typeof output.mimeType === 'string');
            else assert.equal(typeof output.text, 'string');
            assert.ok(
              output.kind !== 'url' || optional(output.mimeType) || typeof output.mimeType === 'string',
            );
          }
          try {
            const started = normalizeMediaStarted(body);
            assert.equal(typeof started.id, 'string');
            assert.ok(started.status === undefined || allowed.has(started.status));
          } catch (thrown) {
            assert.ok(GatewayError.is(thrown));
          }
        }),
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('reads any synchronous media answer and any media catalog without throwing, into typed values', () => {
    const picture = maybe(
      fc.record(
        {
          b64_json: maybe(fc.base64String()),
          media_type: maybe(fc.constantFrom('image/png', 'image/webp', '')),
          url: maybe(fc.oneof(fc.webUrl(), fc.constant('data:image/png;base64,iVBO'), fc.string())),
          type: maybe(fc.constant('image_url')),
          image_url: maybe(fc.record({ url: maybe(fc.string()) }, { requiredKeys: [] })),
        },
        { requiredKeys: [] },
      ),
    );
    const answer = fc.oneof(
      fc.record(
        {
          created: maybe(fc.nat()),
          data: maybe(fc.array(picture, { maxLength: 4 })),
          usage: maybe(usageArb),
          error: hostile,
          choices: maybe(
            fc.array(
              maybe(
                fc.record(
                  {
                    message: maybe(
                      fc.record(
                        { content: maybe(fc.string()), images: maybe(fc.array(picture, { maxLength: 3 })) },
                        { requiredKeys: [] },
                      ),
                    ),
                  },
                  { requiredKeys: [] },
                ),
              ),
              { maxLength: 2 },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
      hostile,
    );
    const catalogEntry = maybe(
      fc.record(
        {
          id: maybe(fc.string()),
          name: hostile,
          supported_parameters: maybe(
            fc.dictionary(fc.string(), maybe(fc.record({ type: hostile, values: hostile }))),
          ),
          supported_durations: maybe(fc.array(hostile, { maxLength: 5 })),
          supported_resolutions: hostile,
          supported_frame_images: hostile,
          pricing: hostile,
          pricing_skus: hostile,
          architecture: maybe(
            fc.record({ output_modalities: hostile, input_modalities: hostile }, { requiredKeys: [] }),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const catalog = fc.oneof(fc.record({ data: maybe(fc.array(catalogEntry, { maxLength: 5 })) }), hostile);
    const routes = ['images', 'chat-images', 'images-generations'] as const;
    fc.assert(
      fc.property(
        answer,
        catalog,
        fc.constantFrom(...routes),
        counted((body: unknown, list: unknown, route: (typeof routes)[number]) => {
          const record = normalizeSyncRecord(route, body, 'sync-1', undefined, [], 'http://127.0.0.1:1/api');
          assert.equal(record.id, 'sync-1');
          // Final at once: completed with a result, or failed saying why.
          assert.ok(
            (record.status === 'completed' && record.outputs.length > 0) ||
              (record.status === 'failed' && typeof record.error === 'string'),
          );
          assert.ok(optional(record.cost) || (Number.isFinite(record.cost) && record.cost! >= 0));
          for (const info of [
            ...parseImageModels(list),
            ...parseVideoModels(list),
            ...parseChatMediaModels(list, 'chat-images'),
          ]) {
            assert.ok(typeof info.id === 'string' && info.id.length > 0);
            assert.ok(['image', 'video', 'audio'].includes(info.kind));
            for (const values of Object.values(info.options ?? {}))
              for (const value of values) assert.ok(typeof value === 'string' || Number.isFinite(value));
            assert.ok(optional(info.price) || typeof info.price === 'string');
            // Whatever the catalog said, the body names the model and prompt the user chose.
            const sent = mediaRouteBody(info.route, {
              model: 'm/x',
              prompt: 'p',
              parameters: { model: 'evil' },
            });
            assert.equal(sent.model, 'm/x');
          }
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('F6: keeps the key out of any media record that quotes it, wherever and however long', () => {
    const key = 'fuzz-key-0123456789abcdef';
    const quoting = fc
      .tuple(fc.string({ maxLength: 1200 }), fc.string({ maxLength: 50 }))
      .map(([before, after]) => `${before}${key}${after}`);
    const errorArb = fc.oneof(
      quoting,
      fc.record({ message: quoting, code: fc.oneof(fc.string(), fc.integer()) }),
      fc.record({ detail: fc.string(), other: quoting }),
    );
    fc.assert(
      fc.property(
        errorArb,
        quoting,
        counted((error: unknown, text: string) => {
          const record = normalizeMediaRecord(
            { id: 'j', status: 'failed', error, output: text },
            'j',
            undefined,
            [key],
          );
          assert.ok(!JSON.stringify(record).includes(key.slice(0, 12)), JSON.stringify(record));
        }),
      ),
      { numRuns: RUNS },
    );
  });

  it('parses any settings object into typed, clamped settings', () => {
    const keys = [...Object.values(Setting), ...Object.values(VsCodeSetting)];
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys), hostile),
        counted((values: Record<string, unknown>) => {
          const settings = parseSettings((key) => (Object.hasOwn(values, key) ? values[key] : undefined));
          assert.equal(typeof settings.baseUrl, 'string');
          const { request } = settings;
          assert.ok(request.maxResponseMegabytes >= 1 && request.maxResponseMegabytes <= 4096);
          assert.ok(request.maxStreamMinutes >= 1 && request.maxStreamMinutes <= 240);
          assert.ok(request.timeoutSeconds >= 1 && request.streamIdleTimeoutSeconds >= 5);
          assert.ok(Number.isInteger(request.maxRetries));
          const { commandTimeoutSeconds } = settings.agent;
          assert.ok(
            Number.isInteger(commandTimeoutSeconds) &&
              commandTimeoutSeconds >= 1 &&
              commandTimeoutSeconds <= 3600,
          );
          assert.ok(settings.chat.models.every((model) => typeof model === 'string'));
          assert.ok(settings.proxy.url === undefined || typeof settings.proxy.url === 'string');
          assert.ok(settings.media.maxConcurrentPolls >= 1);
          const inline = settings.inlineCompletions;
          assert.equal(typeof inline.enabled, 'boolean');
          assert.ok(['auto', 'fim', 'chat'].includes(inline.mode));
          assert.ok(inline.exclude.every((pattern) => typeof pattern === 'string'));
          assert.ok(Object.values(inline.languages).every((on) => typeof on === 'boolean'));
        }),
      ),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: the real client over loopback', () => {
  let server: Server;
  let body = '';
  let baseUrl = '';
  before(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('streams any fuzzed SSE into typed deltas, ending in a finish or a GatewayError', async () => {
    const client = createGatewayClient({
      baseUrl,
      apiKey: () => 'sk-fuzz-key-0123456789abcdef',
      maxRetries: 0,
      timeoutMs: 5000,
      streamIdleTimeoutMs: 5000,
      onProblem: () => undefined,
    });
    const event = fc.oneof(
      { weight: 5, arbitrary: anyChunk.map((chunk) => `data: ${JSON.stringify(chunk) ?? 'null'}\n\n`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(': keep-alive\n\n', 'data:\n\n', 'event: x\n\n', 'data: [DONE]\n\n'),
      },
      { weight: 1, arbitrary: fc.string().map((text) => `data: ${text.replace(/\n/g, ' ')}\n\n`) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 10 }),
        fc.boolean(),
        async (events: string[], finish: boolean) => {
          cases++;
          body =
            events.join('') +
            (finish
              ? `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`
              : '');
          const deltas: ChatDelta[] = [];
          try {
            for await (const delta of client.streamChat({
              model: 'a/b',
              messages: [{ role: 'user', content: 'x' }],
            }))
              deltas.push(delta);
          } catch (thrown) {
            assert.ok(GatewayError.is(thrown), String(thrown));
            assert.ok(!thrown.message.includes('sk-fuzz-key'));
            return;
          }
          for (const delta of deltas) assertDelta(delta);
          const completion = foldChatDeltas(deltas);
          assertCompletion(completion);
          // Without an error, the reply ended properly: a finish reason or [DONE].
          assert.ok(completion.finishReason !== undefined || body.includes('data: [DONE]'));
        },
      ),
      { numRuns: Math.max(20, Math.round(RUNS / 10)) },
    );
    await client.close();
  }).timeout(60_000);

  // Found in review: any id was kept, so a 7 MB id made every status request and the jobs file
  // 7 MB long. Ids up to the protocols' 500 characters are kept; a longer one is refused at once.
  it('refuses a media job id longer than the views can name, and keeps any shorter one', () => {
    assert.equal(normalizeMediaStarted({ id: 'x'.repeat(MAX_MEDIA_ID_CHARS) }).id.length, MAX_MEDIA_ID_CHARS);
    assert.equal(
      normalizeMediaStarted({ id: 'models/veo-3/operations/abc' }).id,
      'models/veo-3/operations/abc',
    );
    assert.throws(
      () => normalizeMediaStarted({ id: 'x'.repeat(MAX_MEDIA_ID_CHARS + 1) }),
      (error: unknown) => GatewayError.is(error) && error.kind === 'invalid_response',
    );
  });
});
