import * as assert from 'node:assert/strict';
import {
  checkMediaParameters,
  describeMediaOptions,
  mediaRouteBody,
  normalizeSyncRecord,
  parseChatMediaModels,
  parseImageModels,
  parseVideoModels,
} from '../../../src/api/mediaRoutes';
import type { GatewayClient } from '../../../src/api/client';
import type { MediaRecord } from '../../../src/api/types';
import {
  CHAT_IMAGE_COST,
  IMAGE_COST,
  IMAGE_MODELS,
  SIM_CHAT_IMAGE_MODEL,
  SIM_IMAGE_MODEL,
  SIM_VIDEO_MODEL,
  VIDEO_COST,
  VIDEO_MODELS,
} from '../../simulator';
import { expectGatewayError, makeClient, requestsTo, withSimulator } from './helpers';

const PNG_SIGNATURE = '89504e470d0a1a0a';

function pngOf(record: MediaRecord): Buffer {
  const output = record.outputs[0];
  assert.equal(output?.kind, 'data', JSON.stringify(record));
  return Buffer.from(output.kind === 'data' ? output.data : '', 'base64');
}

/** Polls a started job to its end; counted polls make each check advance it (no waiting). */
async function ended(client: GatewayClient, id: string, pollingUrl?: string): Promise<MediaRecord> {
  for (let i = 0; i < 10; i++) {
    const record = await client.getMedia(id, { pollingUrl });
    if (record.status && ['completed', 'failed', 'cancelled', 'expired'].includes(record.status))
      return record;
  }
  assert.fail(`job ${id} did not end`);
}

describe('api: media routes on an OpenRouter-shaped gateway (no /v1/media)', () => {
  const ctx = withSimulator({
    mediaApi: 'openrouter',
    mediaTimings: { queuedMs: 0, processingMs: 0, queuedPolls: 1, processingPolls: 1 },
  });

  it('an images-catalog model goes to /v1/images after /v1/media 404s, and completes at once', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({
      model: SIM_IMAGE_MODEL,
      prompt: 'a red square',
      parameters: { aspect_ratio: '16:9' },
    });
    assert.equal(started.route, 'images');
    assert.equal(started.status, 'completed');
    assert.equal(started.record?.status, 'completed');
    assert.equal(started.record?.cost, IMAGE_COST);
    assert.equal(
      started.record?.outputs[0]?.kind === 'data' && started.record.outputs[0].mimeType,
      'image/png',
    );
    assert.equal(pngOf(started.record).subarray(0, 8).toString('hex'), PNG_SIGNATURE);
    assert.equal(requestsTo(ctx.sim, 'POST', '/v1/media').length, 1);
    assert.deepEqual(requestsTo(ctx.sim, 'POST', '/v1/images').at(-1)?.body, {
      aspect_ratio: '16:9',
      model: SIM_IMAGE_MODEL,
      prompt: 'a red square',
    });
    // Remembered: the next start goes straight to /v1/images, without asking /v1/media or the catalogs.
    const catalogReads = requestsTo(ctx.sim, 'GET', '/models').length;
    const again = await client.startMedia({ model: SIM_IMAGE_MODEL, prompt: 'a blue square' });
    assert.equal(again.route, 'images');
    assert.notEqual(again.id, started.id);
    assert.equal(requestsTo(ctx.sim, 'POST', '/v1/media').length, 1);
    assert.equal(requestsTo(ctx.sim, 'GET', '/models').length, catalogReads);
  });

  it('a chat model that draws gets modalities ["image", "text"], and its data-URL picture', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({
      model: SIM_CHAT_IMAGE_MODEL,
      prompt: 'a green square',
      parameters: { aspect_ratio: '1:1' },
    });
    assert.equal(started.route, 'chat-images');
    assert.equal(started.record?.status, 'completed');
    assert.equal(started.record?.cost, CHAT_IMAGE_COST);
    assert.equal(pngOf(started.record).subarray(0, 8).toString('hex'), PNG_SIGNATURE);
    const sent = requestsTo(ctx.sim, 'POST', '/v1/chat/completions').at(-1)?.body;
    assert.deepEqual(sent, {
      model: SIM_CHAT_IMAGE_MODEL,
      messages: [{ role: 'user', content: 'a green square' }],
      modalities: ['image', 'text'],
      image_config: { aspect_ratio: '1:1' },
    });
  });

  it('a chat answer without a picture is a failed job that quotes the model', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: SIM_CHAT_IMAGE_MODEL, prompt: 'nothing #sim:no-image' });
    assert.equal(started.record?.status, 'failed');
    assert.match(started.record?.error ?? '', /without a picture: I cannot draw that/);
  });

  it('a video model goes to /v1/videos, is polled at its relative polling URL, and its file is read with the key', async () => {
    const { client, key } = makeClient(ctx.sim);
    const started = await client.startMedia({
      model: SIM_VIDEO_MODEL,
      prompt: 'a clip',
      parameters: { duration: '4', resolution: '720p' },
    });
    assert.equal(started.route, 'videos');
    assert.equal(started.status, 'queued');
    assert.equal(started.record, undefined);
    assert.equal(started.pollingUrl, `${ctx.sim.origin}/api/v1/videos/${encodeURIComponent(started.id)}`);
    assert.deepEqual(requestsTo(ctx.sim, 'POST', '/v1/videos').at(-1)?.body, {
      model: SIM_VIDEO_MODEL,
      prompt: 'a clip',
      duration: 4,
      resolution: '720p',
    });
    const record = await ended(client, started.id, started.pollingUrl);
    assert.equal(record.status, 'completed');
    assert.equal(record.cost, VIDEO_COST);
    const output = record.outputs[0];
    assert.equal(output?.kind, 'url');
    const url = output.kind === 'url' ? output.url : '';
    assert.ok(url.startsWith(`${ctx.sim.baseUrl}/v1/videos/`), url);
    const file = await client.download(url);
    assert.equal(file.contentType, 'video/mp4');
    const read = requestsTo(ctx.sim, 'GET', '/content').at(-1);
    assert.equal(read?.headers.authorization, `Bearer ${key}`);
  });

  it('a reference image goes as input_references (images) or frame_images (a first-frame video model)', () => {
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const request = { model: 'm/x', prompt: 'p', parameters: { image } };
    assert.deepEqual(mediaRouteBody('images', request).input_references, [
      { type: 'image_url', image_url: { url: image } },
    ]);
    assert.deepEqual(mediaRouteBody('videos', request, 'frame_images').frame_images, [
      { type: 'image_url', image_url: { url: image }, frame_type: 'first_frame' },
    ]);
    const chat = mediaRouteBody('chat-images', request);
    assert.deepEqual((chat.messages as Array<{ content: unknown }>)[0].content, [
      { type: 'text', text: 'p' },
      { type: 'image_url', image_url: { url: image } },
    ]);
    assert.equal(mediaRouteBody('images', request).image, undefined);
  });

  it("a value the model's catalog entry does not offer is refused before anything is sent", async () => {
    const { client } = makeClient(ctx.sim);
    const before = requestsTo(ctx.sim, 'POST', '/v1/images').length;
    const error = await expectGatewayError(
      client.startMedia({ model: SIM_IMAGE_MODEL, prompt: 'x', parameters: { aspect_ratio: '5:4' } }),
      'config',
    );
    assert.equal(error.message, `${SIM_IMAGE_MODEL} takes aspect_ratio 1:1, 16:9, 9:16; not "5:4".`);
    assert.equal(requestsTo(ctx.sim, 'POST', '/v1/images').length, before);
    // Numbers and their text are the same value; a parameter the entry says nothing of is the gateway's.
    assert.equal(
      checkMediaParameters({ id: 'v', options: { duration: [4, 8] } }, { duration: '8', seed: 1 }),
      undefined,
    );
    assert.match(
      checkMediaParameters({ id: 'v', options: { duration: [4, 8] } }, { duration: {} }) ?? '',
      /not object/,
    );
    assert.equal(
      describeMediaOptions({ options: { duration: [4, 8], resolution: ['720p'] } }),
      'duration 4 | 8; resolution 720p',
    );
  });

  it('a model no catalog knows and no route serves keeps the /v1/media 404', async () => {
    const { client } = makeClient(ctx.sim);
    const error = await expectGatewayError(client.startMedia({ model: 'nobody/knows', prompt: 'x' }), 'http');
    assert.equal(error.status, 404);
  });

  it('lists every media model with its kind, route, price and parameters', async () => {
    const { client } = makeClient(ctx.sim);
    const models = await client.listMediaModels();
    const byId = new Map(models.map((m) => [m.id, m]));
    assert.equal(byId.get(SIM_IMAGE_MODEL)?.route, 'images');
    assert.equal(byId.get(SIM_IMAGE_MODEL)?.price, `$${IMAGE_COST} per image`);
    assert.deepEqual(byId.get(SIM_IMAGE_MODEL)?.options?.aspect_ratio, ['1:1', '16:9', '9:16']);
    assert.equal(byId.get(SIM_VIDEO_MODEL)?.kind, 'video');
    assert.deepEqual(byId.get(SIM_VIDEO_MODEL)?.options?.duration, [4, 8]);
    assert.equal(byId.get(SIM_CHAT_IMAGE_MODEL)?.route, 'chat-images');
    assert.equal(byId.get('openai/tts-1')?.kind, 'audio');
  });
});

describe('api: media routes on an OpenAI-style server (/v1/images/generations)', () => {
  const ctx = withSimulator({ mediaApi: 'openai' });

  it('b64_json completes at once with exactly the bytes served', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({
      model: 'openai/gpt-image-1',
      prompt: 'a red square',
      parameters: { size: '1024x1024' },
    });
    assert.equal(started.route, 'images-generations');
    assert.equal(started.record?.status, 'completed');
    assert.equal(pngOf(started.record).subarray(0, 8).toString('hex'), PNG_SIGNATURE);
    assert.deepEqual(requestsTo(ctx.sim, 'POST', '/v1/images/generations').at(-1)?.body, {
      size: '1024x1024',
      model: 'openai/gpt-image-1',
      prompt: 'a red square',
    });
  });

  it('a data[].url result on another origin is downloaded without the key', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt: 'a cat #sim:url' });
    const output = started.record?.outputs[0];
    assert.equal(output?.kind, 'url');
    const url = output?.kind === 'url' ? output.url : '';
    assert.ok(url.startsWith(ctx.sim.resultOrigin), url);
    const file = await client.download(url);
    assert.equal(Buffer.from(file.bytes).subarray(0, 8).toString('hex'), PNG_SIGNATURE);
    assert.equal(ctx.sim.resultRequests.at(-1)?.authorization, undefined);
  });
});

describe('api: the seed gateway keeps /v1/media first', () => {
  const ctx = withSimulator({});

  it('starts on /v1/media and never asks the catalogs', async () => {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt: 'x' });
    assert.equal(started.route, 'media');
    assert.equal(started.record, undefined);
    assert.equal(requestsTo(ctx.sim, 'GET', '/models').length, 0);
  });
});

describe('api: media catalogs and sync answers are read tolerantly', () => {
  it('catalog entries without ids, with odd values or of the wrong type are skipped', () => {
    assert.deepEqual(parseImageModels(undefined), []);
    assert.deepEqual(parseImageModels({ data: 'x' }), []);
    assert.deepEqual(parseVideoModels({ data: [null, 3, { id: '' }, { id: 'a b' }] }), []);
    const [image] = parseImageModels({ data: [{ ...IMAGE_MODELS[0], supported_parameters: 'x' }] });
    assert.equal(image.id, SIM_IMAGE_MODEL);
    assert.equal(image.options, undefined);
    const [video] = parseVideoModels({
      data: [{ ...VIDEO_MODELS[0], supported_durations: [4, 'x', NaN, {}] }],
    });
    assert.deepEqual(video.options?.duration, [4, 'x']);
    assert.deepEqual(
      parseChatMediaModels(
        { data: [{ id: 'a/b', architecture: { output_modalities: ['text'] } }] },
        'chat-images',
      ),
      [],
    );
  });

  it('a video priced by the second holds its dearest SKU per second, not a price per job', () => {
    const [bySecond] = parseVideoModels({
      data: [{ id: 'v/veo', pricing_skus: { 'per-video-second': '0.50', 'per-video-second-1080p': '0.75' } }],
    });
    assert.equal(bySecond.price, '$0.75 per second');
    const [byJob] = parseVideoModels({
      data: [{ id: 'v/clip', pricing_skus: { 'video-720p': '0.5', hd: '0.9' } }],
    });
    assert.equal(byJob.price, 'from $0.5');
  });

  it('a sync answer of any shape becomes a final record, never a throw', () => {
    for (const body of [undefined, null, 'x', [], { data: 'x' }, { choices: [{}] }, { data: [{}] }]) {
      for (const route of ['images', 'chat-images', 'images-generations'] as const) {
        const record = normalizeSyncRecord(route, body, 'id-1');
        assert.equal(record.id, 'id-1');
        assert.equal(record.status, 'failed');
      }
    }
  });
});
