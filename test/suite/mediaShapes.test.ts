import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MediaJob } from '../../src/core/media/mediaJob';
import { MediaJobStore } from '../../src/host/media/jobs/mediaJobStore';
import type { MediaPreviewPanel } from '../../src/host/media/views/mediaPreview';
import type { MediaGalleryPanel } from '../../src/host/media/views/galleryPanel';
import { MEDIA_SHAPES, startGatewaySimulator, VIDEO_COST } from '../simulator';
import type { GatewaySimulator, MediaShape } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/**
 * Media jobs answered as real async media APIs answer them (OpenRouter and OpenAI videos,
 * Replicate, fal, Runway, and the `result_urls` / `resultUrls` / `videoUrl` kinds): each runs to
 * its end in the Media Jobs tree, and its result opens. Results on another origin never get the key.
 */
describe('Media shapes', function () {
  let sim: GatewaySimulator;
  /** Every description the tree showed for each job, in order. */
  const described = new Map<string, string[]>();
  let listener: vscode.Disposable | undefined;

  before(async () => {
    // Counted: the first status check answers queued, the second processing (50%), the third the end.
    sim = await startGatewaySimulator({
      mediaTimings: { queuedMs: 0, processingMs: 0, queuedPolls: 1, processingPolls: 1 },
    });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('media.model', 'testvendor/video-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const api = await gatewayApi();
    api.media.clearFinished();
    listener = api.media.model.onDidChange(({ changed }) => {
      for (const id of changed) {
        const job = api.media.model.get(id);
        if (!job) continue;
        const seen = described.get(id) ?? [];
        const description = String(api.media.tree.getTreeItem(job).description);
        if (seen.at(-1) !== description) seen.push(description);
        described.set(id, seen);
      }
    });
  });

  after(async () => {
    listener?.dispose();
    await setSetting('media.model', undefined);
    await sim.close();
  });

  async function generate(prompt: string): Promise<string> {
    return vscode.commands.executeCommand<string>('gateway.generateMedia', { prompt });
  }

  function ended(id: string): Promise<MediaJob> {
    return waitFor(
      async () => {
        const api = await gatewayApi();
        const job = api.media.model.get(id);
        return job && ['completed', 'failed', 'cancelled', 'expired', 'unknown'].includes(job.status) && job;
      },
      `job ${id} to end`,
      30_000,
    );
  }

  it('every shape completes, shows its progress in the tree, and its result opens', async () => {
    const ids = new Map<MediaShape, string>();
    for (const shape of MEDIA_SHAPES) ids.set(shape, await generate(`a ${shape} clip #sim:shape:${shape}`));
    for (const [shape, id] of ids) {
      const job = await ended(id);
      assert.equal(job.status, 'completed', `${shape}: ${job.status} ${job.error ?? ''}`);
      assert.ok(job.outputs.length > 0, shape);
      const preview = await vscode.commands.executeCommand<MediaPreviewPanel>('gateway.openMediaResult', job);
      assert.ok(preview, `${shape}: a preview opened`);
      assert.match(
        preview.panel.webview.html,
        /<(img|video) class="media-output" src="[^"]+"/,
        `${shape}: the result is shown from a local file`,
      );
      preview.panel.dispose();
    }
    // Where a gateway says how far a job is, the tree says so too.
    const seen = (shape: MediaShape): string[] => described.get(ids.get(shape)!) ?? [];
    for (const shape of ['openai', 'runway'] as const)
      assert.ok(
        seen(shape).some((text) => text.startsWith('processing 50% · ')),
        `${shape}: ${seen(shape).join(' | ')}`,
      );
    assert.ok(
      seen('fal').some((text) => text.startsWith('queued (2 ahead) · ')),
      `fal: ${seen('fal').join(' | ')}`,
    );
    // The key went with the downloads from the gateway's own origin, and nowhere else.
    const content = sim.requests.filter((r) => r.path.endsWith('/content'));
    assert.ok(content.length >= 3, 'the key-protected files were fetched');
    for (const request of content) assert.equal(request.headers.authorization, `Bearer ${TEST_KEY}`);
    assert.ok(sim.resultRequests.length >= 4, 'results on the second origin were fetched');
    for (const request of sim.resultRequests)
      assert.equal(request.authorization, undefined, `${request.path} got no key`);
  });

  it('polls the relative polling URL of an OpenRouter video, and a reload keeps polling it', async () => {
    const api = await gatewayApi();
    const before = sim.requests.length;
    const id = await generate('a reloaded clip #sim:shape:openrouter');
    const job = api.media.model.get(id)!;
    assert.equal(job.pollingUrl, `${sim.baseUrl}/v1/videos/${encodeURIComponent(id)}`);
    await api.media.flush();
    // What a new window reads: the stored job with its polling URL.
    const store = new MediaJobStore(api.context.globalState, api.context.globalStorageUri, {
      warn() {},
    } as never);
    const stored = (await store.load()).jobs.find((j) => j.id === id);
    assert.equal(stored?.pollingUrl, job.pollingUrl);
    await ended(id);
    const polls = sim.requests
      .slice(before)
      .filter((r) => r.method === 'GET' && !r.path.endsWith('/content'));
    assert.ok(polls.length >= 3, `${polls.length} status checks`);
    for (const poll of polls) assert.equal(poll.path, `/api/v1/videos/${encodeURIComponent(id)}`);
  });

  it('shows what a job cost in the tree’s tooltip and on the gallery card, and counts it in today’s cost', async () => {
    const api = await gatewayApi();
    const mediaBefore = api.costs.today().bySource.media ?? 0;
    const id = await generate('a priced clip #sim:shape:openrouter');
    const job = await ended(id);
    assert.equal(job.cost, VIDEO_COST);
    // Recorded once, when this window saw the job finish.
    assert.ok(Math.abs((api.costs.today().bySource.media ?? 0) - mediaBefore - VIDEO_COST) < 1e-9);
    const tooltip = api.media.tree.getTreeItem(job).tooltip;
    assert.equal(typeof tooltip, 'string', 'plain text');
    assert.match(tooltip as string, /Cost: \$0\.5000/);
    const gallery = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    const card = (await gallery.items()).find((item) => item.id === id);
    assert.equal(card?.cost, VIDEO_COST);
    gallery.panel.dispose();
  });

  it('cancelled and expired jobs end as such: tree, notification, gallery and the agents’ tool', async () => {
    const api = await gatewayApi();
    const shownBefore = observed.notifications.length;
    const cancelled = await ended(await generate('stop it #sim:shape:runway #sim:outcome:cancelled'));
    const expired = await ended(await generate('too late #sim:shape:openrouter #sim:outcome:expired'));
    for (const [job, status, icon] of [
      [cancelled, 'cancelled', 'circle-slash'],
      [expired, 'expired', 'history'],
    ] as const) {
      assert.equal(job.status, status);
      const item = api.media.tree.getTreeItem(job);
      assert.equal(item.contextValue, `mediaJob.${status}`);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, icon);
      assert.match(String(item.description), new RegExp(`^${status} · `));
      assert.equal(item.command, undefined, 'nothing to open');
    }
    if (observed.windowObservable)
      await waitFor(
        () =>
          observed.notifications
            .slice(shownBefore)
            .some((n) => /was cancelled at the gateway/.test(n.message)),
        'the cancellation notice',
      );
    const gallery = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    const cards = await gallery.items();
    assert.equal(cards.find((c) => c.id === expired.id)?.status, 'expired');
    gallery.panel.dispose();

    // The agents' tool says how the job ended, not that it failed.
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('gateway_generateMedia', {
          toolInvocationToken: undefined,
          input: { prompt: 'tool clip #sim:shape:openrouter #sim:outcome:expired' },
        }),
      ),
      (error: Error) => /expired at the gateway/.test(error.message) && !/failed/.test(error.message),
    );
  });
});
