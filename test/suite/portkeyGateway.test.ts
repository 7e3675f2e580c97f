import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { startPortkey } from '../simulator/portkey';
import type { PortkeyGateway } from '../simulator/portkey';
import { openChatView, setSetting, TEST_KEY } from './helpers';
import {
  assertReadFile,
  assertTokensShown,
  deleteAgentFile,
  imageJob,
  readFileTurn,
  rememberSettings,
  turnFor,
  useGateway,
  writeAgentFile,
} from './gatewayTurns';

/**
 * A real third-party gateway from npm: Portkey's open-source gateway in front of the simulator in
 * strict-OpenAI mode, reached the way a user would set it up: its base URL `…/v1`, and the headers
 * it needs (`x-portkey-provider`, `x-portkey-custom-host`) in `gateway.requestHeaders`.
 */
describe('Portkey gateway in front of a strict OpenAI-style upstream', function () {
  this.timeout(90_000);
  let sim: GatewaySimulator;
  let portkey: PortkeyGateway;
  let settings: { restore(): Promise<void> };

  before(async () => {
    settings = rememberSettings();
    sim = await startGatewaySimulator({ dialect: 'strict-openai', chunkDelayMs: 1 });
    portkey = await startPortkey(sim.baseUrl);
    await openChatView();
    await useGateway({
      baseUrl: portkey.baseUrl,
      key: TEST_KEY,
      model: 'gpt-4o',
      headers: { ...portkey.headers },
    });
    await writeAgentFile();
  });

  after(async () => {
    await settings?.restore();
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await deleteAgentFile();
    await portkey?.close();
    await sim?.close();
  });

  /** Chat requests that reached the upstream since `mark`. */
  function upstreamChats(mark: number) {
    return sim.requests.slice(mark).filter((r) => r.path.endsWith('/v1/chat/completions'));
  }

  it('a streamed chat through Portkey shows its tokens, with our headers on the way', async () => {
    const mark = sim.requests.length;
    const turn = await turnFor('Hello through Portkey');
    await assertTokensShown(turn);
    assert.match(turn.content, /Hello through Portkey/);
    const [request] = upstreamChats(mark);
    assert.ok(request, `the upstream was asked:\n${portkey.output()}`);
    assert.equal(request.headers.authorization, `Bearer ${TEST_KEY}`, 'Portkey passed the key on');
    const body = request.body as { model?: string; stream?: boolean; stream_options?: unknown };
    assert.equal(body.model, 'gpt-4o');
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true }, 'usage was asked for');
    assert.equal(request.wireProblem, undefined);
  });

  it('an agent turn through Portkey reads a workspace file', async () => {
    await vscode.commands.executeCommand('gateway.newChat');
    const mark = sim.requests.length;
    const turn = await readFileTurn();
    assertReadFile(turn, sim.requests.slice(mark));
  });

  it('an image through Portkey: gpt-image-1 at /v1/images/generations', async () => {
    const mark = sim.requests.length;
    const job = await imageJob('gpt-image-1', 'a blue circle');
    assert.equal(job.status, 'completed', `${job.status}: ${job.error ?? ''}\n${portkey.output()}`);
    const posted = sim.requests.slice(mark).filter((r) => r.path.endsWith('/v1/images/generations'));
    assert.equal(posted.length, 1, 'the upstream made it');
    assert.equal((posted[0].body as { model?: string }).model, 'gpt-image-1');
    assert.equal(job.outputs.length, 1);
  });

  it('a 429 through Portkey says to wait and offers Retry', async () => {
    await setSetting('request.maxRetries', 0);
    try {
      const turn = await turnFor('please #sim:429:7');
      assert.equal(turn.status, 'error');
      assert.equal(turn.error?.status, 429, JSON.stringify(turn.error));
      assert.ok(turn.error?.actions.includes('retry'), JSON.stringify(turn.error?.actions));
      assert.match(turn.error?.message ?? '', /rate|wait|later|retry/i);
    } finally {
      await setSetting('request.maxRetries', undefined);
    }
  });

  it('a 401 through Portkey offers Set API Key', async () => {
    const wrong = 'sk-wrong-key-through-portkey-0123456789';
    await vscode.commands.executeCommand('gateway.setApiKey', wrong);
    try {
      const turn = await turnFor('am I let in?');
      assert.equal(turn.status, 'error');
      assert.equal(turn.error?.status, 401, JSON.stringify(turn.error));
      assert.ok(turn.error?.actions.includes('setApiKey'), JSON.stringify(turn.error?.actions));
      assert.ok(!turn.error?.message.includes(wrong), 'the key is not shown');
    } finally {
      await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    }
  });
});
