/**
 * Media records in the shapes real async media APIs use (OpenRouter videos, OpenAI videos,
 * Replicate, fal, Runway and others): the parser alone, fuzzed, and the client against the
 * simulator's shapes, with results on a second origin that must never receive the key.
 */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { sendsKeyTo } from '../../../src/api/downloadPolicy';
import type { GatewayError } from '../../../src/api/errors';
import {
  gatewayUrl,
  NO_FAILURE_REASON,
  NO_RESULT_REASON,
  normalizeMediaRecord,
  normalizeMediaStarted,
  normalizeMediaStatus,
} from '../../../src/api/media';
import type { MediaRecord, MediaStarted } from '../../../src/api/types';
import { isFinalStatus } from '../../../src/core/media/mediaJob';
import { MEDIA_SHAPES, VIDEO_COST } from '../../simulator';
import type { MediaShape } from '../../simulator';
import { makeClient, withSimulator } from './helpers';

const BASE = 'https://gw.example.com/api';
const GATEWAY = new URL(BASE);
const read = (body: unknown, statusUrl?: string): MediaRecord =>
  normalizeMediaRecord(body, 'asked', undefined, [], { baseUrl: BASE, statusUrl });

describe('api: media status words of every common API', () => {
  it('maps each API’s words onto ours, case aside', () => {
    const expected: Record<string, string> = {
      queued: 'queued',
      pending: 'queued',
      starting: 'queued',
      IN_QUEUE: 'queued',
      PENDING: 'queued',
      THROTTLED: 'queued',
      processing: 'processing',
      in_progress: 'processing',
      running: 'processing',
      IN_PROGRESS: 'processing',
      RUNNING: 'processing',
      completed: 'completed',
      succeeded: 'completed',
      COMPLETED: 'completed',
      SUCCEEDED: 'completed',
      failed: 'failed',
      FAILED: 'failed',
      aborted: 'failed',
      error: 'failed',
      cancelled: 'cancelled',
      canceled: 'cancelled',
      CANCELLED: 'cancelled',
      expired: 'expired',
    };
    for (const [word, status] of Object.entries(expected))
      assert.equal(normalizeMediaStatus(word), status, word);
  });

  it('cancelled and expired are final states of their own, with no failure made up', () => {
    for (const status of ['cancelled', 'expired'] as const) {
      const record = read({ id: 'j', status });
      assert.equal(record.status, status);
      assert.equal(record.error, undefined);
      assert.ok(isFinalStatus(status));
    }
    assert.equal(read({ id: 'j', status: 'canceled', error: 'by the user' }).error, 'by the user');
  });

  it('takes the failure reason from `error`, `error.message` or Runway’s `failure` and `failureCode`', () => {
    assert.equal(read({ status: 'failed', error: 'out of GPUs' }).error, 'out of GPUs');
    assert.equal(read({ status: 'failed', error: { message: 'nsfw', code: 'E1' } }).error, 'nsfw (E1)');
    assert.equal(
      read({ status: 'FAILED', failure: 'Flagged by moderation.', failureCode: 'SAFETY.INPUT.TEXT' }).error,
      'Flagged by moderation. (SAFETY.INPUT.TEXT)',
    );
    assert.equal(read({ status: 'FAILED', failureCode: 'INTERNAL' }).error, 'INTERNAL');
    assert.equal(read({ status: 'failed' }).error, NO_FAILURE_REASON);
    assert.match(read({ status: 'aborted' }).error ?? '', /aborted/);
  });

  it('a completion without any result reads as a failure that says so', () => {
    const record = read({ id: 'j', status: 'succeeded', output: null });
    assert.equal(record.status, 'failed');
    assert.equal(record.error, NO_RESULT_REASON);
  });
});

describe('api: media results in every common field', () => {
  const url = (record: MediaRecord): string[] =>
    record.outputs.map((output) => (output.kind === 'url' ? output.url : `(${output.kind})`));

  it('reads OpenRouter’s relative `unsigned_urls` against the base URL', () => {
    const record = read({
      id: 'v1',
      status: 'completed',
      unsigned_urls: ['v1/videos/v1/content?index=0', '/api/v1/videos/v1/content?index=1'],
      usage: { cost: 0.5 },
    });
    assert.deepEqual(url(record), [
      'https://gw.example.com/api/v1/videos/v1/content?index=0',
      'https://gw.example.com/api/v1/videos/v1/content?index=1',
    ]);
    assert.equal(record.cost, 0.5);
  });

  it('reads `result_urls`, `resultUrls`, `videoUrl` and `urls` (a list or an object of links)', () => {
    assert.deepEqual(url(read({ status: 'success', result_urls: ['https://cdn.example/a.png'] })), [
      'https://cdn.example/a.png',
    ]);
    assert.deepEqual(url(read({ status: 'success', resultUrls: ['https://cdn.example/b.mp4'] })), [
      'https://cdn.example/b.mp4',
    ]);
    assert.deepEqual(url(read({ status: 'completed', videoUrl: '/files/c.mp4' })), [
      'https://gw.example.com/files/c.mp4',
    ]);
    assert.deepEqual(url(read({ status: 'completed', urls: ['https://cdn.example/d.webp'] })), [
      'https://cdn.example/d.webp',
    ]);
    assert.deepEqual(url(read({ status: 'completed', urls: { video: 'https://cdn.example/e.mp4' } })), [
      'https://cdn.example/e.mp4',
    ]);
  });

  it('reads lists of links nested once, and nothing from lists nested deeper than any API does', () => {
    let deep: unknown = 'https://cdn.example/deep.png';
    for (let level = 0; level < 200_000; level++) deep = [deep];
    const record = read({ status: 'completed', unsigned_urls: deep });
    assert.equal(record.status, 'failed');
    assert.deepEqual(url(read({ status: 'completed', unsigned_urls: [['https://cdn.example/a.png']] })), [
      'https://cdn.example/a.png',
    ]);
  });

  it('never takes Replicate’s API links in `urls` for results', () => {
    const record = read({
      status: 'succeeded',
      output: ['https://replicate.delivery/x/out.png'],
      urls: { get: 'https://api.replicate.com/v1/predictions/p', cancel: 'https://api.replicate.com/c' },
    });
    assert.deepEqual(url(record), ['https://replicate.delivery/x/out.png']);
    assert.equal(
      read({ status: 'succeeded', urls: { get: 'https://api.replicate.com/p' } }).status,
      'failed',
    );
  });

  it('reads `output` as any JSON: a string, a list, an object with a url, fal’s `images` at the top', () => {
    assert.deepEqual(url(read({ status: 'succeeded', output: 'https://cdn.example/o.png' })), [
      'https://cdn.example/o.png',
    ]);
    assert.deepEqual(url(read({ status: 'SUCCEEDED', output: ['https://cdn.example/1.png', '/r/2.png'] })), [
      'https://cdn.example/1.png',
      'https://gw.example.com/r/2.png',
    ]);
    assert.deepEqual(url(read({ status: 'completed', output: { url: 'files/3.png' } })), [
      'https://gw.example.com/api/files/3.png',
    ]);
    assert.deepEqual(
      url(
        read({
          status: 'COMPLETED',
          images: [{ url: 'https://fal.media/4.png', content_type: 'image/png' }],
        }),
      ),
      ['https://fal.media/4.png'],
    );
    assert.deepEqual(url(read({ status: 'COMPLETED', video: { url: 'https://fal.media/5.mp4' } })), [
      'https://fal.media/5.mp4',
    ]);
    // Words are words: only a path that starts at the root reads as a link.
    assert.deepEqual(read({ status: 'succeeded', output: 'a cat on a mat' }).outputs, [
      { kind: 'text', text: 'a cat on a mat' },
    ]);
  });

  it('finds an OpenAI video’s file at `<status URL>/content`', () => {
    const record = read(
      { id: 'video_1', object: 'video', status: 'completed', progress: 100 },
      'https://gw.example.com/api/v1/media/video_1?x=1',
    );
    assert.deepEqual(record.outputs, [
      { kind: 'url', url: 'https://gw.example.com/api/v1/media/video_1/content', mimeType: 'video/mp4' },
    ]);
  });

  it('never keeps a link of another scheme, with credentials, or of monster length', () => {
    for (const bad of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://user:pass@cdn.example/x.png',
      `https://cdn.example/${'a'.repeat(5000)}`,
    ])
      assert.deepEqual(url(read({ status: 'completed', result_urls: [bad] })), [], bad);
  });

  it('reads `progress` as 0–1 or 0–100 and `queue_position`, only while the job runs', () => {
    assert.equal(read({ status: 'in_progress', progress: 45 }).progress, 0.45);
    assert.equal(read({ status: 'RUNNING', progress: 0.25 }).progress, 0.25);
    assert.equal(read({ status: 'processing', progress: '80%' }).progress, 0.8);
    assert.equal(read({ status: 'processing', progress: 250 }).progress, 1);
    assert.equal(read({ status: 'processing', progress: -3 }).progress, undefined);
    assert.equal(read({ status: 'processing', progress: 'lots' }).progress, undefined);
    assert.equal(read({ status: 'IN_QUEUE', queue_position: 3 }).queuePosition, 3);
    assert.equal(read({ status: 'IN_QUEUE', queue_position: 1.5 }).queuePosition, undefined);
    const done = read({
      status: 'completed',
      progress: 100,
      queue_position: 0,
      output: 'https://c.example/x.png',
    });
    assert.equal(done.progress, undefined);
    assert.equal(done.queuePosition, undefined);
  });
});

describe('api: the start of a media job', () => {
  const start = (body: unknown): MediaStarted => normalizeMediaStarted(body, undefined, { baseUrl: BASE });

  it('takes the polling URL absolute or relative, under every name, and validates it', () => {
    assert.equal(
      start({ id: 'a', polling_url: '/api/v1/videos/a' }).pollingUrl,
      'https://gw.example.com/api/v1/videos/a',
    );
    assert.equal(
      start({ request_id: 'b', status_url: 'v1/fal/requests/b/status' }).pollingUrl,
      'https://gw.example.com/api/v1/fal/requests/b/status',
    );
    assert.equal(
      start({ id: 'c', urls: { get: 'https://api.replicate.com/v1/predictions/c' } }).pollingUrl,
      'https://api.replicate.com/v1/predictions/c',
    );
    for (const bad of ['javascript:alert(1)', 'https://u:p@gw.example.com/x', 42, ['x'], 'a b'])
      assert.equal(start({ id: 'd', polling_url: bad }).pollingUrl, undefined, String(bad));
  });

  it('takes fal’s `request_id` (and task ids) as the job id', () => {
    assert.equal(start({ request_id: 'fal-1' }).id, 'fal-1');
    assert.equal(start({ task_id: 7 }).id, '7');
  });

  it('keeps only a running status from the start: a final one is read whole at the first check', () => {
    assert.equal(start({ id: 'a', status: 'IN_QUEUE' }).status, 'queued');
    assert.equal(start({ id: 'a', status: 'succeeded' }).status, undefined);
  });
});

describe('fuzz: media records in every shape', () => {
  const RUNS = Number(process.env.GATEWAY_FUZZ_RUNS) || 1000;
  const json = fc.jsonValue({ maxDepth: 3 });
  const link = fc.oneof(
    fc.webUrl(),
    fc.constantFrom(
      '/api/v1/videos/x/content',
      'v1/files/y.png',
      '//evil.example/steal',
      'https://gw.example.com.evil.example/x',
      'https://gw.example.com@evil.example/x',
      'http://gw.example.com/api/x',
      'https://gw.example.com:444/x',
      '/\\evil.example/x',
      'javascript:alert(1)',
      'data:image/png;base64,iVBORw0KGgo=',
    ),
    fc.string(),
  );
  /**
   * A link inside lists and objects nested up to 100,000 deep (the stack holds about 10,000).
   * Mostly shallow: a record has a dozen fields, and building a deep value in each of them for
   * every case made this property take 20 s on a busy machine.
   */
  const depths = fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 50 }), weight: 9 },
    { arbitrary: fc.integer({ min: 10_000, max: 100_000 }), weight: 1 },
  );
  const deep = fc.tuple(link, depths, fc.boolean()).map(([inner, depth, objects]) => {
    let value: unknown = inner;
    for (let level = 0; level < depth; level++) value = objects && level % 2 ? { url: value } : [value];
    return value;
  });
  const anything = fc.oneof(json, link, fc.array(link, { maxLength: 4 }), deep);
  const words = fc.constantFrom(
    ...['queued', 'pending', 'starting', 'IN_QUEUE', 'PENDING', 'THROTTLED', 'processing'],
    ...['in_progress', 'running', 'IN_PROGRESS', 'RUNNING', 'completed', 'succeeded', 'COMPLETED'],
    ...['SUCCEEDED', 'failed', 'FAILED', 'aborted', 'error', 'cancelled', 'canceled', 'CANCELLED'],
    ...['expired', 'moderating', '', '__proto__'],
  );
  const record = fc.record(
    {
      id: fc.oneof(fc.string(), fc.integer(), json),
      request_id: fc.oneof(fc.string(), json),
      status: fc.oneof(words, json),
      object: fc.oneof(fc.constant('video'), json),
      output: anything,
      result: anything,
      unsigned_urls: anything,
      result_urls: anything,
      resultUrls: anything,
      videoUrl: anything,
      urls: fc.oneof(anything, fc.dictionary(fc.string(), link)),
      images: anything,
      progress: fc.oneof(fc.double(), fc.string(), json),
      queue_position: fc.oneof(fc.integer(), json),
      error: anything,
      failure: anything,
      failureCode: anything,
      usage: fc.oneof(fc.record({ cost: fc.oneof(fc.double(), fc.string(), json) }), json),
      polling_url: link,
    },
    { requiredKeys: [] },
  );

  it('a failure whose error is blank still gets a reason (found by the fuzz below)', () => {
    for (const error of [' ', '\n\t', { message: '  ' }]) {
      const parsed = normalizeMediaRecord({ status: 'FAILED', error }, 'asked', undefined, [], {
        baseUrl: BASE,
        statusUrl: `${BASE}/v1/media/asked`,
      });
      assert.equal(parsed.status, 'failed');
      assert.ok(parsed.error && parsed.error.trim().length > 0, JSON.stringify(parsed.error));
    }
  });

  it('never throws, ends every final status whole, and never marks another origin for the key', () => {
    fc.assert(
      fc.property(fc.oneof(record, json), (body) => {
        const parsed = normalizeMediaRecord(body, 'asked', undefined, [], {
          baseUrl: BASE,
          statusUrl: `${BASE}/v1/media/asked`,
        });
        assert.equal(typeof parsed.id, 'string');
        if (parsed.status === 'completed') assert.ok(parsed.outputs.length > 0, 'completed with results');
        if (parsed.status === 'failed')
          assert.ok(parsed.error && parsed.error.length > 0, 'failed with a reason');
        if (parsed.status !== undefined && isFinalStatus(parsed.status)) {
          assert.equal(parsed.progress, undefined);
          assert.equal(parsed.queuePosition, undefined);
        }
        if (parsed.progress !== undefined) assert.ok(parsed.progress >= 0 && parsed.progress <= 1);
        if (parsed.cost !== undefined) assert.ok(Number.isFinite(parsed.cost) && parsed.cost >= 0);
        for (const output of parsed.outputs) {
          if (output.kind !== 'url') continue;
          const target = new URL(output.url);
          assert.ok(target.protocol === 'https:' || target.protocol === 'http:', output.url);
          assert.equal(target.username + target.password, '', output.url);
          // The key follows the origin alone: any other host, port or scheme goes without it.
          assert.equal(sendsKeyTo(target, GATEWAY), target.origin === GATEWAY.origin, output.url);
          if (target.hostname.includes('evil')) assert.equal(sendsKeyTo(target, GATEWAY), false, output.url);
        }
        try {
          const started = normalizeMediaStarted(body, undefined, { baseUrl: BASE });
          if (started.pollingUrl !== undefined)
            assert.equal(gatewayUrl(started.pollingUrl), started.pollingUrl);
          assert.ok(started.status === undefined || !isFinalStatus(started.status));
        } catch (error) {
          assert.match((error as Error).message, /job id/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('api: every media shape against the simulator', () => {
  const ctx = withSimulator({
    mediaTimings: { queuedMs: 40, processingMs: 40, queuedPolls: 2, processingPolls: 2 },
  });

  async function run(
    shape: MediaShape,
    extra = '',
  ): Promise<{ records: MediaRecord[]; started: MediaStarted }> {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({
      model: 'vendor/video-model',
      prompt: `clip #sim:shape:${shape}${extra}`,
    });
    const records: MediaRecord[] = [];
    for (let check = 0; check < 20; check++) {
      const record = await client.getMedia(started.id, { pollingUrl: started.pollingUrl });
      records.push(record);
      if (record.status !== undefined && isFinalStatus(record.status)) return { records, started };
    }
    throw new Error(`${shape} never ended: ${records.map((r) => r.status).join(' → ')}`);
  }

  for (const shape of MEDIA_SHAPES) {
    it(`${shape}: completes, and its result downloads; the key goes to the gateway's origin only`, async () => {
      ctx.sim.resultRequests.length = 0;
      const { records } = await run(shape);
      const last = records.at(-1)!;
      assert.equal(last.status, 'completed', JSON.stringify(last));
      assert.ok(
        records.some((r) => r.status === 'queued'),
        `${shape} was queued first`,
      );
      assert.ok(
        records.some((r) => r.status === 'processing'),
        `${shape} was processing`,
      );
      const [output] = last.outputs;
      assert.equal(output.kind, 'url');
      const { client } = makeClient(ctx.sim);
      const file = await client.download(output.kind === 'url' ? output.url : '');
      assert.ok(file.bytes.length > 0);
      for (const request of ctx.sim.resultRequests)
        assert.equal(request.authorization, undefined, request.path);
      if (output.kind === 'url' && new URL(output.url).origin === ctx.sim.resultOrigin)
        assert.ok(ctx.sim.resultRequests.length > 0, 'the second origin served it');
    });
  }

  it('openrouter: 202 with a relative polling URL that is used, and `usage.cost`', async () => {
    const before = ctx.sim.requests.length;
    const { records, started } = await run('openrouter');
    assert.equal(started.pollingUrl, `${ctx.sim.baseUrl}/v1/videos/${encodeURIComponent(started.id)}`);
    const polled = ctx.sim.requests.slice(before).filter((r) => r.method === 'GET');
    assert.ok(polled.length >= 3 && polled.every((r) => r.path.startsWith('/api/v1/videos/')));
    assert.equal(records.at(-1)?.cost, VIDEO_COST);
    assert.ok(
      polled.every((r) => typeof r.headers.authorization === 'string'),
      'same origin: the key goes',
    );
  });

  it('progress: OpenAI’s 0–100 and Runway’s 0–1 read alike; fal says its place in the queue', async () => {
    const openai = (await run('openai')).records.find((r) => r.status === 'processing');
    const runway = (await run('runway')).records.find((r) => r.status === 'processing');
    for (const record of [openai, runway]) assert.ok(record?.progress !== undefined && record.progress <= 1);
    const fal = (await run('fal')).records.find((r) => r.status === 'queued');
    assert.equal(typeof fal?.queuePosition, 'number');
  });

  it('cancelled, expired and failed outcomes end as such in every shape', async () => {
    for (const shape of MEDIA_SHAPES) {
      assert.equal((await run(shape, ' #sim:outcome:cancelled')).records.at(-1)?.status, 'cancelled', shape);
      assert.equal((await run(shape, ' #sim:outcome:expired')).records.at(-1)?.status, 'expired', shape);
      const failed = (await run(shape, ' #sim:outcome:failed')).records.at(-1);
      assert.equal(failed?.status, 'failed', shape);
      assert.ok(failed?.error, shape);
    }
  });

  it('a polling URL on a private network, where the gateway is not, is never kept or asked', async () => {
    const problems: string[] = [];
    const asked: string[] = [];
    const gateway = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      response.writeHead(202, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'p1', polling_url: 'http://10.0.0.7/status/p1' }));
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = gateway.address() as AddressInfo;
      const { client } = makeClient(ctx.sim, {
        baseUrl: `http://127.0.0.1:${port}/api`,
        onProblem: (problem) => problems.push(problem.path),
      });
      const started = await client.startMedia({ model: 'vendor/video', prompt: 'x' });
      assert.deepEqual(started, { id: 'p1', route: 'media' });
      assert.ok(problems.includes('media.polling_url'), problems.join());
      // One stored before the rule refused it: the job is asked for at the gateway instead, so it
      // can still end rather than fail its check forever.
      asked.length = 0;
      const record = await client.getMedia('p1', { pollingUrl: 'http://10.0.0.7/status/p1' });
      assert.equal(record.id, 'p1');
      assert.deepEqual(asked, ['GET /api/v1/media/p1']);
      await assert.rejects(
        client.getMedia('..', { pollingUrl: 'http://10.0.0.7/status/p1' }),
        /cannot be asked/,
      );
    } finally {
      gateway.close();
    }
  });

  it('never keeps a polling URL that carries the key, raw or encoded', async () => {
    const key = 'plain+secret/9876';
    for (const carried of [key, encodeURIComponent(key)]) {
      const problems: string[] = [];
      const gateway = createServer((_request, response) => {
        response.writeHead(202, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: 'k1', polling_url: `/api/v1/media/k1?key=${carried}` }));
      });
      await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = gateway.address() as AddressInfo;
        const { client } = makeClient(ctx.sim, {
          baseUrl: `http://127.0.0.1:${port}/api`,
          apiKey: () => key,
          onProblem: (problem) => problems.push(problem.path),
        });
        const started = await client.startMedia({ model: 'vendor/video', prompt: 'x' });
        assert.deepEqual(started, { id: 'k1', route: 'media' }, carried);
        assert.ok(problems.includes('media.polling_url'), problems.join());
      } finally {
        gateway.close();
      }
    }
  });

  it('a job whose id cannot be a path segment is still asked at its polling URL', async () => {
    const { client } = makeClient(ctx.sim);
    // The simulator does not know the job: a 404 from the polling URL, not a refused id.
    await assert.rejects(
      client.getMedia('..', { pollingUrl: `${ctx.sim.baseUrl}/v1/videos/unknown-job` }),
      (error: GatewayError) => error.status === 404,
    );
  });

  it('a polling URL on another origin is asked only over https; over http, the gateway is', async () => {
    const problems: string[] = [];
    const { client, log } = makeClient(ctx.sim, { onProblem: (problem) => problems.push(problem.path) });
    ctx.sim.resultRequests.length = 0;
    await client.getMedia('x', { pollingUrl: `${ctx.sim.resultOrigin}/status/x` }).catch(() => undefined);
    assert.equal(ctx.sim.resultRequests.length, 0);
    assert.ok(problems.includes('media.polling_url'), problems.join());
    assert.ok(
      log.some((entry) => entry.path.endsWith('/v1/media/x')),
      JSON.stringify(log),
    );
  });
});
