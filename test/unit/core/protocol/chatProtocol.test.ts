import * as assert from 'node:assert/strict';
import {
  isAllowedLink,
  parseHostMessage,
  parseWebviewMessage,
} from '../../../../src/core/protocol/chatProtocol';

describe('chat protocol validation', () => {
  it('accepts every well-formed webview message', () => {
    const good = [
      { type: 'ready' },
      { type: 'send', text: 'hi' },
      { type: 'stop' },
      { type: 'retry', turnId: 'a-1' },
      { type: 'editAndResend', turnId: 'u-1', text: 'again' },
      { type: 'copy', text: 'x' },
      { type: 'insertCode', code: 'x' },
      { type: 'openCode', code: 'x', language: 'ts' },
      { type: 'openLink', href: 'https://example.com' },
      { type: 'setApiKey' },
      { type: 'openSettings' },
      { type: 'selectModel' },
      { type: 'newChat' },
      { type: 'openConversation', id: 'c-1' },
      { type: 'deleteConversation', id: 'c-1' },
      { type: 'exportConversation' },
      { type: 'leaveOutOldestTurns', promptTokens: 120 },
      { type: 'includeLeftOutTurns' },
    ];
    for (const message of good)
      assert.deepEqual(parseWebviewMessage(message), message, JSON.stringify(message));
  });

  it('rejects malformed, unknown and oversized messages', () => {
    const bad: unknown[] = [
      null,
      'send',
      [],
      { type: 'nope' },
      { type: 'send' },
      { type: 'send', text: 42 },
      { type: 'send', text: 'x'.repeat(1_000_001) },
      { type: 'retry', turnId: '' },
      { type: 'deleteEverything' },
      { type: 'openCode', code: 'x', language: 7 },
      { type: 'openConversation', id: 'x'.repeat(500) },
      { type: 'leaveOutOldestTurns' },
      { type: 'leaveOutOldestTurns', promptTokens: -1 },
      { type: 'leaveOutOldestTurns', promptTokens: 1.5 },
      { type: 'leaveOutOldestTurns', promptTokens: '9' },
    ];
    for (const message of bad)
      assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message)?.slice(0, 80));
  });

  it('drops extra fields so nothing unvalidated reaches the host', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'hi', command: 'rm -rf' }), {
      type: 'send',
      text: 'hi',
    });
  });

  it('checks host messages by type', () => {
    assert.ok(parseHostMessage({ type: 'turnDelta', id: 'x', content: 'a' }));
    assert.equal(parseHostMessage({ type: 'evil' }), undefined);
    assert.equal(parseHostMessage(undefined), undefined);
  });

  it('allows only http, https and mailto links', () => {
    assert.ok(isAllowedLink('https://example.com/a'));
    assert.ok(isAllowedLink('http://example.com'));
    assert.ok(isAllowedLink('mailto:a@b.c'));
    for (const href of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'vscode://x',
      'command:foo',
      'not a url',
    ]) {
      assert.equal(isAllowedLink(href), false, href);
    }
  });
});
