/**
 * The simulator's OpenRouter-shaped media answers, checked against the official SDK's generated
 * schemas (`@openrouter/sdk`, its `$inboundSchema`s): what OpenRouter really sends. A simulator
 * that drifted from the service would let our client pass against answers nobody sends.
 */
import * as assert from 'node:assert/strict';
import { SIM_CHAT_IMAGE_MODEL, SIM_IMAGE_MODEL, SIM_VIDEO_MODEL } from '../../simulator';
import { freshKey, withSimulator } from './helpers';

interface Schema {
  safeParse(value: unknown): { success: boolean; error?: { message: string } };
}

/** The SDK's schemas (an ES module: loaded at run time, outside the type checker's resolution). */
function sdkModels(): Record<string, Schema> {
  const name = '@openrouter/sdk/models';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(name) as Record<string, Schema>;
}

function schema(name: string): Schema {
  const found = sdkModels()[`${name}$inboundSchema`];
  assert.ok(found, `the SDK exports ${name}$inboundSchema`);
  return found;
}

function assertShape(name: string, value: unknown): void {
  const result = schema(name).safeParse(value);
  assert.ok(
    result.success,
    `${name}: ${result.error?.message ?? ''}\n${JSON.stringify(value).slice(0, 2000)}`,
  );
}

describe('contract: the simulator answers media as @openrouter/sdk says OpenRouter does', () => {
  const ctx = withSimulator({
    mediaApi: 'openrouter',
    mediaTimings: { queuedMs: 0, processingMs: 0, queuedPolls: 1, processingPolls: 1 },
  });
  const key = freshKey('contract');

  before(function () {
    // The SDK is large: its first load takes seconds on a busy machine.
    this.timeout(60_000);
    sdkModels();
  });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<[number, unknown]> {
    const response = await fetch(`${ctx.sim.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return [response.status, await response.json()];
  }

  it('the schemas reject an answer of the wrong shape (so the checks below mean something)', () => {
    assert.equal(schema('ImageGenerationResponse').safeParse({ data: [{ url: 'x' }] }).success, false);
    assert.equal(schema('VideoGenerationResponse').safeParse({ id: 'x', status: 'pending' }).success, false);
    assert.equal(schema('VideoModelsListResponse').safeParse({ data: [{ id: 'x' }] }).success, false);
  });

  it('GET /v1/images/models and /v1/videos/models', async () => {
    const [imageStatus, images] = await call('GET', '/v1/images/models');
    assert.equal(imageStatus, 200);
    assertShape('ImageModelsListResponse', images);
    const [videoStatus, videos] = await call('GET', '/v1/videos/models');
    assert.equal(videoStatus, 200);
    assertShape('VideoModelsListResponse', videos);
  });

  it('POST /v1/images', async () => {
    const [status, body] = await call('POST', '/v1/images', {
      model: SIM_IMAGE_MODEL,
      prompt: 'a red square',
      n: 2,
    });
    assert.equal(status, 200);
    assertShape('ImageGenerationResponse', body);
  });

  it('chat completions with modalities ["image", "text"]', async () => {
    const [status, body] = await call('POST', '/v1/chat/completions', {
      model: SIM_CHAT_IMAGE_MODEL,
      messages: [{ role: 'user', content: 'a blue square' }],
      modalities: ['image', 'text'],
    });
    assert.equal(status, 200);
    assertShape('ChatResult', body);
  });

  it('POST /v1/videos, then every status of the job (pending, in_progress, completed, failed, cancelled, expired)', async () => {
    const prompts = ['a clip', 'x #sim:outcome:failed', 'x #sim:outcome:cancelled', 'x #sim:outcome:expired'];
    const seen = new Set<string>();
    for (const prompt of prompts) {
      const [status, started] = await call('POST', '/v1/videos', { model: SIM_VIDEO_MODEL, prompt });
      assert.equal(status, 202);
      assertShape('VideoGenerationResponse', started);
      const { id } = started as { id: string };
      for (let i = 0; i < 3; i++) {
        const [pollStatus, record] = await call('GET', `/v1/videos/${encodeURIComponent(id)}`);
        assert.equal(pollStatus, 200);
        assertShape('VideoGenerationResponse', record);
        seen.add((record as { status: string }).status);
      }
    }
    assert.deepEqual([...seen].sort(), [
      'cancelled',
      'completed',
      'expired',
      'failed',
      'in_progress',
      'pending',
    ]);
  });
});
