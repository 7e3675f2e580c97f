import * as assert from 'assert';
import type { MediaCardState } from '../../src/core/protocol/mediaCardProtocol';
import { useChatPage } from './chatPageFixture';
import { assistantTurn, initMessage, userTurn } from './harness';

function cardTurn(jobId: string, prompt = 'a red square') {
  return assistantTurn('', { model: 'openai/gpt-image-1', media: { jobId, kind: 'image', prompt } });
}

function jobState(jobId: string, fields: Partial<MediaCardState> = {}): MediaCardState {
  return {
    jobId,
    status: 'queued',
    model: 'openai/gpt-image-1',
    createdAt: Date.now(),
    outputs: [],
    ...fields,
  };
}

describe('chat webview: media cards', function () {
  this.timeout(30_000);
  const fixture = useChatPage();
  const card = () => fixture.chat.page.locator('.turn-media');
  const status = () => card().locator('.media-status');

  it('follows the job: queued, processing with the time so far, completed with the image inline', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('/image a red square'), cardTurn('job-1')]));
    assert.match((await status().textContent()) ?? '', /Looking up/);
    assert.strictEqual(await card().getAttribute('data-job-id'), 'job-1');

    await chat.send({ type: 'mediaJob', job: jobState('job-1') });
    assert.match((await status().textContent()) ?? '', /^Queued · \d+ s$/);
    assert.strictEqual(await card().getAttribute('data-status'), 'queued');
    assert.deepStrictEqual(await card().locator('.media-actions button').allTextContents(), ['Re-run']);

    const started = Date.now() - 61_000;
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-1', { status: 'processing', createdAt: started }),
    });
    assert.match((await status().textContent()) ?? '', /^Processing · 1 min \d+ s$/);
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-1', { status: 'processing', createdAt: started, progress: 0.45 }),
    });
    assert.match((await status().textContent()) ?? '', /^Processing 45% · 1 min \d+ s$/);
    // The time moves on by itself while the job runs.
    const before = await status().textContent();
    for (let tries = 0; tries < 30 && (await status().textContent()) === before; tries++)
      await chat.page.waitForTimeout(100);
    assert.notStrictEqual(await status().textContent(), before);

    const src = `${chat.origin}/media/icon.png`;
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-1', {
        status: 'completed',
        createdAt: started,
        finishedAt: started + 65_000,
        outputs: [{ kind: 'image', src }],
        cost: 0.04,
      }),
    });
    assert.strictEqual(await status().textContent(), 'Completed in 1 min 5 s · $0.0400');
    const image = card().locator('img.media-image');
    assert.strictEqual(await image.getAttribute('src'), src);
    assert.strictEqual(await image.getAttribute('alt'), 'a red square (result 1)');
    const loaded = await image.evaluate(
      (img) =>
        new Promise<number>((resolve) => {
          const element = img as unknown as {
            complete: boolean;
            naturalWidth: number;
            decode(): Promise<void>;
          };
          void element.decode().then(
            () => resolve(element.naturalWidth),
            () => resolve(element.naturalWidth),
          );
        }),
    );
    assert.ok(loaded > 0, 'the image loaded');
    assert.deepStrictEqual(await card().locator('.media-actions button').allTextContents(), [
      'Open',
      'Save to Workspace',
      'Insert into Editor',
      'Copy Path',
      'Re-run',
      'Variation',
    ]);
    assert.deepStrictEqual(chat.errors(), []);
  });

  it('posts each button as a typed message with the job id', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([userTurn('/image x'), cardTurn('job-2', 'x')]));
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-2', {
        status: 'completed',
        outputs: [{ kind: 'image', src: `${chat.origin}/media/icon.png` }],
      }),
    });
    await chat.clearPosted();
    const labels = ['Open', 'Save to Workspace', 'Insert into Editor', 'Copy Path', 'Re-run', 'Variation'];
    for (const label of labels) await card().getByRole('button', { name: label }).click();
    assert.deepStrictEqual(await chat.posted(), [
      ...['open', 'save', 'insert', 'copyPath', 'rerun', 'variation'].map((action) => ({
        type: 'mediaAction',
        action,
        jobId: 'job-2',
      })),
    ]);
  });

  it('shows a failure reason and text results as inert text, and never loads a remote result', async () => {
    const { chat } = fixture;
    const requests: string[] = [];
    chat.page.on('request', (request) => requests.push(request.url()));
    const hostile =
      'Blocked. [Fix it](command:workbench.action.openSettings) <img src="https://evil.example/p.png"> <a href="command:x">x</a>';
    await chat.send(initMessage([cardTurn('job-3'), cardTurn('job-4')]));
    await chat.send({ type: 'mediaJob', job: jobState('job-3', { status: 'failed', error: hostile }) });
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-4', {
        status: 'completed',
        outputs: [
          { kind: 'text', text: hostile },
          // Refused at the boundary: a remote image and a data URL.
          { kind: 'image', src: 'https://evil.example/q.png' },
          { kind: 'image', src: 'data:image/png;base64,AAAA' },
        ],
      }),
    });
    const failed = card().nth(0);
    assert.strictEqual(await failed.locator('.media-status').textContent(), `Failed: ${hostile}`);
    assert.strictEqual(await card().nth(1).locator('.media-text').textContent(), hostile);
    assert.strictEqual(await card().locator('a, img, iframe, script').count(), 0);
    assert.deepStrictEqual(
      requests.filter((url) => !url.startsWith(chat.origin)),
      [],
    );
  });

  it('F9: a long text result shows its beginning in a card of bounded height, never an empty card', async () => {
    const { chat } = fixture;
    const line = 'A line of a long <b>text</b> result, [not a link](command:x).\n';
    const long = line.repeat(Math.ceil(2_000_000 / line.length));
    await chat.send(initMessage([cardTurn('job-text')]));
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-text', { status: 'completed', outputs: [{ kind: 'text', text: long }] }),
    });
    const text = card().locator('pre.media-text');
    assert.strictEqual(await text.count(), 1, 'the text is shown');
    const shown = (await text.textContent()) ?? '';
    assert.ok(shown.startsWith(line.repeat(3)), shown.slice(0, 200));
    assert.ok(shown.length > 10_000 && shown.length <= 50_001, `cut: ${shown.length}`);
    assert.strictEqual(await text.locator('*').count(), 0, 'as text: no elements inside');
    const box = await text.boundingBox();
    assert.ok(box && box.height < 800, `bounded height: ${box?.height}`);
  });

  it('shows the latest state in a card rendered after it arrived, and a removed job as such', async () => {
    const { chat } = fixture;
    await chat.send({ type: 'mediaJob', job: jobState('job-5', { status: 'failed', error: 'No credit.' }) });
    await chat.send(initMessage([cardTurn('job-5')]));
    assert.strictEqual(await status().textContent(), 'Failed: No credit.');
    await chat.send({
      type: 'mediaJob',
      job: jobState('job-5', { status: 'removed', model: '', createdAt: 0 }),
    });
    assert.match((await status().textContent()) ?? '', /removed/);
    assert.strictEqual(await card().locator('.media-actions button').count(), 0);
  });

  it('a cancelled or expired job ends as such: no clock running on, only Re-run', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([cardTurn('job-6')]));
    for (const [state, line] of [
      ['cancelled', /^Cancelled at the gateway\.$/],
      ['expired', /^Expired at the gateway before its result was kept\.$/],
    ] as const) {
      await chat.send({ type: 'mediaJob', job: jobState('job-6', { status: state }) });
      assert.match((await status().textContent()) ?? '', line);
      assert.strictEqual(await card().getAttribute('data-status'), state);
      assert.deepStrictEqual(await card().locator('.media-actions button').allTextContents(), ['Re-run']);
    }
  });

  it('explains a refused command at the composer and keeps what was typed', async () => {
    const { chat } = fixture;
    await chat.send(initMessage([]));
    const input = chat.page.locator('textarea.composer-input');
    await input.fill('/video a cat --fps 24');
    await chat.page.keyboard.press('Enter');
    assert.deepStrictEqual((await chat.posted()).at(-1), { type: 'send', text: '/video a cat --fps 24' });
    await chat.send({ type: 'composerNotice', message: 'openai/gpt-image-1 does not make video.' });
    const notice = chat.page.locator('.composer-notice');
    assert.ok(await notice.isVisible());
    assert.strictEqual(await notice.textContent(), 'openai/gpt-image-1 does not make video.');
    assert.strictEqual(await input.inputValue(), '/video a cat --fps 24');
    // A later turn (from a queue, say) does not clear the refused text; typing hides the note.
    await chat.send({ type: 'turnAdded', turn: userTurn('something else') });
    assert.strictEqual(await input.inputValue(), '/video a cat --fps 24');
    await input.press('End');
    await chat.page.keyboard.type('!');
    assert.ok(await notice.isHidden());
  });
});
