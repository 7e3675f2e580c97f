import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  IgnoreMatcher,
  MAX_GLOB_CHARS,
  MAX_GLOB_RULES_PER_FILE,
  MAX_MATCH_STEPS,
  isIgnored,
  parseGitignore,
  sortIgnoreFiles,
} from '../../../../src/core/agent/gitignore';
import type { IgnoreFile } from '../../../../src/core/agent/gitignore';
import { excludedBy, matchWork } from '../../../../src/core/inline/exclude';

/** The rules as git states them, every one through the glob matcher: what the fast paths must equal. */
function reference(path: string, files: readonly IgnoreFile[], isFolder: boolean): boolean {
  const decide = (candidate: string, folder: boolean): boolean | undefined => {
    let decision: boolean | undefined;
    for (const file of files) {
      const prefix = file.folder ? `${file.folder}/` : '';
      if (prefix && !candidate.startsWith(prefix)) continue;
      const inner = candidate.slice(prefix.length);
      for (const rule of file.rules) {
        if (rule.folderOnly && !folder) continue;
        if (rule.anchored && !rule.pattern.includes('/') && inner.includes('/')) continue;
        if (excludedBy(inner, [rule.pattern]) !== undefined) decision = !rule.negated;
      }
    }
    return decision;
  };
  const parts = path.split('/').filter((part) => part !== '');
  for (let i = 1; i < parts.length; i++) if (decide(parts.slice(0, i).join('/'), true)) return true;
  return decide(parts.join('/'), isFolder) === true;
}

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

  it('bounds its work against hostile rules: 200 wildcard rules a file, a pattern budget, a step budget', () => {
    // 2000 rules like `*a*a*…*b` cost tens of milliseconds a path; a listing checks 20,000 paths.
    const text = Array.from({ length: 2000 }, (_, i) => `${'*a'.repeat(28)}*b${i}`).join('\n');
    const one = parseGitignore(`${text}\nplain.txt\n*.log`);
    assert.equal(one.rules.filter((rule) => rule.kind === 'glob').length, MAX_GLOB_RULES_PER_FILE);
    assert.ok(one.truncated);
    assert.ok(
      one.rules.some((rule) => rule.literal === 'plain.txt'),
      'string rules are kept past the cap',
    );
    const hostile = parseGitignore(text);
    const files = sortIgnoreFiles(
      Array.from({ length: 200 }, (_, f) => ({ ...hostile, folder: f ? `d${f}` : '' })),
    );
    const matcher = new IgnoreMatcher(files);
    const globChars = matcher.files
      .flatMap((file) => file.rules)
      .reduce((sum, rule) => sum + (rule.glob ? rule.pattern.length : 0), 0);
    assert.ok(globChars <= MAX_GLOB_CHARS, `${globChars} pattern characters honoured`);
    assert.ok(matcher.skipped.length > 0);
    const start = matchWork.steps;
    const path = `src/${'aaaaaaaaaa/'.repeat(3)}${'a'.repeat(40)}`;
    let checked = 0;
    for (; checked < 20_000; checked++) matcher.ignored(`${path}${checked}.txt`);
    const steps = matchWork.steps - start;
    // The budget, plus the one path that crossed it (at most pattern characters × path length).
    assert.ok(steps <= MAX_MATCH_STEPS + MAX_GLOB_CHARS * path.length * 2, `${steps} steps`);
    assert.ok(matcher.exhausted);
    assert.match(matcher.notice() ?? '', /not honoured.*first 200 wildcard rules.*took too long/s);
    // A realistic file spends nothing of note and says nothing.
    const plain = new IgnoreMatcher([
      parseGitignore('node_modules/\n*.log\n/dist\nbuild-*/\n**/tmp/**/*.bak'),
    ]);
    assert.ok(plain.ignored('a/tmp/x/y.bak') && !plain.ignored('src/a.ts'));
    assert.equal(plain.notice(), undefined);
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

  it('decides as the glob matcher would for every rule, with its fast paths and remembered folders (property)', () => {
    const name = fc.constantFrom('a', 'b', 'Log', 'x.log', 'y.LOG', 'dist', 'node_modules', 'a.b');
    const pattern = fc
      .tuple(
        fc.constantFrom('', '!'),
        fc.constantFrom('', '/'),
        fc.array(fc.constantFrom('a', 'b', 'dist', '*.log', '*', '**', 'x.*', 'node_modules', '?', 'a.b'), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.constantFrom('', '/'),
      )
      .map(([bang, lead, parts, trail]) => `${bang}${lead}${parts.join('/')}${trail}`);
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 8 }),
        fc.array(pattern, { maxLength: 4 }),
        fc.array(fc.array(name, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (rootRules, nestedRules, paths, isFolder) => {
          const files = sortIgnoreFiles([
            parseGitignore(nestedRules.join('\n'), 'a'),
            parseGitignore(rootRules.join('\n')),
          ]);
          const matcher = new IgnoreMatcher(files);
          for (const parts of paths) {
            const path = parts.join('/');
            assert.equal(matcher.ignored(path, isFolder), reference(path, files, isFolder), path);
          }
        },
      ),
    );
  });
});
