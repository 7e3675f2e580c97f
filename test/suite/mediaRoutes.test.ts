import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MediaJob } from '../../src/core/media/mediaJob';
import { MediaJobStore } from '../../src/host/media/jobs/mediaJobStore';
import type { MediaGalleryPanel } from '../../src/host/media/views/galleryPanel';
import type { MediaPreviewPanel } from '../../src/host/media/views/mediaPreview';
import {
  CHAT_IMAGE_COST,
  IMAGE_COST,
  MP4_BYTES,
  SIM_CHAT_IMAGE_MODEL,
  SIM_IMAGE_MODEL,
  SIM_VIDEO_MODEL,
  VIDEO_COST,
  startGatewaySimulator,
} from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { parseHostMessage, parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { MediaCardState } from '../../src/core/protocol/mediaCardProtocol';
import { gatewayApi, openChatView, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/** The card states the chat view was sent for `jobId`, as the webview parses them. */
function cardStates(jobId: string): MediaCardState[] {
  return observed.webviewMessages
    .filter((m) => m.target === 'chat view')
    .map((m) => parseHostMessage(JSON.parse(m.json)))
    .flatMap((m) => (m?.type === 'mediaJob' && m.job.jobId === jobId ? [m.job] : []));
}

/**
 * Media on gateways without `POST /v1/media`: OpenRouter (images at `/v1/images`, pictures from
 * chat models through `modalities`, videos at `/v1/videos`) and OpenAI-style servers
 * (`/v1/images/generations`, results by URL on another origin). Every job completes, opens, and
 * saves exactly the bytes the gateway served; the gallery shows every image it made, after a
 * reload too.
 */
describe('Media routes: OpenRouter and OpenAI-style gateways', function () {
  let openRouter: GatewaySimulator;
  let openAi: GatewaySimulator;
  const made: string[] = [];

  before(async () => {
    openRouter = await startGatewaySimulator({
      mediaApi: 'openrouter',
      mediaTimings: { queuedMs: 0, processingMs: 0, queuedPolls: 1, processingPolls: 1 },
    });
    openAi = await startGatewaySimulator({ mediaApi: 'openai' });
    await setSetting('baseUrl', openRouter.baseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const api = await gatewayApi();
    await api.media.whenLoaded();
    api.media.clearFinished();
  });

  let openGallery: MediaGalleryPanel | undefined;

  after(async () => {
    openGallery?.panel.dispose();
    await openRouter.close();
    await openAi.close();
  });

  async function generate(
    model: string,
    prompt: string,
    parameters?: Record<string, unknown>,
  ): Promise<string> {
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      model,
      prompt,
      parameters,
    });
    assert.ok(typeof id === 'string' && id.length > 0, 'the command returns the job id');
    made.push(id);
    return id;
  }

  async function completed(id: string): Promise<MediaJob> {
    const api = await gatewayApi();
    const job = await waitFor(
      () => {
        const found = api.media.model.get(id);
        return found && !['queued', 'processing'].includes(found.status) && found;
      },
      `job ${id} to end`,
      20_000,
    );
    assert.equal(job.status, 'completed', `${job.status}: ${job.error ?? ''}`);
    return job;
  }

  /** Opens the result, then saves it into the workspace; the saved file's bytes. */
  async function openAndSave(job: MediaJob, tag: RegExp): Promise<Uint8Array> {
    const api = await gatewayApi();
    const preview = await vscode.commands.executeCommand<MediaPreviewPanel>('gateway.openMediaResult', job);
    assert.ok(preview, 'a preview opened');
    assert.match(preview.panel.webview.html, tag, 'the result is shown from a local file');
    preview.panel.dispose();
    const [saved] = await api.media.studio.save(api.media.model.get(job.id)!, 'routes');
    assert.ok(saved, 'a file was saved');
    return vscode.workspace.fs.readFile(saved.uri);
  }

  it('an image model at /v1/images: the job is completed at once, opens, and saves exactly the served bytes', async () => {
    const id = await generate(SIM_IMAGE_MODEL, 'a red square', { aspect_ratio: '16:9' });
    const job = await completed(id);
    assert.equal(job.cost, IMAGE_COST);
    const posted = openRouter.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/images'));
    assert.equal(posted.length, 1);
    assert.deepEqual(posted[0].body, {
      aspect_ratio: '16:9',
      model: SIM_IMAGE_MODEL,
      prompt: 'a red square',
    });
    const served = openRouter.servedMedia.at(-1)!;
    const saved = await openAndSave(job, /<img class="media-output" src="[^"]+\.png"/);
    assert.deepEqual(Buffer.from(saved), served);
    const api = await gatewayApi();
    const tooltip = api.media.tree.getTreeItem(api.media.model.get(id)!).tooltip;
    assert.equal(typeof tooltip, 'string');
    assert.match(tooltip as string, /Cost: /);
  });

  it('a chat model that draws, through modalities: completed, opens, and saves exactly the served bytes', async () => {
    const id = await generate(SIM_CHAT_IMAGE_MODEL, 'a blue square');
    const job = await completed(id);
    assert.equal(job.cost, CHAT_IMAGE_COST);
    const chat = openRouter.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
    assert.deepEqual((chat?.body as { modalities?: unknown }).modalities, ['image', 'text']);
    const served = openRouter.servedMedia.at(-1)!;
    const saved = await openAndSave(job, /<img class="media-output" src="[^"]+\.png"/);
    assert.deepEqual(Buffer.from(saved), served);
  });

  it('a video model at /v1/videos: polled to completion, opens, and saves exactly the served file', async () => {
    const id = await generate(SIM_VIDEO_MODEL, 'a tiny clip', { duration: 4 });
    const job = await completed(id);
    assert.equal(job.cost, VIDEO_COST);
    const polls = openRouter.requests.filter((r) => r.method === 'GET' && r.path.includes('/v1/videos/'));
    assert.ok(polls.length >= 2, 'the job was polled at its polling URL');
    assert.ok(polls.every((r) => r.headers.authorization === `Bearer ${TEST_KEY}`));
    const saved = await openAndSave(job, /<video class="media-output" src="[^"]+"/);
    assert.deepEqual(Buffer.from(saved), MP4_BYTES);
  });

  it('/image in the chat with an OpenRouter image model: the card shows the picture and its cost', async () => {
    const api = await gatewayApi();
    await openChatView();
    await vscode.commands.executeCommand('gateway.newChat');
    const message = parseWebviewMessage({
      type: 'send',
      text: `/image a yellow square --model ${SIM_IMAGE_MODEL}`,
    });
    assert.ok(message);
    await api.chatRouter.handle(message);
    const card = (await api.chat.current()).turns.at(-1);
    assert.ok(card?.role === 'assistant' && card.media, 'the reply turn is a media card');
    const { jobId } = card.media;
    made.push(jobId);
    const job = await completed(jobId);
    const served = openRouter.servedMedia.at(-1)!;
    const shown = await waitFor(
      () => cardStates(jobId).find((s) => s.status === 'completed' && s.outputs.length > 0),
      'the card to show the completed result',
      20_000,
    );
    assert.equal(shown.outputs[0].kind, 'image');
    assert.equal(shown.cost, IMAGE_COST, 'the card shows the cost');
    const saved = await openAndSave(job, /<img class="media-output" src="[^"]+\.png"/);
    assert.deepEqual(Buffer.from(saved), served);
  });

  it("the agents' tool gateway_generateMedia with an OpenRouter image model saves exactly the served bytes", async () => {
    const result = await vscode.lm.invokeTool('gateway_generateMedia', {
      toolInvocationToken: undefined,
      input: { prompt: 'a purple square', model: SIM_IMAGE_MODEL, saveTo: 'routes-tool' },
    });
    const text = result.content.map((part) => (part as vscode.LanguageModelTextPart).value).join('');
    const path = /"(routes-tool\/[^"]+\.png)"/.exec(text)?.[1];
    assert.ok(path, text);
    const root = vscode.workspace.workspaceFolders![0].uri;
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, path));
    assert.deepEqual(Buffer.from(bytes), openRouter.servedMedia.at(-1));
    const api = await gatewayApi();
    const job = api.media.model.all().find((j) => j.prompt === 'a purple square');
    assert.ok(job, 'the tool made a job');
    made.push(job.id);
  });

  /** Sends `text` from the chat's composer, as the webview does. */
  async function sendInChat(text: string): Promise<void> {
    const api = await gatewayApi();
    const message = parseWebviewMessage({ type: 'send', text });
    assert.ok(message);
    await api.chatRouter.handle(message);
  }

  /** The composer notices the chat view was sent after the first `since` of them. */
  function notices(since = 0): string[] {
    return observed.webviewMessages
      .filter((m) => m.target === 'chat view')
      .map((m) => parseHostMessage(JSON.parse(m.json)))
      .flatMap((m) => (m?.type === 'composerNotice' ? [m.message] : []))
      .slice(since);
  }

  it('/video in the chat lists the video models, refuses a value the model does not take, and makes the clip', async () => {
    const api = await gatewayApi();
    await openChatView();
    await vscode.commands.executeCommand('gateway.newChat');
    const videoPosts = () =>
      openRouter.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/videos')).length;
    const postsBefore = videoPosts();

    // The command alone lists the catalog's video models with price and parameters.
    let seen = notices().length;
    await sendInChat('/video');
    const [listing] = notices(seen);
    assert.ok(listing, 'a notice answered /video');
    assert.match(listing, /^Video models on this gateway \(\d+\):\n/);
    assert.match(listing, new RegExp(`${SIM_VIDEO_MODEL} \\(video, from \\$0\\.5\\)`));
    assert.match(listing, /duration 4 \| 8/);
    assert.match(listing, /aspect_ratio 16:9 \| 9:16/);
    assert.match(listing, /generate_audio true \| false/);
    assert.doesNotMatch(listing, new RegExp(SIM_IMAGE_MODEL), 'only video models');

    // A duration the catalog does not offer, and an image model: refused before anything is sent.
    seen = notices().length;
    await sendInChat(`/video a tiny clip --model ${SIM_VIDEO_MODEL} --duration 5`);
    assert.deepEqual(notices(seen), [`${SIM_VIDEO_MODEL} takes duration 4, 8; not "5".`]);
    seen = notices().length;
    await sendInChat(`/video a tiny clip --model ${SIM_IMAGE_MODEL}`);
    assert.match(
      notices(seen)[0] ?? '',
      new RegExp(`does not make video: it makes images, .* Models that make video: ${SIM_VIDEO_MODEL}`),
    );
    assert.equal(videoPosts(), postsBefore, 'nothing was sent');
    const turnsBefore = (await api.chat.current()).turns.length;
    assert.equal(turnsBefore, 0, 'a refused command adds no turn');

    // A valid one: polled to completion, and the card shows the clip and its cost.
    await sendInChat(
      `/video a tiny clip --model ${SIM_VIDEO_MODEL} --duration 8 --aspect_ratio 16:9 --generate_audio false`,
    );
    const card = (await api.chat.current()).turns.at(-1);
    assert.ok(card?.role === 'assistant' && card.media, 'the reply turn is a media card');
    const { jobId } = card.media;
    made.push(jobId);
    const posted = openRouter.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/videos'));
    assert.equal(posted.length, postsBefore + 1);
    const body = posted.at(-1)!.body as Record<string, unknown>;
    assert.equal(body.duration, 8);
    assert.equal(body.aspect_ratio, '16:9');
    assert.equal(body.generate_audio, false);
    const job = await completed(jobId);
    assert.equal(job.cost, VIDEO_COST);
    const shown = await waitFor(
      () => cardStates(jobId).find((s) => s.status === 'completed' && s.outputs.length > 0),
      'the card to show the clip',
      20_000,
    );
    assert.equal(shown.outputs[0].kind, 'video');
    assert.equal(shown.cost, VIDEO_COST, 'the card shows the cost');
    const saved = await openAndSave(job, /<video class="media-output" src="[^"]+"/);
    assert.deepEqual(Buffer.from(saved), MP4_BYTES);
  });

  it("the agents' tool lists the gateway's media models and refuses a value a model's entry does not offer", async () => {
    const result = await vscode.lm.invokeTool('gateway_generateMedia', {
      toolInvocationToken: undefined,
      input: { listModels: 'all' },
    });
    const text = result.content.map((part) => (part as vscode.LanguageModelTextPart).value).join('');
    for (const model of [SIM_IMAGE_MODEL, SIM_VIDEO_MODEL, SIM_CHAT_IMAGE_MODEL])
      assert.match(text, new RegExp(model), `lists ${model}`);
    assert.match(text, /\$0\.03 per image/, 'with prices');
    assert.match(text, /resolution 1K \| 2K/, 'and parameters');
    const posts = openRouter.requests.filter((r) => r.method === 'POST').length;
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('gateway_generateMedia', {
          toolInvocationToken: undefined,
          input: { prompt: 'a grey square', model: SIM_IMAGE_MODEL, parameters: { quality: 'ultra' } },
        }),
      ),
      (error: Error) => {
        assert.match(error.message, new RegExp(`${SIM_IMAGE_MODEL} takes quality low, high; not "ultra"`));
        return true;
      },
    );
    assert.equal(openRouter.requests.filter((r) => r.method === 'POST').length, posts, 'nothing was sent');
  });

  it('a chat model that draws, in an ordinary chat turn: the streamed delta.images show as a card after the reply', async () => {
    const api = await gatewayApi();
    await openChatView();
    await vscode.commands.executeCommand('gateway.newChat');
    const before = vscode.workspace.getConfiguration('gateway').get<string>('chat.model');
    await setSetting('chat.model', SIM_CHAT_IMAGE_MODEL);
    try {
      await sendInChat('draw an orange square');
      const sent = openRouter.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
      const body = sent?.body as { stream?: unknown; modalities?: unknown };
      assert.equal(body.stream, true, 'streamed');
      assert.deepEqual(body.modalities, ['image', 'text'], 'the catalog says it draws: pictures asked for');
      const served = openRouter.servedMedia.at(-1)!;
      const card = await waitFor(
        async () => (await api.chat.current()).turns.find((t) => t.role === 'assistant' && t.media),
        'a card for the pictures',
        20_000,
      );
      assert.ok(card.role === 'assistant' && card.media);
      const turns = (await api.chat.current()).turns;
      const reply = turns.find((t) => t.role === 'assistant' && !t.media);
      assert.equal(reply?.role === 'assistant' && reply.content, 'Here is your picture.');
      assert.equal(card.media.prompt, 'draw an orange square');
      const shown = await waitFor(
        () => cardStates(card.media!.jobId).find((s) => s.status === 'completed' && s.outputs.length > 0),
        'the card to show the picture',
        20_000,
      );
      assert.equal(shown.outputs[0].kind, 'image');
      const job = api.media.model.get(card.media.jobId)!;
      const saved = await openAndSave(job, /<img class="media-output" src="[^"]+\.png"/);
      assert.deepEqual(Buffer.from(saved), served, 'exactly the streamed bytes');
      const reopened = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
      const item = (await reopened.items()).find((i) => i.id === job.id);
      reopened.panel.dispose();
      assert.equal(item?.kind, 'image', 'the gallery shows it too');
    } finally {
      await setSetting('chat.model', before);
    }
  });

  it('an OpenAI-style server (/v1/images/generations, result by URL elsewhere): the key never leaves the gateway', async () => {
    await setSetting('baseUrl', openAi.baseUrl);
    // The key belongs to one origin: a user who moves to another gateway enters its key.
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    try {
      const id = await generate('openai/gpt-image-1', 'a green square #sim:url');
      const job = await completed(id);
      const output = job.outputs[0];
      assert.ok(output?.kind === 'url' && output.url.startsWith(openAi.resultOrigin), JSON.stringify(output));
      const saved = await openAndSave(job, /<img class="media-output" src="[^"]+"/);
      assert.deepEqual([...saved.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a real PNG');
      assert.ok(openAi.resultRequests.length >= 1);
      assert.ok(
        openAi.resultRequests.every((r) => r.authorization === undefined),
        'no key to another origin',
      );
    } finally {
      await setSetting('baseUrl', openRouter.baseUrl);
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
  });

  it('after a reload the gallery shows a thumbnail drawn from the loaded image of every completed image, whatever its route', async () => {
    const api = await gatewayApi();
    await api.media.flush();
    // What a new window reads: every job stored, each image kept as a local file or a link.
    const store = new MediaJobStore(api.context.globalState, api.context.globalStorageUri, {
      warn() {},
    } as never);
    const { jobs } = await store.load();
    const images = made
      .map((id) => jobs.find((job) => job.id === id))
      .filter((job): job is MediaJob => job?.status === 'completed' && job.model !== SIM_VIDEO_MODEL);
    assert.equal(images.length, 5, 'five image jobs were stored');

    const gallery = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    openGallery = gallery;
    // The page draws a thumbnail only once an image has loaded; the host keeps it as a file.
    for (const job of images)
      await waitFor(
        async () => {
          try {
            return (await vscode.workspace.fs.stat(api.media.studio.thumbnailFile(job.id))).size > 0;
          } catch {
            return false;
          }
        },
        `the thumbnail of ${job.model}'s result`,
        20_000,
      );
    gallery.panel.dispose();
    openGallery = undefined;

    // Reopened, as after a reload: every image shows its cached thumbnail, no placeholder.
    const reopened = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    openGallery = reopened;
    const items = await reopened.items();
    for (const job of images) {
      const item = items.find((i) => i.id === job.id);
      assert.equal(item?.kind, 'image', job.model);
      assert.ok(item.src, `${job.model}: a thumbnail, not a placeholder`);
      assert.ok(item.src.includes('media-thumbnails'), `${job.model}: the cached thumbnail (${item.src})`);
    }
    const video = items.find((i) => i.model === SIM_VIDEO_MODEL);
    assert.equal(video?.kind, 'video', 'a video shows as a video tile');
    // Its file, served by URL, is downloaded once (as an image's is), then the tile shows it.
    const shownVideo = await waitFor(
      async () => (await reopened.items()).find((i) => i.id === video.id && i.src),
      'the video tile to show the video itself',
      20_000,
    );
    assert.match(shownVideo.src!, /^https:\/\/.*vscode-(resource|cdn)/, 'a local file as the webview URL');
    assert.equal(video.cost, VIDEO_COST, 'with its cost');
  });
});
