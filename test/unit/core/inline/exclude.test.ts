import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseSettings } from '../../../../src/core/config/settingsModel';
import {
  DEFAULT_EXCLUDE,
  excludedBy,
  excludePatterns,
  MAX_PATTERN_LENGTH,
  MAX_PATTERNS,
  matchWork,
} from '../../../../src/core/inline/exclude';

function work(path: string, patterns: readonly string[]): { result: string | undefined; steps: number } {
  const before = matchWork.steps;
  const result = excludedBy(path, patterns);
  return { result, steps: matchWork.steps - before };
}

describe('inline completions: exclude patterns', () => {
  it('matches a backtracking-hostile pattern in steps proportional to its size, not exponential', () => {
    const pattern = '**a'.repeat(7) + '!';
    const path = `src/${'a'.repeat(60)}.ts`;
    const { result, steps } = work(path, [pattern]);
    assert.equal(result, undefined);
    // The regex it used to become took 14 s here; the wildcard walk is (60 + 1) × (15 + 1) at most.
    assert.ok(steps <= 2 * (path.length + 2) * (pattern.length + 2), `${steps} steps`);
  });

  it('understands {a,b} alternation and [...] classes instead of matching nothing', () => {
    assert.equal(excludedBy('certs/site.p12', ['*.{pem,p12}']), '*.{pem,p12}');
    assert.equal(excludedBy('certs/site.PEM', ['*.{pem,p12}']), '*.{pem,p12}');
    assert.equal(excludedBy('certs/site.crt', ['*.{pem,p12}']), undefined);
    assert.equal(excludedBy('home/id_rsa7', ['id_rsa[0-9]']), 'id_rsa[0-9]');
    assert.equal(excludedBy('home/id_rsax', ['id_rsa[0-9]']), undefined);
    assert.equal(excludedBy('home/id_rsax', ['id_rsa[!0-9]']), 'id_rsa[!0-9]');
    assert.equal(excludedBy('a/b/c/deep.txt', ['a/**/deep.{txt,md}']), 'a/**/deep.{txt,md}');
    assert.equal(excludedBy('a/deep.txt', ['a/**/deep.txt']), 'a/**/deep.txt');
    assert.equal(excludedBy('src/gen/x.ts', ['src/gen/**']), 'src/gen/**');
    assert.equal(excludedBy('src/other/x.ts', ['src/gen/**']), undefined);
  });

  it('excludes the wider default list of key and credential files', () => {
    for (const path of [
      '.ssh/id_ed25519',
      'id_ed25519.pub',
      'id_ecdsa',
      'id_dsa',
      'a/cert.p12',
      'a/cert.pfx',
      '.npmrc',
      'home/.netrc',
      'x/.aws/credentials',
      '.aws/credentials',
      'android/release.keystore',
      'app.jks',
      '.vscode/mcp.json',
      'pkg/.vscode/MCP.json',
      'credentials.json',
      'gcp/credentials.json',
      '.docker/config.json',
      'home/.docker/config.json',
      'terraform.tfstate',
      'infra/prod.tfstate.backup',
    ])
      assert.ok(excludedBy(path, DEFAULT_EXCLUDE), `${path} is excluded`);
    for (const path of ['.vscode/settings.json', 'config.json', 'docker/config.json', 'main.tf'])
      assert.equal(excludedBy(path, DEFAULT_EXCLUDE), undefined, `${path} is not excluded`);
  });

  it('always keeps the defaults: a workspace setting adds patterns, never removes them', () => {
    const settings = (exclude: unknown) =>
      parseSettings((key) => (key === 'gateway.inlineCompletions.exclude' ? exclude : undefined))
        .inlineCompletions.exclude;
    assert.deepEqual(settings([]), [...DEFAULT_EXCLUDE]);
    assert.deepEqual(settings(undefined), [...DEFAULT_EXCLUDE]);
    assert.deepEqual(settings(['gen/**']), [...DEFAULT_EXCLUDE, 'gen/**']);
    // Invalid entries fall away; the defaults stay.
    assert.deepEqual(settings([42, 'x'.repeat(MAX_PATTERN_LENGTH + 1), '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}']), [
      ...DEFAULT_EXCLUDE,
    ]);
    assert.equal(excludePatterns(Array.from({ length: 500 }, (_, i) => `p${i}`)).length, MAX_PATTERNS);
  });

  it('any pattern list against any path: never throws, and the work stays within pattern × path', () => {
    const globChars = fc.constantFrom(
      '*',
      '**',
      '?',
      '/',
      'a',
      'b',
      '.',
      '{',
      '}',
      ',',
      '[',
      ']',
      '!',
      '-',
      '0',
    );
    const glob = fc.array(globChars, { maxLength: 60 }).map((parts) => parts.join(''));
    const pathChars = fc.constantFrom('a', 'b', '/', '.', '0', 'x', '\\');
    const path = fc.oneof(
      fc.array(pathChars, { maxLength: 120 }).map((parts) => parts.join('')),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(glob, fc.string()), { maxLength: 8 }), path, (patterns, subject) => {
        const { result, steps } = work(subject, patterns);
        assert.ok(result === undefined || patterns.includes(result));
        // Each pattern expands to at most 32 alternatives, each no longer than the pattern.
        const bound = patterns.reduce((sum, p) => sum + 32 * 2 * (p.length + 2) * (subject.length + 2), 0);
        assert.ok(steps <= bound, `${steps} steps > ${bound}`);
      }),
    );
  });
});
