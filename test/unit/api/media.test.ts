import * as assert from 'node:assert/strict';
import {
  collectMediaOutputs,
  extensionForMime,
  mediaErrorText,
  mimeFromUrl,
  normalizeMediaRecord,
  normalizeMediaStatus,
} from '../../../src/api/media';
import type { MediaOutput, MediaRecord } from '../../../src/api/types';
import { expectGatewayError, makeClient, requestsTo, withSimulator } from './helpers';

const PNG_SIGNATURE = '89504e470d0a1a0a';

describe('api: media jobs against the simulator', () => {
  const ctx = withSimulator({
    mediaTimings: { queuedMs: 40, processingMs: 40, queuedPolls: 1, processingPolls: 1 },
  });

  async function runJob(
    prompt: string,
    parameters?: Record<string, unknown>,
  ): Promise<{ statuses: (string | undefined)[]; record: MediaRecord }> {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt, parameters });
    assert.equal(started.status, 'queued');
    const statuses: (string | undefined)[] = [];
    for (;;) {
      const record = await client.getMedia(started.id);
      if (statuses.at(-1) !== record.status) statuses.push(record.status);
      if (record.status === 'completed' || record.status === 'failed') return { statuses, record };
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  }

  it('goes queued → processing → completed with a real PNG, sending {model, prompt, ...parameters}', async () => {
    const { statuses, record } = await runJob('a red fox', { size: '64x64', n: 1 });
    assert.deepEqual(statuses, ['queued', 'processing', 'completed']);
    assert.equal(record.outputs.length, 1);
    const output = record.outputs[0];
    assert.equal(output.kind, 'data');
    assert.equal(output.kind === 'data' && output.mimeType, 'image/png');
    const bytes = Buffer.from(output.kind === 'data' ? output.data : '', 'base64');
    assert.equal(bytes.subarray(0, 8).toString('hex'), PNG_SIGNATURE);
    assert.equal(bytes.readUInt32BE(16), 64); // IHDR width
    assert.deepEqual(requestsTo(ctx.sim, 'POST', '/v1/media').at(-1)?.body, {
      model: 'openai/gpt-image-1',
      prompt: 'a red fox',
      size: '64x64',
      n: 1,
    });
  });

  it('fails with a string error (#sim:fail) or an error object (#sim:fail-object)', async () => {
    const failed = await runJob('x #sim:fail');
    assert.equal(failed.record.status, 'failed');
    assert.match(failed.record.error ?? '', /content policy/);
    const failedObject = await runJob('x #sim:fail-object');
    assert.equal(
      failedObject.record.error,
      'Provider SimProvider ran out of capacity (simulated). (capacity)',
    );
  });

  it('reads results from `result`, text, b64_json, nested data lists and URLs', async () => {
    const kinds = async (prompt: string): Promise<MediaOutput[]> => (await runJob(prompt)).record.outputs;
    assert.equal((await kinds('#sim:result'))[0].kind, 'data');
    assert.deepEqual(await kinds('hello #sim:text'), [
      { kind: 'text', text: 'A text result for the prompt: hello #sim:text' },
    ]);
    const b64 = (await kinds('#sim:b64'))[0];
    assert.equal(b64.kind === 'data' && b64.mimeType, 'image/png');
    assert.equal((await kinds('#sim:nested'))[0].kind, 'data');
    const [byUrl] = await kinds('#sim:url');
    assert.equal(byUrl.kind, 'url');
    assert.equal(byUrl.kind === 'url' && byUrl.mimeType, 'image/png');

    const { client } = makeClient(ctx.sim);
    const file = await client.download(byUrl.kind === 'url' ? byUrl.url : '');
    assert.equal(file.contentType, 'image/png');
    assert.equal(Buffer.from(file.bytes.subarray(0, 8)).toString('hex'), PNG_SIGNATURE);
    assert.equal(ctx.sim.fileRequests, 1);
    await expectGatewayError(
      client.download(byUrl.kind === 'url' ? byUrl.url : '', { maxBytes: 10 }),
      'invalid_response',
    );
  });

  it('F6: a key the gateway echoes in a media failure or a media error body never reaches the user', async () => {
    // Not shaped like an `sk-…` key, so only redaction of the key itself can find it.
    const key = 'plain-key-0123456789abcdef';
    const { client } = makeClient(ctx.sim, { apiKey: () => key });
    const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt: 'x #sim:fail-echo-key' });
    let record = await client.getMedia(started.id);
    while (record.status !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 15));
      record = await client.getMedia(started.id);
    }
    const reason = record.error ?? '';
    assert.match(reason, /^The provider said no\./);
    // The reason is cut at 1000 characters, where the key began: redacted before the cut.
    assert.ok(!reason.includes('plain-'), reason.slice(-60));
    assert.ok(!reason.includes(key));

    // The simulator's 403 quotes the key it was sent, on both media endpoints, after a preamble
    // that puts the key where the gateway's words are cut.
    const forbidden = 'forbidden-verbose-0123456789';
    const blocked = makeClient(ctx.sim, { apiKey: () => forbidden }).client;
    for (const call of [
      () => blocked.startMedia({ model: 'openai/gpt-image-1', prompt: 'x' }),
      () => blocked.getMedia(started.id),
    ]) {
      const error = await expectGatewayError(call(), 'http');
      assert.match(error.message, /Access rules were checked/);
      assert.ok(!error.message.includes('forbidden-'), error.message);
    }
  });

  it('URL-encodes the job id', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.getMedia('a/b c?d'), 'http');
    assert.equal(error.status, 404);
    assert.equal(requestsTo(ctx.sim, 'GET', '/v1/media/').at(-1)?.path, '/api/v1/media/a%2Fb%20c%3Fd');
  });

  it('F2: any job id is asked for as one path segment, and "." or ".." is never sent to another path', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.getMedia('models/veo-3/operations/abc'), 'http');
    assert.equal(error.status, 404);
    assert.equal(
      requestsTo(ctx.sim, 'GET', '/v1/media/').at(-1)?.path,
      '/api/v1/media/models%2Fveo-3%2Foperations%2Fabc',
    );
    const before = ctx.sim.requests.length;
    for (const id of ['.', '..']) {
      const refused = await expectGatewayError(client.getMedia(id), 'config');
      assert.match(refused.message, /cannot be asked for/);
    }
    assert.equal(ctx.sim.requests.length, before, 'no request went out (it would have been GET /api/v1/)');
  });

  it('rejects an invalid media request with 400 and the gateway’s reason', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.startMedia({ model: 'vendor/image', prompt: '' }), 'http');
    assert.equal(error.status, 400);
    assert.match(error.message, /prompt/);
  });
});

describe('api: media normalization (pure)', () => {
  it('keeps known statuses, maps synonyms, leaves missing or unknown ones absent, and never crashes', () => {
    assert.equal(normalizeMediaStatus('processing'), 'processing');
    assert.equal(normalizeMediaStatus('succeeded'), 'completed');
    assert.equal(normalizeMediaStatus('in_progress'), 'processing');
    // Absent means "still in progress": only a real end stops the polling.
    assert.equal(normalizeMediaStatus('moderating'), undefined);
    assert.equal(normalizeMediaStatus(undefined), undefined);
    assert.equal(normalizeMediaStatus(''), undefined);
    assert.equal(normalizeMediaStatus(42), undefined);
    assert.deepEqual(normalizeMediaRecord(null, 'asked'), { id: 'asked', outputs: [] });
    assert.deepEqual(normalizeMediaRecord('nonsense', 'asked').outputs, []);
    assert.equal(normalizeMediaRecord({ id: 12, status: 'queued' }, 'asked').id, '12');
  });

  it('keeps the cost where the gateway reports it, and nothing that is not one', () => {
    const cost = (body: Record<string, unknown>) => normalizeMediaRecord({ id: 'j', ...body }, 'j').cost;
    assert.equal(cost({ usage: { cost: 0.04 } }), 0.04);
    assert.equal(cost({ usage: { cost: '0.0400' } }), 0.04);
    assert.equal(cost({ cost: 0.5 }), 0.5);
    for (const bad of [
      { usage: { cost: -1 } },
      { usage: { cost: 'free' } },
      { usage: 'x' },
      { cost: null },
      {},
    ])
      assert.equal(cost(bad), undefined, JSON.stringify(bad));
  });

  it('accepts every output shape', () => {
    const png = 'iVBORw0KGgo=';
    assert.deepEqual(collectMediaOutputs('https://cdn.example.com/a/b.webp?sig=1'), [
      { kind: 'url', url: 'https://cdn.example.com/a/b.webp?sig=1', mimeType: 'image/webp' },
    ]);
    assert.deepEqual(collectMediaOutputs('https://cdn.example.com/file'), [
      { kind: 'url', url: 'https://cdn.example.com/file' },
    ]);
    assert.deepEqual(collectMediaOutputs(`data:image/jpeg;base64,${png}`), [
      { kind: 'data', data: png, mimeType: 'image/jpeg' },
    ]);
    assert.deepEqual(collectMediaOutputs('data:text/plain,hello%20world'), [
      { kind: 'data', data: Buffer.from('hello world').toString('base64'), mimeType: 'text/plain' },
    ]);
    assert.deepEqual(collectMediaOutputs('just words'), [{ kind: 'text', text: 'just words' }]);
    assert.deepEqual(collectMediaOutputs({ b64_json: png }), [
      { kind: 'data', data: png, mimeType: 'image/png' },
    ]);
    assert.deepEqual(collectMediaOutputs({ b64_json: png, content_type: 'image/webp' }), [
      { kind: 'data', data: png, mimeType: 'image/webp' },
    ]);
    assert.deepEqual(collectMediaOutputs({ url: 'https://x.example/v.mp4' }), [
      { kind: 'url', url: 'https://x.example/v.mp4', mimeType: 'video/mp4' },
    ]);
    assert.deepEqual(collectMediaOutputs({ data: `data:audio/mpeg;base64,${png}` }), [
      { kind: 'data', data: png, mimeType: 'audio/mpeg' },
    ]);
    assert.deepEqual(
      collectMediaOutputs({
        images: [{ url: 'https://x.example/1.png' }, { image_url: { url: 'https://x.example/2.gif' } }],
      }),
      [
        { kind: 'url', url: 'https://x.example/1.png', mimeType: 'image/png' },
        { kind: 'url', url: 'https://x.example/2.gif', mimeType: 'image/gif' },
      ],
    );
    assert.deepEqual(
      collectMediaOutputs({ created: 1, data: [{ b64_json: png }, { url: 'https://x.example/3.jpg' }] }),
      [
        { kind: 'data', data: png, mimeType: 'image/png' },
        { kind: 'url', url: 'https://x.example/3.jpg', mimeType: 'image/jpeg' },
      ],
    );
    assert.deepEqual(
      collectMediaOutputs(['https://x.example/a.png', { text: 'caption' }, null, 7, { unknown: true }]),
      [
        { kind: 'url', url: 'https://x.example/a.png', mimeType: 'image/png' },
        { kind: 'text', text: 'caption' },
      ],
    );
  });

  it('reads outputs from `output` or `result` and errors from strings or objects', () => {
    assert.equal(
      normalizeMediaRecord({ id: 'a', status: 'completed', result: ['https://x.example/r.png'] }, 'a').outputs
        .length,
      1,
    );
    assert.equal(
      normalizeMediaRecord({ id: 'a', status: 'completed', output: 'text out', result: 'ignored' }, 'a')
        .outputs[0].kind,
      'text',
    );
    assert.equal(mediaErrorText('boom'), 'boom');
    assert.equal(mediaErrorText({ message: 'no capacity', code: 503 }), 'no capacity (503)');
    assert.equal(mediaErrorText({ weird: 1 }), '{"weird":1}');
    assert.equal(mediaErrorText(null), undefined);
    assert.equal(
      normalizeMediaRecord({ id: 'a', status: 'failed', error: { message: 'bad' } }, 'a').error,
      'bad',
    );
  });
});

describe('media types', () => {
  it('maps URLs to MIME types and MIME types back to file extensions with one table', () => {
    assert.equal(mimeFromUrl('https://cdn.example.com/a/b.PNG?sig=1'), 'image/png');
    assert.equal(mimeFromUrl('https://cdn.example.com/clip.mp4'), 'video/mp4');
    assert.equal(mimeFromUrl('https://cdn.example.com/no-extension'), undefined);
    // OpenRouter's video file, as its unsigned_urls name it, has no extension: an MP4.
    assert.equal(mimeFromUrl('https://openrouter.ai/api/v1/videos/v-1/content?index=0'), 'video/mp4');
    assert.equal(mimeFromUrl('https://openrouter.ai/api/v1/videos/v-1/content/x'), undefined);
    assert.equal(extensionForMime('image/png'), 'png');
    assert.equal(extensionForMime('image/jpeg'), 'jpg');
    assert.equal(extensionForMime('audio/mpeg; charset=binary'), 'mp3');
    assert.equal(extensionForMime('text/plain'), 'txt');
    assert.equal(extensionForMime('application/x-unknown'), 'bin');
    assert.equal(extensionForMime(undefined), 'bin');
  });
});
