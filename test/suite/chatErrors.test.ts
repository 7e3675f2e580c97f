import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AssistantTurn } from '../../src/core/protocol/chatProtocol';
import { gatewayApi, TEST_KEY, waitFor, withChatGateway } from './helpers';
import { observed } from './observed';

async function lastAssistant(): Promise<AssistantTurn> {
  const api = await gatewayApi();
  const last = (await api.chat.current()).turns.at(-1);
  assert.equal(last?.role, 'assistant');
  return last;
}

/**
 * Errors as OpenRouter-style gateways send them: an error event after the stream's 200, with its
 * provider and upstream error, and moderation's reasons; and `: PROCESSING` comments, which are
 * never text.
 */
describe('Chat errors with metadata', function () {
  const gateway = withChatGateway();

  it('an error event after 200 ends the turn with its message and provider, keeping the text so far', async () => {
    await vscode.commands.executeCommand('gateway.chat.focus');
    const postedBefore = observed.webviewMessages.length;
    await vscode.commands.executeCommand('gateway.ask', 'Tell me a story #sim:error-chunk #sim:processing');
    const turn = await lastAssistant();
    assert.equal(turn.status, 'error');
    assert.equal(turn.error?.provider, 'SimProvider');
    assert.match(turn.error?.message ?? '', /^The provider SimProvider ended the reply with an error: /);
    assert.match(turn.error?.message ?? '', /disconnected mid-stream/);
    assert.match(turn.error?.message ?? '', /overloaded_error/, 'with the upstream error');
    assert.match(turn.content, /^Echo from testvendor\/echo-model: /, 'the partial reply stays');
    // Comments came before every piece of the reply; none is text anywhere.
    assert.doesNotMatch(turn.content, /PROCESSING/);
    // The page hears it from the stream's last update, or, when it (re)loads only now, from the
    // state it asks for once ready: wait for whichever comes.
    const posted = await waitFor(
      () => {
        const sent = observed.webviewMessages.slice(postedBefore).filter((m) => m.target === 'chat view');
        return sent.some((m) => m.json.includes('disconnected mid-stream')) && sent;
      },
      'the page to be told how the turn ended',
      20_000,
    );
    for (const message of posted) assert.doesNotMatch(message.json, /PROCESSING/);
  });

  it('a moderation refusal says why and what was flagged, its link syntax kept as written', async () => {
    await vscode.commands.executeCommand('gateway.ask', 'a brawl #sim:moderation');
    const turn = await lastAssistant();
    assert.equal(turn.status, 'error');
    // Any other error says which, for a failure under load.
    assert.equal(turn.error?.status, 403, `the turn ended with: ${JSON.stringify(turn.error)}`);
    assert.match(turn.error?.message ?? '', /Flagged for: violence, \[harassment\]\(command:/);
    assert.match(turn.error?.message ?? '', /Flagged input: "a brawl #sim:moderation"/);
    assert.equal(gateway.sim.requests.at(-1)?.headers.authorization, `Bearer ${TEST_KEY}`);
  });
});
