import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { parseHostMessage, parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { HostMessage } from '../../src/core/protocol/chatProtocol';
import type { MediaCardState } from '../../src/core/protocol/mediaCardProtocol';
import type { GalleryItem } from '../../src/core/protocol/galleryProtocol';
import type { MediaGalleryPanel } from '../../src/host/media/views/galleryPanel';
import { startGatewaySimulator } from '../simulator';
import { MEDIA_COST } from '../simulator/media';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, openChatView, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/** The messages of `type` the chat view was sent, as the webview parses them. */
function chatViewMessages<T extends HostMessage['type']>(type: T): Array<Extract<HostMessage, { type: T }>> {
  return observed.webviewMessages
    .filter((m) => m.target === 'chat view')
    .map((m) => parseHostMessage(JSON.parse(m.json)))
    .filter((m): m is Extract<HostMessage, { type: T }> => m?.type === type);
}

/** The card states the chat view was sent for `jobId`. */
function cardStates(jobId: string): MediaCardState[] {
  return chatViewMessages('mediaJob').flatMap((m) => (m.job.jobId === jobId ? [m.job] : []));
}

describe('Media from the chat: /image starts a job the Media Jobs tree shows, and its card follows it', function () {
  let sim: GatewaySimulator;

  function mediaPosts() {
    return sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/media'));
  }

  /** What the webview sends when the user presses Enter, through the same boundary. */
  async function typed(text: string): Promise<void> {
    const api = await gatewayApi();
    const message = parseWebviewMessage({ type: 'send', text });
    assert.ok(message);
    await api.chatRouter.handle(message);
  }

  before(async () => {
    sim = await startGatewaySimulator({ mediaTimings: { queuedMs: 600, processingMs: 800 } });
    await setSetting('baseUrl', sim.baseUrl);
    // The simulator's catalog says this one makes images only.
    await setSetting('media.model', 'openai/gpt-image-1');
    await setSetting('media.parameters', { quality: 'low' });
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await openChatView();
    await vscode.commands.executeCommand('gateway.newChat');
  });

  after(async () => {
    await setSetting('media.model', undefined);
    await setSetting('media.parameters', undefined);
    await sim.close();
  });

  it('starts the job through the media feature, and the card goes queued → processing → completed with the image', async () => {
    const api = await gatewayApi();
    const posts = mediaPosts().length;
    await typed('/image a red square --size 64x64');

    const turns = (await api.chat.current()).turns;
    const [command, card] = turns.slice(-2);
    assert.equal(command.role, 'user');
    assert.equal(command.content, '/image a red square --size 64x64');
    assert.ok(card.role === 'assistant' && card.media, 'the reply turn is a media card');
    const { jobId } = card.media;
    assert.deepEqual(card.media, { jobId, kind: 'image', prompt: 'a red square' });

    // One model for both views: the job is the media feature's, and the tree lists it.
    assert.equal(mediaPosts().length, posts + 1);
    assert.deepEqual(mediaPosts().at(-1)!.body, {
      model: 'openai/gpt-image-1',
      prompt: 'a red square',
      quality: 'low',
      size: '64x64',
    });
    const job = api.media.model.get(jobId);
    assert.ok(job, 'the media jobs model has the job');
    assert.ok(
      api.media.tree.getChildren().some((j) => j.id === jobId),
      'the Media Jobs tree shows the job',
    );

    const completed = await waitFor(
      () => cardStates(jobId).find((s) => s.status === 'completed' && s.outputs.length > 0),
      'the card to show the completed result',
      20_000,
    );
    const statuses = cardStates(jobId).map((s) => s.status);
    assert.equal(statuses[0], 'queued');
    assert.ok(statuses.includes('processing'), `the card saw processing: ${statuses.join(', ')}`);
    assert.equal(completed.outputs[0].kind, 'image');
    assert.equal(completed.cost, MEDIA_COST, 'the card shows the cost the gateway reported');
    const src = (completed.outputs[0] as { src: string }).src;
    assert.doesNotMatch(src, /127\.0\.0\.1|^data:/, 'a webview resource, never the gateway or inline data');
    // The file it names is the job's result in extension storage.
    const finished = api.media.model.get(jobId)!;
    const file = finished.outputs[0];
    assert.ok(file.kind === 'url' && file.url.startsWith('file:'), 'the result was moved into a file');
    assert.ok(src.endsWith(vscode.Uri.parse(file.url).path.split('/').pop()!), src);

    // The gateway reported the cost: the job keeps it, and the gallery shows it.
    assert.equal(finished.cost, MEDIA_COST);
    const gallery = await vscode.commands.executeCommand<MediaGalleryPanel>('gateway.openMediaGallery');
    const listed = await waitFor(
      () =>
        observed.webviewMessages
          .filter((m) => m.target === 'gateway.mediaGallery')
          .flatMap((m) => (JSON.parse(m.json) as { items?: GalleryItem[] }).items ?? [])
          .find((item) => item.id === jobId),
      'the gallery to list the job',
    );
    assert.equal(listed.cost, MEDIA_COST);
    gallery.panel.dispose();

    // Stored with the conversation: after a reload the card is there, with the job's state now.
    const stored = await api.chatStore.load((await api.chat.current()).id);
    const storedCard = stored?.turns.find((t) => t.role === 'assistant' && t.media?.jobId === jobId);
    assert.ok(storedCard, 'the card is stored with the conversation');
    const before = cardStates(jobId).length;
    await api.chat.sendState();
    const again = await waitFor(
      () => cardStates(jobId).length > before && cardStates(jobId).at(-1),
      'the card state after a reload',
    );
    assert.equal(again.status, 'completed');
  });

  it("announces a job's end by notification unless its card is on screen", async function () {
    if (!observed.windowObservable) this.skip();
    const api = await gatewayApi();
    const announced = (prompt: string) =>
      observed.notifications.some((n) => n.message.includes(`media job completed: "${prompt}"`));
    const cardJob = async () => {
      const card = (await api.chat.current()).turns.at(-1);
      assert.ok(card?.role === 'assistant' && card.media);
      return card.media.jobId;
    };

    assert.ok(api.chatView.webviewView?.visible, 'the chat is in sight');
    await typed('/image a watched square');
    const watched = await cardJob();
    await waitFor(
      () => api.media.model.get(watched)?.status === 'completed',
      'the watched job to end',
      20_000,
    );
    assert.ok(!announced('a watched square'), 'the card showed the end: no notification');

    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor(() => !api.chatView.webviewView?.visible, 'the chat to be out of sight');
    try {
      await typed('/image an unwatched square');
      await cardJob();
      await waitFor(() => announced('an unwatched square'), 'the notification of the unwatched job', 20_000);
    } finally {
      await vscode.commands.executeCommand('gateway.chat.focus');
      await waitFor(() => api.chatView.webviewView?.visible, 'the chat to be in sight again');
    }

    // In sight, but showing another conversation: no card shows the end, so it is announced.
    const conversation = (await api.chat.current()).id;
    await typed('/image a left-behind square');
    await cardJob();
    await vscode.commands.executeCommand('gateway.newChat');
    try {
      await waitFor(
        () => announced('a left-behind square'),
        'the notification of the job whose card is not shown',
        20_000,
      );
    } finally {
      await api.chat.open(conversation);
    }
  });

  it('refuses /video with a model that makes only images: the reason goes to the composer, nothing is added', async () => {
    const api = await gatewayApi();
    const turns = (await api.chat.current()).turns.length;
    const posts = mediaPosts().length;
    const notices = chatViewMessages('composerNotice').length;
    await typed('/video a cat');
    assert.equal((await api.chat.current()).turns.length, turns);
    assert.equal(mediaPosts().length, posts, 'no job was started');
    const notice = chatViewMessages('composerNotice')[notices];
    assert.ok(notice?.type === 'composerNotice');
    assert.match(notice.message, /openai\/gpt-image-1 does not make video/);

    await typed('/image');
    const empty = chatViewMessages('composerNotice')[notices + 1];
    assert.ok(empty?.type === 'composerNotice');
    assert.match(empty.message, /needs a prompt/);
    assert.equal((await api.chat.current()).turns.length, turns);
  });

  it('Re-run from the card starts a new job with a card of its own', async () => {
    const api = await gatewayApi();
    const conversation = await api.chat.current();
    const card = conversation.turns.find((t) => t.role === 'assistant' && t.media);
    assert.ok(card?.role === 'assistant' && card.media);
    const message = parseWebviewMessage({ type: 'mediaAction', action: 'rerun', jobId: card.media.jobId });
    assert.ok(message);
    await api.chatRouter.handle(message);
    const last = (await api.chat.current()).turns.at(-1);
    assert.ok(last?.role === 'assistant' && last.media && last.media.jobId !== card.media.jobId);
    assert.equal(api.media.model.get(last.media.jobId)?.prompt, 'a red square');
  });

  it('editing the command starts the edited job in place of the old card', async () => {
    const api = await gatewayApi();
    // A copy: the session changes its turns in place.
    const before = [...(await api.chat.current()).turns];
    const command = before.find((t) => t.role === 'user' && t.content.startsWith('/image'));
    assert.ok(command);
    const message = parseWebviewMessage({
      type: 'editAndResend',
      turnId: command.id,
      text: '/image a blue square',
    });
    assert.ok(message);
    await api.chatRouter.handle(message);
    const turns = (await api.chat.current()).turns;
    assert.equal(
      turns.length,
      before.indexOf(command) + 2,
      'the edited command and its card replace the rest',
    );
    const [edited, card] = turns.slice(-2);
    assert.equal(edited.content, '/image a blue square');
    assert.ok(card.role === 'assistant' && card.media?.prompt === 'a blue square');
    assert.equal(api.media.model.get(card.media.jobId)?.prompt, 'a blue square');
  });
});
