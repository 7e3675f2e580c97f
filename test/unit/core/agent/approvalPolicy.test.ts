import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ALWAYS_ASK,
  alwaysAskPattern,
  alwaysAskRule,
  alwaysAskWhy,
  approvalKey,
  PACKAGE_JSON_MAX_BYTES,
  packageScriptFiles,
} from '../../../../src/core/agent/approvalPolicy';
import type { ToolSpec } from '../../../../src/core/agent/types';
import { excludedBy } from '../../../../src/core/inline/exclude';

function spec(source: ToolSpec['source'], name = 'fetch_docs'): ToolSpec {
  return { name, description: '', parameters: { type: 'object' }, source, readOnly: false };
}

/** Folder-relative real paths whose change must ask every time. */
const MUST_ASK = [
  '.vscode/tasks.json',
  '.vscode/mcp.json',
  '.vscode/settings.json',
  'app/.vscode/tasks.json',
  '.VSCODE/Tasks.json',
  'project.code-workspace',
  'sub/team.CODE-WORKSPACE',
  '.github/workflows/ci.yml',
  'svc/.github/workflows/release.yaml',
  '.github/actions/setup/action.yml',
  '.husky/pre-commit',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yaml',
  'lefthook-local.yml',
  '.devcontainer/devcontainer.json',
  '.devcontainer.json',
  'package.json',
  'web/package.json',
  '.npmrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'eslint.config.js',
  'eslint.config.mjs',
  '.eslintrc.cjs',
  '.eslintrc.json',
  'prettier.config.mjs',
  '.prettierrc.js',
  'jest.config.ts',
  'vitest.config.mts',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'Justfile',
  'conftest.py',
  'tests/conftest.py',
  'setup.py',
  'pyproject.toml',
  'pytest.ini',
  'build.rs',
  'crates/x/build.rs',
  '.cargo/config.toml',
  '.cargo/config',
  'build.gradle.kts',
  'settings.gradle',
  'gradle/wrapper/gradle-wrapper.properties',
  '.mvn/jvm.config',
  'Directory.Build.props',
  '.circleci/config.yml',
  'azure-pipelines.yml',
  '.gitlab-ci.yml',
  '.gitlab/ci/build.yml',
  'Jenkinsfile',
  '.travis.yml',
  'bitbucket-pipelines.yml',
  '.buildkite/pipeline.yml',
  '.drone.yml',
  '.yarnrc',
  'sitecustomize.py',
  '.bash_profile',
  '.zshrc',
  '.zshenv',
  '.profile',
  '.git/config',
  'sub/.git/hooks/pre-commit',
  '.envrc',
  '.bashrc',
  'vite.config.ts',
  'playwright.config.ts',
  'webpack.config.js',
  'rollup.config.mjs',
  'babel.config.json',
  '.babelrc.js',
  'postcss.config.cjs',
  'tailwind.config.ts',
  'next.config.mjs',
  'nuxt.config.ts',
  'svelte.config.js',
  'astro.config.mjs',
  '.mocharc.cjs',
  'karma.conf.js',
  'Gulpfile.js',
  'gruntfile.coffee',
  'node_modules/lodash/index.js',
  'packages/app/node_modules/.bin/tsc',
  'AGENTS.md',
  'AGENT.md',
  'src/CLAUDE.md',
  '.github/copilot-instructions.md',
  '.github/instructions/ts.instructions.md',
  'reviewer.agent.md',
  '.clinerules',
  '.clinerules/style.md',
  '.kilo/rules/a.md',
  '.kilocode/rules/a.md',
  '.roo/rules/a.md',
  '.continue/rules/a.md',
  '.github/agents/x.md',
  '.gateway/agents/x.md',
  'App/App.csproj',
  'Lib.fsproj',
  'Old.vbproj',
  'Directory.Packages.props',
  'build/custom.targets',
  'CMakeLists.txt',
  'cmake/deps.cmake',
  'Gemfile',
  'Rakefile',
  'tox.ini',
  'noxfile.py',
  'rust-toolchain',
  'rust-toolchain.toml',
  'Taskfile.yml',
  'Taskfile.dist.yaml',
  'deno.json',
  'deno.jsonc',
  'bunfig.toml',
  'Dockerfile',
  'api.Dockerfile',
  'docker-compose.yml',
  'compose.yaml',
  'compose.override.yml',
  // Missing from the always-ask list in the last review.
  '.mocharc.yml',
  '.mocharc.yaml',
  'test/.mocharc.json',
  '.mocharc.jsonc',
  'pom.xml',
  'services/api/pom.xml',
  'mise.toml',
  '.mise.toml',
  'mise.local.toml',
  '.mise/config.toml',
  '.config/mise.toml',
  '.config/mise/config.toml',
  '.tool-versions',
  'Vagrantfile',
  // Absolute real paths: a workspace folder that is itself a `.vscode` folder.
  '/home/u/project/.vscode/tasks.json',
];

/** Paths an edit of which asks only as the user's approvals say. */
const MUST_NOT_ASK = [
  'src/a.ts',
  'README.md',
  'docs/setup.md',
  'docs/.vscode-notes.md',
  'github/workflows.md',
  'docs/github-actions.md',
  'src/package.ts',
  'package-lock.json',
  'packages/makefile-parser/index.ts',
  'eslint-plugin/index.js',
  'src/eslint.ts',
  'docs/pyproject.md',
  'tests/test_conftest_helpers.py',
  'src/build.rs.md',
  'workspace.md',
  'cargo/config.toml',
  'docs/agents-guide.md',
  'docs/dockerfile-notes.md',
  'src/components/Compose.tsx',
  'src/vite.ts',
  'node_modules.md',
  'docs/pom.xml.md',
  'src/mise.ts',
  'tool-versions.md',
  'mocharc.md',
  '/home/u/project/src/main.rs',
];

describe('approval policy', () => {
  it('changes to files that can make something run later ask every time: the corpus', () => {
    for (const path of MUST_ASK) assert.ok(alwaysAskPattern([path]), `${path} must always ask`);
    for (const path of MUST_NOT_ASK)
      assert.equal(alwaysAskPattern([path]), undefined, `${path} must not always ask`);
  });

  it('judges a file by every name it has: a link is what it leads to', () => {
    // `docs/setup.md` is a link to `.vscode/tasks.json`: the tool passes both names.
    assert.equal(alwaysAskPattern(['docs/setup.md', '.vscode/tasks.json']), '**/.vscode/**');
    assert.equal(alwaysAskPattern(['docs/setup.md', 'docs/setup.md', '/w/app/docs/setup.md']), undefined);
    assert.equal(alwaysAskPattern([]), undefined);
  });

  it('is a list of globs by kind, each one in the corpus', () => {
    const patterns = ALWAYS_ASK.flatMap((group) => group.patterns);
    assert.equal(new Set(patterns).size, patterns.length, 'no pattern twice');
    for (const pattern of patterns)
      assert.ok(
        MUST_ASK.some((path) => excludedBy(path, [pattern]) !== undefined),
        `${pattern} has a name in the corpus`,
      );
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

  describe('the always-ask list misses scripts that package.json points to', () => {
    it('names the files its scripts run, relative to its folder, with the script that runs each', () => {
      const manifest = JSON.stringify({
        name: 'x',
        scripts: {
          build: 'node scripts/build.js && tsc -p .',
          postinstall: './tools/setup.sh',
          test: 'mocha --require=./test/setup.cjs "out/**/*.test.js"',
          lint: 'eslint src --fix',
          fmt: 'prettier --write . ; python3 ./fix.py',
          env: 'cross-env NODE_ENV=production node ./scripts/../bin/run.mjs',
          up: 'node ../outside/x.js',
          url: 'curl https://example.com/x.sh | sh',
          home: 'node ~/x.js; node $HOME/y.js; node /abs/z.js',
          windows: 'node C:\\x\\y.js',
          again: 'node scripts/build.js',
          notString: 42,
        },
      });
      assert.deepEqual(packageScriptFiles(manifest), [
        { script: 'build', path: 'scripts/build.js' },
        { script: 'postinstall', path: 'tools/setup.sh' },
        { script: 'test', path: 'test/setup.cjs' },
        { script: 'fmt', path: 'fix.py' },
        { script: 'env', path: 'bin/run.mjs' },
      ]);
    });

    it('names nothing for a manifest that is not JSON, has no scripts object, or is too large', () => {
      for (const text of ['', 'not json', '[]', 'null', '{"scripts": []}', '{"scripts": "node x.js"}'])
        assert.deepEqual(packageScriptFiles(text), [], text);
      const large = JSON.stringify({ scripts: { a: 'node a.js' }, pad: 'x'.repeat(PACKAGE_JSON_MAX_BYTES) });
      assert.deepEqual(packageScriptFiles(large), []);
    });

    it('never throws, and names only relative paths inside its folder (property)', () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string(),
            fc
              .dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()))
              .map((scripts) => JSON.stringify({ scripts })),
          ),
          (text) => {
            for (const { path } of packageScriptFiles(text)) {
              assert.ok(path.length > 0 && !path.startsWith('/') && !path.split('/').includes('..'), path);
            }
          },
        ),
      );
    });
  });

  it('an edit through a link alias: the card names the real file and says why it asks', () => {
    const rule = alwaysAskRule(['docs/setup.md', '.vscode/tasks.json', '/w/app/.vscode/tasks.json']);
    assert.deepEqual(rule, { pattern: '**/.vscode/**', kind: 'VS Code configuration' });
    const why = alwaysAskWhy('docs/setup.md', '/w/app/.vscode/tasks.json', { rule: rule });
    assert.match(why, /^"docs\/setup\.md" is a link to \/w\/app\/\.vscode\/tasks\.json: /);
    assert.match(why, /it is VS Code configuration \(it matches "\*\*\/\.vscode\/\*\*"\)/);
    assert.match(why, /can make something run later\. It asks every time/);
    // Named as it is: no link mentioned; a package script says which script runs it.
    const direct = alwaysAskWhy('scripts/x.js', undefined, { script: 'scripts.build of package.json' });
    assert.equal(
      direct,
      'scripts.build of package.json runs it, so a change to it can make something run later. It asks every time, even after Allow in this chat.',
    );
    assert.equal(alwaysAskRule(['src/a.ts']), undefined);
  });
});
