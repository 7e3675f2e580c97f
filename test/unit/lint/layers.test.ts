/**
 * The layer rules of eslint.config.mjs, checked on small sources in test/fixtures/lint. Each
 * fixture says where it pretends to live and which rules must report it:
 *   // lint-as: src/core/chat/fixture.ts
 *   // expect: local/layers            (or `none` for a fixture that must pass)
 * The fixtures are linted in memory at that path with the real config, minus the rules that need
 * type information (the pretended files are in no tsconfig, and most of the layout they name does
 * not exist: the layer rules resolve paths without touching the disk).
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ESLint } from 'eslint';
import type { Linter } from 'eslint';
import { configs } from 'typescript-eslint';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const fixtures = path.join(root, 'test', 'fixtures', 'lint');

interface Fixture {
  name: string;
  code: string;
  lintAs: string;
  expect: string[];
}

function readFixtures(): Fixture[] {
  return readdirSync(fixtures)
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => {
      const code = readFileSync(path.join(fixtures, name), 'utf8');
      const lintAs = /^\/\/ lint-as: (\S+)$/m.exec(code)?.[1];
      const expect = /^\/\/ expect: (.+)$/m.exec(code)?.[1];
      if (!lintAs || !expect) throw new Error(`${name} needs "// lint-as:" and "// expect:" lines`);
      return {
        name,
        code,
        lintAs,
        expect: expect.trim() === 'none' ? [] : expect.split(',').map((rule) => rule.trim()),
      };
    });
}

function describeMessages(messages: Linter.LintMessage[]): string {
  return messages.map((m) => `${m.line}:${m.column} ${m.ruleId ?? 'fatal'}: ${m.message}`).join('\n');
}

describe('lint layers', function () {
  this.timeout(60_000);
  let eslint: ESLint;
  let fixer: ESLint;

  before(() => {
    const withoutTypes: Linter.Config[] = [
      { files: ['**/*.ts'], ...(configs.disableTypeChecked as Linter.Config) },
    ];
    eslint = new ESLint({ cwd: root, overrideConfig: withoutTypes });
    fixer = new ESLint({ cwd: root, fix: true, overrideConfig: withoutTypes });
  });

  const all = readFixtures();

  it('has a violating fixture for each layer and a compliant one', () => {
    assert.ok(all.filter((f) => f.expect.length > 0).length >= 20);
    assert.ok(all.some((f) => f.expect.length === 0));
  });

  for (const fixture of all) {
    const title =
      fixture.expect.length === 0
        ? `${fixture.name} passes as ${fixture.lintAs}`
        : `${fixture.name} fails as ${fixture.lintAs} with ${fixture.expect.join(', ')}`;
    it(title, async () => {
      const [result] = await eslint.lintText(fixture.code, { filePath: path.join(root, fixture.lintAs) });
      assert.ok(result, 'ESLint returned no result');
      const messages = result.messages;
      const fatal = messages.filter((m) => m.fatal || m.ruleId === null);
      assert.deepEqual(fatal, [], describeMessages(fatal));
      const rules = [...new Set(messages.map((m) => m.ruleId))].sort();
      assert.deepEqual(rules, [...fixture.expect].sort(), describeMessages(messages));
    });
  }

  it('moves inline type specifiers to their own import type statement', async () => {
    const code = "import d, { a, type A as B } from './x';\n\nexport const z = [d, a] as unknown as B;\n";
    const [result] = await fixer.lintText(code, { filePath: path.join(root, 'src/core/fixture.ts') });
    assert.equal(
      result?.output,
      "import d, { a } from './x';\nimport type { A as B } from './x';\n\nexport const z = [d, a] as unknown as B;\n",
    );
  });
});
