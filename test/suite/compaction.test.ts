/**
 * Compaction in the panel, against the simulator's scripted model with a small window
 * (`testvendor/small-window`, 6,000 tokens): two long turns and a third whose tool result takes
 * the next request past 80% of the window. The oldest turn is summarised once (the simulator's
 * canned summary), the next request fits, carries the summary and the turn's pending tool result,
 * and the simulator, which refuses a broken tool history, accepts it. The chat keeps every turn;
 * the next prompt goes with the stored summary; `/compact` summarises on demand. When the summary
 * request fails, the turn goes on (trimmed, as before) and the composer says so.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChatMessage } from '../../src/api/types';
import { COMPACT_AT, SUMMARY_HEADING, estimateMessages } from '../../src/core/chat/compaction';
import { parseHostMessage } from '../../src/core/protocol/chatProtocol';
import type { AssistantTurn, HostMessage } from '../../src/core/protocol/chatProtocol';
import type { RecordedRequest } from '../simulator';
import { gatewayApi, openChatView, sendPrompt, setSetting, waitFor, withChatGateway } from './helpers';
import { observed } from './observed';

const WINDOW = 6_000;
const FIXTURE = 'compaction-fixture.txt';
const FILE_TEXT = Array.from(
  { length: 100 },
  (_, i) => `fixture line ${String(i).padStart(3, '0')} ${'x'.repeat(28)}`,
).join('\n');

function scripted(task: string, steps: unknown[]): string {
  return `${task}\n\`\`\`sim-agent\n${JSON.stringify(steps)}\n\`\`\``;
}

function uri(relative: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the suite runs with a workspace folder');
  return vscode.Uri.joinPath(folder.uri, relative);
}

function messagesOf(request: RecordedRequest): ChatMessage[] {
  return (request.body as { messages?: ChatMessage[] }).messages ?? [];
}

const text = (m: ChatMessage) =>
  typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');

/** What the chat view was sent since `mark`, as the page parses it. */
function viewPosts(mark: number): HostMessage[] {
  return observed.webviewMessages
    .slice(mark)
    .filter((m) => m.target === 'chat view')
    .flatMap((m) => {
      const parsed = parseHostMessage(JSON.parse(m.json));
      return parsed ? [parsed] : [];
    });
}

describe('Chat: long chats are compacted into a summary', function () {
  this.timeout(60_000);
  const gateway = withChatGateway();

  async function send(prompt: string): Promise<AssistantTurn> {
    return (await sendPrompt(prompt)).finished;
  }

  /** The chat requests the simulator received since `mark`. */
  const chatRequests = (mark: number): RecordedRequest[] =>
    gateway.sim.requests.slice(mark).filter((r) => r.path.endsWith('/chat/completions'));

  /**
   * Two long turns, then one whose read of the fixture passes 80% of the window; that turn ends
   * answered. Returns the chat requests it made and what the view was sent meanwhile.
   */
  async function longChat(): Promise<{ requests: RecordedRequest[]; posts: () => HostMessage[] }> {
    const postMark = observed.webviewMessages.length;
    const mark = gateway.sim.requests.length;
    await send(scripted(`Keep this first note: ${'first '.repeat(1150)}`, [{ text: 'Noted the first.' }]));
    await send(scripted(`Keep this second note: ${'second '.repeat(1000)}`, [{ text: 'Noted the second.' }]));
    const turn = await send(
      scripted('Now read the fixture.', [
        { calls: [{ name: 'read_file', arguments: { path: FIXTURE } }] },
        { text: 'Done reading.' },
      ]),
    );
    assert.equal(turn.status, 'complete', turn.error?.message);
    assert.equal(turn.content, 'Done reading.');
    return { requests: chatRequests(mark), posts: () => viewPosts(postMark) };
  }

  before(async () => {
    await openChatView();
    await vscode.workspace.fs.writeFile(uri(FIXTURE), new TextEncoder().encode(FILE_TEXT));
    await setSetting('chat.model', 'testvendor/small-window');
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('gateway.newChat');
  });

  after(async () => {
    await setSetting('chat.model', 'testvendor/echo-model');
    await setSetting('chat.compactionModel', undefined);
    await vscode.workspace.fs.delete(uri(FIXTURE)).then(undefined, () => undefined);
  });

  it('summarises the oldest turn once; the next request fits, with the summary and the pending tool result', async () => {
    const api = await gatewayApi();
    const { requests, posts } = await longChat();
    const summaries = requests.filter((r) => r.summaryOf !== undefined);
    assert.equal(summaries.length, 1, 'summarised once');
    const after = requests[requests.indexOf(summaries[0]) + 1];
    assert.ok(after, 'a request followed the summary');
    assert.equal(after.wireProblem, undefined);
    assert.equal(after.agentStep, 2, 'the turn went on at its second step');
    const sent = messagesOf(after);
    assert.ok(
      estimateMessages(sent) <= WINDOW * COMPACT_AT,
      `the request fits: ${estimateMessages(sent)} tokens`,
    );
    // As a system message: never in the user's role, which a file's text could then borrow.
    const summary = sent.find((m) => m.role === 'system' && text(m).startsWith(SUMMARY_HEADING));
    assert.ok(summary && text(summary).includes('SIM-SUMMARY'), 'the summary is sent');
    assert.ok(!sent.some((m) => text(m).includes('first first first')), 'the summarised turn is not sent');
    const result = sent.find((m) => m.role === 'tool');
    assert.ok(result && text(result).includes('fixture line 099'), 'the pending tool result is sent whole');
    // The chat keeps every turn, and the summary beside them; the view was told.
    const conversation = await api.chat.current();
    assert.equal(conversation.turns.length, 6);
    assert.ok(conversation.compaction?.summary.includes('SIM-SUMMARY'));
    assert.equal(conversation.compaction?.throughTurnId, conversation.turns[1].id);
    assert.equal(conversation.compaction?.turns, 2);
    // The view's messages are observed as the page takes them, which may come after the turn ended.
    await waitFor(
      () => posts().some((m) => m.type === 'compaction' && m.compaction?.turns === 2),
      'the view to be sent the summary ("Summarised 2 earlier turns")',
    );

    // The next prompt goes with the stored summary and the newest turns, without a new summary.
    const next = gateway.sim.requests.length;
    const answered = await send(scripted('And now?', [{ text: 'Still here.' }]));
    assert.equal(answered.status, 'complete', answered.error?.message);
    const later = chatRequests(next);
    assert.equal(later.filter((r) => r.summaryOf !== undefined).length, 0);
    const carried = messagesOf(later[0]);
    assert.ok(carried.some((m) => text(m).startsWith(SUMMARY_HEADING)));
    assert.ok(!carried.some((m) => text(m).includes('first first first')));
    assert.equal(later[0].wireProblem, undefined);

    // /compact summarises all but the last exchange on demand.
    const onDemand = gateway.sim.requests.length;
    await api.chat.send('/compact');
    assert.equal(gateway.sim.requests.slice(onDemand).filter((r) => r.summaryOf !== undefined).length, 1);
    const compacted = await api.chat.current();
    assert.equal(compacted.compaction?.throughTurnId, compacted.turns.at(-3)?.id);
    assert.equal(compacted.compaction?.turns, compacted.turns.length - 2);
    assert.equal(compacted.turns.length, 8, 'nothing was removed from the chat');
  });

  it('when the summary request fails, the turn goes on trimmed, keeps the prompt, and says so', async () => {
    const api = await gatewayApi();
    await setSetting('chat.compactionModel', 'not-a-model');
    try {
      const { requests, posts } = await longChat();
      assert.ok(
        requests.some((r) => (r.body as { model?: string }).model === 'not-a-model'),
        'the summary was asked of the chosen model, which refused',
      );
      assert.ok(requests.every((r) => r.wireProblem === undefined));
      await waitFor(
        () =>
          posts().some((m) => m.type === 'composerNotice' && m.message.includes('could not be summarised')),
        'the composer to say the earlier turns could not be summarised',
      );
      const conversation = await api.chat.current();
      assert.equal(conversation.compaction, undefined);
      assert.equal(conversation.turns.length, 6);
      assert.ok(conversation.turns[4].content.startsWith('Now read the fixture.'), "the user's prompt stays");
    } finally {
      await setSetting('chat.compactionModel', undefined);
    }
  });
});
