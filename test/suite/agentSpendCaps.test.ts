/**
 * The agent's spend caps cover its paid tool calls, end to end inside VS Code: the scripted model
 * asks for media jobs of a model the catalog prices at $0.20 a picture, the simulator reports
 * $0.20 for each, and the jobs that reach the gateway are counted there (`POST /v1/media`).
 * - with a $0.50 turn cap, ten jobs asked in one reply start at most two before the turn pauses
 *   and asks; stopping there answers every other call "not run";
 * - the daily cap holds across two turns: the first turn's jobs count in the second, which starts
 *   none past the cap.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { parseHostMessage, parseWebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { AssistantTurn, WebviewMessage } from '../../src/core/protocol/chatProtocol';
import type { ToolCallRecord } from '../../src/core/agent/types';
import { DEFAULT_CATALOG } from '../simulator/catalog';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { TEST_KEY, gatewayApi, openChatView, sendPrompt, setSetting, waitFor } from './helpers';
import { observed } from './observed';

const PRICED_MODEL = 'testvendor/priced-image';
const SAVE_FOLDER = 'spend-caps-media';
/** A model the media catalog prices at $0.20 a picture (`pricing.image`). */
const PRICED_ENTRY = {
  id: PRICED_MODEL,
  name: 'Test: Priced Image',
  context_length: 8_000,
  pricing: { prompt: '0', completion: '0', image: '0.2' },
  architecture: { input_modalities: ['text'], output_modalities: ['image'] },
  supported_parameters: [],
  top_provider: { max_completion_tokens: null },
};

function scripted(task: string, steps: unknown[]): string {
  return `${task}\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``;
}

/** One reply asking for `count` pictures, each reported by the simulator as costing $0.20. */
function mediaJobs(count: number): string {
  return scripted(`Make ${count} pictures.`, [
    {
      calls: Array.from({ length: count }, (_, i) => ({
        name: 'generate_media',
        arguments: { model: PRICED_MODEL, prompt: `a red square number ${i} #sim:cost:0.2` },
      })),
    },
    { text: 'Done.' },
  ]);
}

async function fromView(message: WebviewMessage): Promise<void> {
  const parsed = parseWebviewMessage(JSON.parse(JSON.stringify(message)));
  assert.ok(parsed, `the protocol accepts ${message.type}`);
  await (await gatewayApi()).chatRouter.handle(parsed);
}

/** The turns the chat view was sent since `mark`, as the page parses them. */
function postedTurns(mark: number): AssistantTurn[] {
  return observed.webviewMessages
    .slice(mark)
    .filter((m) => m.target === 'chat view')
    .map((m) => parseHostMessage(JSON.parse(m.json)))
    .flatMap((m) => (m?.type === 'turnUpdated' && m.turn.role === 'assistant' ? [m.turn] : []));
}

/** The first turn posted paused (at a cap) since `mark`. */
function pausedTurn(mark: number, what: string): Promise<AssistantTurn> {
  return waitFor(() => postedTurns(mark).find((t) => t.agent?.pause), what, 60_000);
}

/** The first `generate_media` call waiting for approval since `mark`. */
function awaitingApproval(mark: number): { turnId: string; call: ToolCallRecord } | undefined {
  for (const m of observed.webviewMessages.slice(mark)) {
    if (m.target !== 'chat view') continue;
    const parsed = parseHostMessage(JSON.parse(m.json));
    if (parsed?.type !== 'agentStep') continue;
    const call = parsed.step.calls.find((c) => c.name === 'generate_media' && c.state === 'awaitingApproval');
    if (call) return { turnId: parsed.turnId, call };
  }
  return undefined;
}

describe('Agent: spend caps cover paid tool calls (media jobs)', function () {
  this.timeout(90_000);
  let sim: GatewaySimulator;
  let postMark = 0;
  let requestMark = 0;

  /** Media jobs that reached the gateway since the test began. */
  const mediaStarts = () =>
    sim.requests.slice(requestMark).filter((r) => r.method === 'POST' && r.path.endsWith('/v1/media')).length;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 1, mediaTimings: { queuedMs: 20, processingMs: 40 } });
    sim.models = [...DEFAULT_CATALOG, PRICED_ENTRY];
    await setSetting('baseUrl', sim.baseUrl);
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('media.saveFolder', SAVE_FOLDER);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await openChatView();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('gateway.newChat');
    postMark = observed.webviewMessages.length;
    requestMark = sim.requests.length;
  });

  afterEach(async () => {
    await setSetting('agent.maxTurnCost', undefined);
    await setSetting('agent.maxDailyCost', undefined);
  });

  after(async () => {
    await setSetting('media.saveFolder', undefined);
    await setSetting('chat.model', undefined);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (folder)
      await vscode.workspace.fs
        .delete(vscode.Uri.joinPath(folder, SAVE_FOLDER), { recursive: true })
        .then(undefined, () => undefined);
    await sim.close();
  });

  /** Sends the prompt and allows `generate_media` for the chat at its first card. */
  async function start(prompt: string): Promise<{ finished: Promise<AssistantTurn> }> {
    const { finished } = await sendPrompt(prompt);
    const card = await waitFor(() => awaitingApproval(postMark), 'the first media job to ask for approval');
    assert.match(
      card.call.confirmation?.kind === 'tool' ? card.call.confirmation.arguments : '',
      /Estimated cost: \$0\.2000 by the catalog's price \(\$0\.2 per image\)/,
    );
    await fromView({ type: 'toolDecision', turnId: card.turnId, callId: card.call.id, choice: 'chat' });
    return { finished };
  }

  it('with a $0.50 turn cap, ten $0.20 jobs start at most two, then the turn pauses and asks', async () => {
    await setSetting('agent.maxTurnCost', 0.5);
    const { finished } = await start(mediaJobs(10));
    const paused = await pausedTurn(postMark, 'the turn to pause at the turn cap');
    assert.equal(paused.agent?.pause?.kind, 'turnCost');
    assert.equal(paused.agent?.pause?.cap, 0.5);
    assert.deepEqual(paused.agent?.pause?.call, { name: 'generate_media', estimate: 0.2 });
    assert.ok(mediaStarts() <= 2, `${mediaStarts()} media jobs started under a $0.50 cap`);
    assert.equal(mediaStarts(), 2);
    await fromView({ type: 'agentPauseDecision', turnId: paused.id, choice: 'stop' });
    const turn = await finished;
    assert.equal(mediaStarts(), 2, 'none started after the pause');
    const calls = turn.steps?.[0]?.calls ?? [];
    assert.equal(calls.length, 10);
    assert.ok(
      calls.every((c) => c.result !== undefined),
      'every call is answered',
    );
    assert.match(calls[0].result ?? '', /Cost: \$0\.2000, as the gateway reported/);
    assert.equal(calls.filter((c) => /^Not run: spend cap/.test(c.result ?? '')).length, 8);
    assert.match(turn.error?.message ?? '', /paid call \(generate_media, about \$0\.2000\).*maxTurnCost/);
    // The next request (if any) carried an answer for every call id: the simulator refused none.
    assert.ok(!sim.requests.slice(requestMark).some((r) => r.wireProblem !== undefined));
  });

  it('the daily cap holds across two turns', async () => {
    const api = await gatewayApi();
    await api.costs.load();
    const before = api.costs.spentForCaps();
    const mediaBefore = api.costs.today().bySource.media ?? 0;
    await setSetting('agent.maxDailyCost', before + 0.5);

    // The first turn's two jobs fit under the cap ($0.40 and its requests' fraction of a cent).
    const first = await (await start(mediaJobs(2))).finished;
    assert.equal(first.status, 'complete', first.error?.message);
    assert.equal(mediaStarts(), 2);
    const media = (api.costs.today().bySource.media ?? 0) - mediaBefore;
    assert.ok(Math.abs(media - 0.4) < 1e-9, `today's media cost grew by ${media}`);

    // The second turn, in the same chat: its first job would pass the day's cap, so none starts.
    postMark = observed.webviewMessages.length;
    const { finished } = await sendPrompt(mediaJobs(2));
    const paused = await pausedTurn(postMark, 'the second turn to pause at the daily cap');
    assert.equal(paused.agent?.pause?.kind, 'dayCost');
    assert.ok(
      (paused.agent?.pause?.spent ?? 0) >= before + 0.4 - 1e-9,
      `today: ${paused.agent?.pause?.spent}`,
    );
    await fromView({ type: 'agentPauseDecision', turnId: paused.id, choice: 'stop' });
    const second = await finished;
    assert.equal(mediaStarts(), 2, 'the second turn started no job');
    assert.ok((second.steps?.[0]?.calls ?? []).every((c) => /^Not run: spend cap/.test(c.result ?? '')));
    assert.match(second.error?.message ?? '', /maxDailyCost/);
  });
});
