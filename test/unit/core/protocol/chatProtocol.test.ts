import * as assert from 'node:assert/strict';
import fc from 'fast-check';
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
      { type: 'manageTrust' },
      { type: 'selectModel' },
      { type: 'newChat' },
      { type: 'openConversation', id: 'c-1' },
      { type: 'deleteConversation', id: 'c-1' },
      { type: 'exportConversation' },
      { type: 'leaveOutOldestTurns', promptTokens: 120 },
      { type: 'includeLeftOutTurns' },
      ...['open', 'save', 'insert', 'copyPath', 'rerun', 'variation'].map((action) => ({
        type: 'mediaAction',
        action,
        jobId: 'media-1',
      })),
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
      { type: 'mediaAction', action: 'delete', jobId: 'media-1' },
      { type: 'mediaAction', action: 'open' },
      { type: 'mediaAction', action: 'open', jobId: 42 },
      { type: 'mediaAction', action: 'toString', jobId: 'media-1' },
    ];
    for (const message of bad)
      assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message)?.slice(0, 80));
  });

  it('media card buttons: never throws, and only a known action with a job id gets through (fuzz)', () => {
    const anyJson = fc.jsonValue({ maxDepth: 2 });
    const actions = ['open', 'save', 'insert', 'copyPath', 'rerun', 'variation'];
    let passed = 0;
    fc.assert(
      fc.property(
        fc.record(
          {
            type: fc.oneof(fc.constant('mediaAction'), anyJson),
            action: fc.oneof(fc.constantFrom(...actions, 'delete', '__proto__'), anyJson),
            jobId: fc.oneof(fc.string({ maxLength: 600 }), anyJson),
            extra: anyJson,
          },
          { requiredKeys: ['type'] },
        ),
        (value) => {
          const message = parseWebviewMessage(value);
          if (message?.type !== 'mediaAction') return;
          passed++;
          assert.deepEqual(Object.keys(message).sort(), ['action', 'jobId', 'type']);
          assert.ok(actions.includes(message.action));
          assert.ok(
            typeof message.jobId === 'string' && message.jobId.length > 0 && message.jobId.length <= 500,
          );
        },
      ),
      { numRuns: 2000 },
    );
    assert.ok(passed > 50, `only ${passed} usable messages; the generator is off`);
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
