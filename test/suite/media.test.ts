import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { observed } from './observed';
import { MediaJobStore } from '../../src/host/media/jobs/mediaJobStore';
import type { MediaPreviewPanel } from '../../src/host/media/views/mediaPreview';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';

describe('Media jobs', function () {
  let sim: GatewaySimulator;

  before(async () => {
    sim = await startGatewaySimulator({ mediaTimings: { queuedMs: 600, processingMs: 900 } });
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('media.model', 'testvendor/image-model');
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    const api = await gatewayApi();
    api.media.clearFinished();
  });

  after(async () => {
    await setSetting('media.model', undefined);
    await sim.close();
  });

  it('generate: the job goes queued → processing → completed in the tree', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.mediaJobs.focus');
    const seen = new Set<string>();
    const listener = api.media.model.onDidChange(() => {
      for (const job of api.media.model.all()) seen.add(`${job.id}:${job.status}`);
    });
    try {
      const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
        prompt: 'a red fox in the snow',
        parameters: { size: '64x64' },
      });
      assert.ok(typeof id === 'string' && id.length > 0, 'the command returns the new job id');
      const posted = sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/v1/media'));
      assert.equal(posted.length, 1);
      assert.deepEqual(posted[0].body, {
        model: 'testvendor/image-model',
        prompt: 'a red fox in the snow',
        size: '64x64',
      });
      assert.equal(posted[0].headers.authorization, `Bearer ${TEST_KEY}`);

      const item = api.media.tree.getTreeItem(api.media.model.get(id)!);
      assert.match(String(item.description), /^queued · testvendor\/image-model/);
      await waitFor(() => api.media.model.get(id)?.status === 'completed', 'the job to complete', 15_000);
      assert.ok(seen.has(`${id}:processing`), `went through processing: ${[...seen].join(', ')}`);
      const done = api.media.tree.getTreeItem(api.media.model.get(id)!);
      assert.match(String(done.description), /^completed/);
      assert.equal(done.contextValue, 'mediaJob.completed');
      assert.equal((done.iconPath as vscode.ThemeIcon).id, 'pass');
      assert.equal(api.media.tree.getChildren()[0].id, id);
    } finally {
      listener.dispose();
    }
  });

  it("a failed job shows the gateway's error in its tooltip", async () => {
    const api = await gatewayApi();
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'this will not work #sim:fail',
    });
    await waitFor(() => api.media.model.get(id)?.status === 'failed', 'the job to fail', 15_000);
    const job = api.media.model.get(id)!;
    assert.ok(job.error && job.error.length > 0);
    const item = api.media.tree.getTreeItem(job);
    assert.equal(typeof item.tooltip, 'string', 'a plain-text tooltip renders no Markdown');
    const tooltip = item.tooltip as string;
    assert.match(tooltip, /Failed: /);
    assert.ok(tooltip.includes(job.error.split(' ')[0]), `the reason is in the tooltip: ${tooltip}`);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'error');
  });

  it('a failure reason with Markdown links, a command link and an image stays inert everywhere', async () => {
    const api = await gatewayApi();
    const shownBefore = observed.notifications.length;
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'a hostile reason #sim:fail-hostile',
    });
    await waitFor(() => api.media.model.get(id)?.status === 'failed', 'the job to fail', 15_000);
    await waitFor(
      () => observed.notifications.slice(shownBefore).some((n) => n.message.includes('media job failed')),
      'the failure notification',
    );
    const shown = observed.notifications
      .slice(shownBefore)
      .find((n) => n.message.includes('media job failed'))!;
    const tooltip = api.media.tree.getTreeItem(api.media.model.get(id)!).tooltip;
    assert.equal(typeof tooltip, 'string');
    for (const [where, text] of [
      ['notification', shown.message],
      ['tooltip', tooltip as string],
    ] as const) {
      assert.match(text, /Fix it/, `${where} still says what the gateway said`);
      // VS Code makes `[label](target)` clickable in notifications and `$(name)` an icon.
      assert.doesNotMatch(text, /\]\(/, `${where}: no Markdown link or image syntax survives`);
      assert.doesNotMatch(text, /\$\(/, `${where}: no icon syntax survives`);
      assert.doesNotMatch(text, /<https?:/, `${where}: no autolink survives`);
    }
    // Only our own action is a button.
    assert.deepEqual(shown.items, ['Show']);
  });

  it('the result opens in a preview with the image stored locally', async () => {
    const api = await gatewayApi();
    const completed = api.media.model.all().find((j) => j.status === 'completed')!;
    const preview = await vscode.commands.executeCommand<MediaPreviewPanel>(
      'gateway.openMediaResult',
      completed,
    );
    assert.ok(preview, 'a preview opened');
    const html = preview.panel.webview.html;
    assert.match(html, /<img class="media-output" src="[^"]+\.png"/);
    assert.match(html, /default-src 'none'/);
    // The base64 result moved out of the state into a file in the extension's storage.
    const stored = api.media.model.get(completed.id)!;
    assert.ok(stored.outputs.every((o) => o.kind !== 'data'));
    const file = stored.outputs.find((o) => o.kind === 'url')!;
    assert.ok(file.kind === 'url');
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.parse(file.url));
    assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a real PNG');
    preview.panel.dispose();
  });

  it('jobs survive a reload and finish afterwards', async () => {
    const api = await gatewayApi();
    const id = await vscode.commands.executeCommand<string>('gateway.generateMedia', {
      prompt: 'survive the reload',
    });
    await api.media.flush();
    // What a new window reads: the stored jobs, with this one still running.
    const store = new MediaJobStore(api.context.globalState, api.context.globalStorageUri, {
      warn() {},
    } as never);
    const { jobs } = await store.load();
    const stored = jobs.find((j) => j.id === id);
    assert.ok(stored, 'the job was stored');
    assert.notEqual(stored.status, 'completed');
    // Polling resumes from the stored state and the job completes.
    const { MediaJobModel } = await import('../../src/core/media/mediaJobModel');
    const { MediaJobPoller } = await import('../../src/core/media/mediaJobPoller');
    const { createGatewayClient } = await import('../../src/api');
    const model = new MediaJobModel(jobs);
    const client = createGatewayClient({ baseUrl: sim.baseUrl, apiKey: () => TEST_KEY });
    const poller = new MediaJobPoller({
      model,
      getStatus: (jobId, signal) => client.getMedia(jobId, { signal }),
    });
    try {
      poller.resume();
      await waitFor(() => model.get(id)?.status === 'completed', 'the reloaded job to complete', 15_000);
    } finally {
      poller.dispose();
      await client.close();
    }
  });

  it('Remove and Clear Finished take jobs out of the tree', async () => {
    const api = await gatewayApi();
    const [first] = api.media.model.all();
    await vscode.commands.executeCommand('gateway.removeMediaJob', first);
    assert.equal(api.media.model.get(first.id), undefined);
    await waitFor(() => api.media.model.running().length === 0, 'running jobs to finish', 15_000);
    const cleared = await vscode.commands.executeCommand<number>('gateway.clearFinishedMediaJobs');
    assert.ok(cleared >= 1);
    assert.equal(api.media.tree.getChildren().length, 0);
  });

  it('a 404 marks a job as unknown to the gateway, not failed', async () => {
    const api = await gatewayApi();
    const { createMediaJob } = await import('../../src/core/media/mediaJob');
    api.media.model.add(createMediaJob({ id: 'no-such-job', prompt: 'ghost', model: 'x/y' }, Date.now()));
    await vscode.commands.executeCommand('gateway.refreshMediaJobs');
    await waitFor(
      () => api.media.model.get('no-such-job')?.status === 'unknown',
      'the 404 to be seen',
      10_000,
    );
    await api.media.remove('no-such-job');
  });
});
