import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { alwaysAsks, approvalKey } from '../../../../src/core/agent/approvalPolicy';
import type { ToolSpec } from '../../../../src/core/agent/types';

function spec(source: ToolSpec['source'], name = 'fetch_docs'): ToolSpec {
  return { name, description: '', parameters: { type: 'object' }, source, readOnly: false };
}

describe('approval policy', () => {
  it('edits that can make something run later ask every time', () => {
    for (const path of [
      '.vscode/tasks.json',
      '.vscode/mcp.json',
      '.github/workflows/ci.yml',
      '.husky/pre-commit',
      '.devcontainer/devcontainer.json',
      'package.json',
      'web/package.json',
      'Makefile',
      '.git/config',
      'sub/.git/hooks/pre-commit',
      '.envrc',
    ])
      assert.equal(alwaysAsks({ kind: 'edit', path, created: false, diff: '' }), true, path);
    for (const path of ['src/a.ts', 'README.md', 'docs/.vscode-notes.md', 'github/workflows.md'])
      assert.equal(alwaysAsks({ kind: 'edit', path, created: false, diff: '' }), false, path);
    assert.equal(alwaysAsks({ kind: 'command', command: 'x', cwd: '', timeoutSeconds: 1 }), false);
    assert.equal(alwaysAsks(undefined), false);
  });

  it('names our tools by name, and others by source and what runs behind them', () => {
    assert.equal(
      approvalKey(spec({ kind: 'builtin', id: 'gateway', label: 'Gateway AI' }, 'edit_file')),
      'edit_file',
    );
    const user = approvalKey(
      spec({ kind: 'mcp', id: 'github', label: 'github', fingerprint: 'aaaaaaaaaaaaaaaa' }),
    );
    const repo = approvalKey(
      spec({ kind: 'mcp', id: 'github', label: 'github (workspace)', fingerprint: 'bbbbbbbbbbbbbbbb' }),
    );
    assert.equal(user, 'mcp:github#aaaaaaaaaaaa/fetch_docs');
    assert.notEqual(user, repo, 'a same-named server launched differently is not allowed with it');
    assert.equal(
      approvalKey(spec({ kind: 'extension', id: 'pub.ext', label: 'Ext' })),
      'extension:pub.ext/fetch_docs',
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (id, name, fingerprint) => {
        const a = approvalKey(spec({ kind: 'mcp', id, label: id, fingerprint }, name));
        assert.ok(a.startsWith('mcp:'), 'never taken for one of our own tools');
      }),
    );
  });
});
