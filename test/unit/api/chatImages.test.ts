import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChatChunkReader } from '../../../src/api/chatChunks';
import { MAX_CHAT_IMAGES, MAX_CHAT_IMAGE_CHARS, parseChatImages } from '../../../src/api/chatImages';
import { foldChatDeltas } from '../../../src/api/fold';
import { normalizeSyncRecord } from '../../../src/api/mediaRoutes';
import type { ChatDelta } from '../../../src/api/types';
import { CHAT_IMAGE_COST, SIM_CHAT_IMAGE_MODEL } from '../../simulator';
import { makeClient, withSimulator } from './helpers';

const PNG = 'iVBORw0KGgo=';
const part = (url: unknown) => ({ type: 'image_url', image_url: { url } });

describe('api: pictures in chat replies (message.images, streamed delta.images)', () => {
  it('takes inline png, jpeg, webp and gif pictures', () => {
    assert.deepEqual(
      parseChatImages([part(`data:image/png;base64,${PNG}`), part('data:IMAGE/WEBP;base64,AAAA')]),
      [
        { mimeType: 'image/png', data: PNG },
        { mimeType: 'image/webp', data: 'AAAA' },
      ],
    );
  });

  it('hostile entries are left out: links, other types, svg, bad base64, monsters, odd shapes', () => {
    const hostile: unknown[] = [
      part('https://evil.example/a.png'),
      part('http://127.0.0.1/a.png'),
      part('file:///etc/passwd'),
      part('javascript:alert(1)'),
      part('data:image/svg+xml;base64,PHN2Zz48L3N2Zz4='),
      part('data:text/html;base64,PGI+'),
      part('data:image/png,not-base64'),
      part('data:image/png;base64,<script>'),
      part(`data:image/png;base64,${'A'.repeat(MAX_CHAT_IMAGE_CHARS + 4)}`),
      part(42),
      { image_url: null },
      null,
      'data:image/png;base64,AAAA',
      { __proto__: { image_url: { url: `data:image/png;base64,${PNG}` } } },
    ];
    assert.deepEqual(parseChatImages(hostile), []);
    assert.deepEqual(parseChatImages({ length: 3 }), []);
    assert.deepEqual(parseChatImages('data:image/png;base64,AAAA'), []);
  });

  it('a reply brings at most MAX_CHAT_IMAGES, across all its chunks', () => {
    const reader = new ChatChunkReader('sk-secret');
    const out: ChatDelta[] = [];
    const many = Array.from({ length: 5 }, () => part(`data:image/png;base64,${PNG}`));
    for (let i = 0; i < 4; i++) reader.read({ choices: [{ index: 0, delta: { images: many } }] }, out);
    const folded = foldChatDeltas(out);
    assert.equal(folded.images?.length, MAX_CHAT_IMAGES);
  });

  it('never throws on any JSON, and takes only data:image URLs with base64', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const image of parseChatImages(value)) {
          assert.match(image.mimeType, /^image\/(png|jpeg|webp|gif)$/);
          assert.match(image.data, /^[A-Za-z0-9+/]+={0,2}$/);
        }
        const reader = new ChatChunkReader('sk-secret');
        reader.read({ choices: [{ index: 0, delta: { images: value } }] }, []);
      }),
    );
  });

  it('the chat-images route reads its pictures at the same boundary: a link there is no result', () => {
    const record = normalizeSyncRecord(
      'chat-images',
      { choices: [{ message: { content: 'here', images: [part('https://elsewhere.example/x.png')] } }] },
      'job',
    );
    assert.equal(record.status, 'failed');
  });

  describe('streamed from an OpenRouter-shaped gateway', () => {
    const ctx = withSimulator({ mediaApi: 'openrouter' });

    it('delta.images arrive as an images delta, with the reply text and its cost', async () => {
      const { client } = makeClient(ctx.sim);
      const deltas: ChatDelta[] = [];
      for await (const delta of client.streamChat({
        model: SIM_CHAT_IMAGE_MODEL,
        messages: [{ role: 'user', content: 'a red square' }],
        modalities: ['image', 'text'],
      }))
        deltas.push(delta);
      const reply = foldChatDeltas(deltas);
      assert.equal(reply.content, 'Here is your picture.');
      assert.equal(reply.images?.length, 1);
      assert.equal(reply.images[0].mimeType, 'image/png');
      assert.deepEqual(Buffer.from(reply.images[0].data, 'base64'), ctx.sim.servedMedia.at(-1));
      assert.equal(reply.usage?.cost, CHAT_IMAGE_COST);
    });
  });
});
