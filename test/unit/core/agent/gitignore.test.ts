import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { isIgnored, parseGitignore, sortIgnoreFiles } from '../../../../src/core/agent/gitignore';

describe('agent tools: .gitignore', () => {
  const root = parseGitignore(
    ['# built', 'node_modules/', '/dist', '*.log', '!keep.log', 'docs/*.tmp', '\\#hash'].join('\n'),
  );

  it('matches names at any depth, anchored patterns at the top, folders only with a slash', () => {
    assert.ok(isIgnored('node_modules/x/index.js', [root]));
    assert.ok(isIgnored('pkg/node_modules/y.js', [root]));
    assert.ok(!isIgnored('node_modules', [root], false), 'node_modules/ matches folders only');
    assert.ok(isIgnored('dist/a.js', [root]));
    assert.ok(!isIgnored('src/dist/a.js', [root]), '/dist is anchored');
    assert.ok(isIgnored('a/b/c.log', [root]));
    assert.ok(!isIgnored('a/keep.log', [root]), '! re-includes');
    assert.ok(isIgnored('docs/x.tmp', [root]));
    assert.ok(!isIgnored('other/docs/x.tmp', [root]), 'a middle slash anchors');
    assert.ok(isIgnored('#hash', [root]));
    assert.ok(!isIgnored('src/index.ts', [root]));
  });

  it('keeps a path in an ignored folder ignored, even when a rule re-includes it', () => {
    const file = parseGitignore('build/\n!build/keep.txt\n');
    assert.ok(isIgnored('build/keep.txt', [file]));
  });

  it('applies a nested file below its folder only, after its parents', () => {
    const files = sortIgnoreFiles([parseGitignore('*.gen.ts\n!ok.log', 'pkg'), parseGitignore('*.log')]);
    assert.ok(isIgnored('pkg/a.gen.ts', files));
    assert.ok(!isIgnored('a.gen.ts', files));
    assert.ok(!isIgnored('pkg/ok.log', files), 'the deeper file wins');
    assert.ok(isIgnored('ok.log', files));
  });

  it('never throws on any text or path (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.string({ maxLength: 100 }),
        fc.boolean(),
        (text, path, folder) => {
          const file = parseGitignore(text);
          assert.equal(typeof isIgnored(path, [file], folder), 'boolean');
        },
      ),
    );
  });
});
