import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { mentionAt, rankFiles } from '../../../../src/core/chat/fileMention';
import { parseHostMessage, parseWebviewMessage } from '../../../../src/core/protocol/chatProtocol';

describe('#file: mentions', () => {
  it('finds the mention that ends at the caret, at the start or after white space', () => {
    assert.deepEqual(mentionAt('#file:', 6), { start: 0, query: '' });
    assert.deepEqual(mentionAt('look at #file:src/ap', 20), { start: 8, query: 'src/ap' });
    assert.deepEqual(mentionAt('look at #file:src/ap and', 20), { start: 8, query: 'src/ap' });
    assert.equal(mentionAt('look at #file:src/app.ts now', 28), undefined, 'the caret left it');
    assert.equal(mentionAt('mail#file:x', 11), undefined, 'not inside a word');
    assert.equal(mentionAt('#fil', 4), undefined);
  });

  it('ranks file-name matches first, then folder matches, then characters in order', () => {
    const paths = [
      'src/webview/main.ts',
      'docs/maintenance-notes.md',
      'src/domain/x.ts',
      'README.md',
      'm/a/i/n.txt',
    ];
    assert.deepEqual(rankFiles(paths, 'main'), [
      'src/webview/main.ts',
      'docs/maintenance-notes.md',
      'src/domain/x.ts',
      'm/a/i/n.txt',
    ]);
    assert.deepEqual(rankFiles(paths, 'READ'), ['README.md'], 'case-insensitive');
    assert.equal(rankFiles(paths, '').length, paths.length);
    assert.equal(rankFiles(paths, '', 2).length, 2);
  });

  it('never throws and returns only given paths (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string(), (paths, query) => {
        for (const p of rankFiles(paths, query)) assert.ok(paths.includes(p));
      }),
      { numRuns: 500 },
    );
  });

  it('the messages are validated on both sides', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'findFiles', query: 'app' }), {
      type: 'findFiles',
      query: 'app',
    });
    assert.equal(parseWebviewMessage({ type: 'findFiles', query: 3 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'findFiles', query: 'x'.repeat(501) }), undefined);
    assert.deepEqual(
      parseHostMessage({
        type: 'fileSuggestions',
        query: 'a',
        files: [{ path: 'a.ts', uri: 'file:///w/a.ts' }, { path: 7 }, 'x'],
      }),
      { type: 'fileSuggestions', query: 'a', files: [{ path: 'a.ts', uri: 'file:///w/a.ts' }] },
    );
    assert.equal(parseHostMessage({ type: 'fileSuggestions', files: [] }), undefined);
  });
});
