/**
 * The pure half of the approval policy: how a tool is named in what the user allowed, and which
 * edits ask every time.
 *
 * Files whose change can make something run later (a task, a hook, a CI job, a dev container, an
 * MCP server): an edit to one is asked about every time, even for a tool the user allowed in the
 * chat or always. Pure.
 */
import { excludedByAny } from '../inline/exclude';
import { normalizeSegments } from './workspacePaths';
import type { Confirmation, ToolSpec } from './types';

/**
 * Files whose change can make something run later, as globs (the secrets list's matcher: a
 * pattern without `/` matches the name in any folder; case is ignored). An edit or creation of
 * one asks every time. Judged on the file's real path (a link to `.vscode/tasks.json` is
 * `.vscode/tasks.json`), relative to its workspace folder and absolute; folder patterns match at
 * any depth, since a nested project may be opened on its own later.
 *
 * `test/unit/core/agent/approvalPolicy.test.ts` holds the names that must and must not match.
 */
export const ALWAYS_ASK: ReadonlyArray<{ readonly kind: string; readonly patterns: readonly string[] }> = [
  {
    // Tasks that run on folder open, launch configurations, settings, MCP servers; a
    // `.code-workspace` can add folders and set the gateway's URL.
    kind: 'VS Code configuration',
    patterns: ['**/.vscode/**', '*.code-workspace'],
  },
  {
    kind: 'git hooks and git itself',
    patterns: ['**/.git/**', '**/.husky/**', '.pre-commit-config.yaml', '{.,}lefthook*.{yml,yaml,json,toml}'],
  },
  {
    kind: 'CI pipelines',
    patterns: [
      '**/.github/workflows/**',
      '**/.github/actions/**',
      '.gitlab-ci.yml',
      '**/.gitlab/**',
      '**/.circleci/**',
      'azure-pipelines*.yml',
      '.travis.yml',
      'bitbucket-pipelines.yml',
      'Jenkinsfile',
      '**/.buildkite/**',
      '.drone.yml',
    ],
  },
  {
    kind: 'dev containers',
    patterns: ['**/.devcontainer/**', '.devcontainer.json'],
  },
  {
    // Install scripts and package-manager hooks run on the next install.
    kind: 'package managers',
    patterns: ['package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.{cjs,mjs,js}'],
  },
  {
    // Configuration that editor extensions load as code, without being asked to run anything.
    kind: 'tool configuration that runs code',
    patterns: [
      'eslint.config.*',
      '.eslintrc*',
      'prettier.config.*',
      '.prettierrc.{js,cjs,mjs,ts}',
      'jest.config.*',
      'vitest.config.*',
      'vite.config.*',
      'playwright.config.*',
      'webpack.config.*',
      'rollup.config.*',
      'babel.config.*',
      '.babelrc.{js,cjs,mjs}',
      'postcss.config.*',
      'tailwind.config.*',
      'next.config.*',
      'nuxt.config.*',
      'svelte.config.*',
      'astro.config.*',
      '.mocharc.{js,cjs,mjs,yml,yaml,json,jsonc}',
      'karma.conf.*',
      '{gulpfile,gruntfile}.*',
    ],
  },
  {
    // Installed packages' code runs on the next build, test or start.
    kind: 'installed packages',
    patterns: ['**/node_modules/**'],
  },
  {
    // What the agent reads as instructions at the next turn: a change there steers later turns.
    kind: 'agent instructions',
    patterns: [
      'AGENTS.md',
      'AGENT.md',
      'CLAUDE.md',
      '**/.github/copilot-instructions.md',
      '*.instructions.md',
      '*.agent.md',
      '.clinerules',
      '**/.clinerules/**',
      '**/.kilo/rules/**',
      '**/.kilocode/rules/**',
      '**/.roo/rules/**',
      '**/.continue/rules/**',
      '**/.github/agents/**',
      '**/.gateway/agents/**',
    ],
  },
  {
    // Test discovery and the language servers' builds run these.
    kind: 'Python builds and tests',
    patterns: ['setup.py', 'pyproject.toml', 'conftest.py', 'pytest.ini', 'sitecustomize.py'],
  },
  {
    kind: 'Rust, JVM, .NET and C/C++ builds',
    patterns: [
      'build.rs',
      '**/.cargo/config',
      '**/.cargo/config.toml',
      'build.gradle*',
      'settings.gradle*',
      // Maven runs the plugins a pom names (exec-maven-plugin, antrun) on the next build.
      'pom.xml',
      'gradle-wrapper.properties',
      '**/.mvn/**',
      'Directory.Build.*',
      '*.{csproj,fsproj,vbproj,props,targets}',
      'CMakeLists.txt',
      '*.cmake',
    ],
  },
  {
    // Task runners and toolchain files that name programs to run.
    kind: 'Ruby, Python, Rust, Deno, Bun and task runners',
    patterns: [
      'gemfile',
      'rakefile',
      'tox.ini',
      'noxfile.py',
      'rust-toolchain{,.toml}',
      'taskfile{,.dist}.{yml,yaml}',
      'deno.json{,c}',
      'bunfig.toml',
      // Tool-version managers: mise's tasks, hooks and env run on entering the folder; asdf's
      // `.tool-versions` picks which program a command name runs.
      '{.,}mise{,.local}.toml',
      '**/.mise/**',
      '**/.config/mise{,.local}.toml',
      '**/.config/mise/**',
      '.tool-versions',
    ],
  },
  {
    kind: 'container and VM builds',
    patterns: ['dockerfile', '*.dockerfile', '{docker-,}compose*.{yml,yaml}', 'vagrantfile'],
  },
  {
    kind: 'makefiles',
    patterns: ['makefile', 'gnumakefile', '{.,}justfile'],
  },
  {
    kind: 'shell start-up files',
    patterns: ['.envrc', '.bashrc', '.bash_profile', '.zshrc', '.zshenv', '.profile'],
  },
];

const ALWAYS_ASK_PATTERNS: readonly string[] = ALWAYS_ASK.flatMap((group) => group.patterns);

/** Most bytes of a `package.json` read for its scripts; a larger one names no files here. */
export const PACKAGE_JSON_MAX_BYTES = 1024 * 1024;
/** Most scripts, characters per script and words per script looked at. */
const MAX_SCRIPTS = 500;
const MAX_SCRIPT_CHARS = 4096;
const MAX_WORDS = 200;

/** A word of a script that names a program file by an extension scripts run. */
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]sx?|sh|bash|zsh|py|rb|pl|php|ps1|bat|cmd|mjs|cjs)$/i;

/**
 * The files a `package.json`'s `scripts` run (`node scripts/x.js`, `./tools/build.sh`,
 * `--require=./setup.cjs`), as paths relative to the `package.json`'s folder, with the script
 * that names each: an edit to one runs at the next `npm run`, `npm test` or install. A word
 * counts when it has a `/` or ends in a script's extension; flags, variables, URLs, globs and
 * paths that leave the folder do not. Outside data: anything malformed names nothing, and the
 * work is bounded (MAX_SCRIPTS scripts, MAX_SCRIPT_CHARS characters and MAX_WORDS words each).
 */
export function packageScriptFiles(text: string): Array<{ script: string; path: string }> {
  if (text.length > PACKAGE_JSON_MAX_BYTES) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const scripts = (parsed as Record<string, unknown>).scripts;
  if (typeof scripts !== 'object' || scripts === null || Array.isArray(scripts)) return [];
  const out: Array<{ script: string; path: string }> = [];
  for (const [script, line] of Object.entries(scripts as Record<string, unknown>).slice(0, MAX_SCRIPTS)) {
    if (typeof line !== 'string') continue;
    const words = line
      .slice(0, MAX_SCRIPT_CHARS)
      .split(/[\s;&|()<>"'`=,]+/)
      .slice(0, MAX_WORDS);
    for (const word of words) {
      if (!word || word.startsWith('-') || /[$*?[\]{}~%:\\]/.test(word) || word.startsWith('/')) continue;
      if (!word.includes('/') && !SCRIPT_EXTENSION.test(word)) continue;
      if (word.endsWith('/')) continue;
      const parts = normalizeSegments(word);
      if (!parts || parts.length === 0) continue;
      const path = parts.join('/');
      if (!out.some((seen) => seen.path === path)) out.push({ script: script.slice(0, 100), path });
    }
  }
  return out;
}

/**
 * Why a change to this file asks every time (the pattern it matches), or undefined. `paths` name
 * one file: relative to its workspace folder and to its real folder, and its absolute real path.
 */
export function alwaysAskPattern(paths: readonly string[]): string | undefined {
  return excludedByAny(paths, ALWAYS_ASK_PATTERNS);
}

/** The always-ask rule a file matches, with its kind (`VS Code configuration`), or undefined. */
export function alwaysAskRule(paths: readonly string[]): { pattern: string; kind: string } | undefined {
  const pattern = alwaysAskPattern(paths);
  const group = pattern ? ALWAYS_ASK.find((one) => one.patterns.includes(pattern)) : undefined;
  return pattern && group ? { pattern, kind: group.kind } : undefined;
}

/**
 * The card's reason for asking every time about an edit: what the file is (the rule it matches
 * or the script that runs it) and, when the model named it through a link, that the link leads
 * there.
 */
export function alwaysAskWhy(
  shown: string,
  real: string | undefined,
  because: { rule: { pattern: string; kind: string } } | { script: string },
): string {
  const what =
    'rule' in because
      ? `it is ${because.rule.kind} (it matches "${because.rule.pattern}")`
      : `${because.script} runs it`;
  const link = real ? `"${shown}" is a link to ${real}: ` : '';
  return `${link}${what}, so a change to it can make something run later. It asks every time, even after Allow in this chat.`;
}

/**
 * How a tool is named in `gateway.agent.alwaysAllow` and in a chat's allowed set: our own by
 * name, others by source and what runs behind it too, so a same-named tool of another server or
 * extension, or the same server launched differently, is not allowed with it.
 */
export function approvalKey(spec: ToolSpec): string {
  if (spec.source.kind === 'builtin') return spec.name;
  const fingerprint = spec.source.fingerprint ? `#${spec.source.fingerprint.slice(0, 12)}` : '';
  return `${spec.source.kind}:${spec.source.id}${fingerprint}/${spec.name}`;
}

/** The tool whose calls are never allowed wholesale: each command line is its own decision. */
export const RUN_COMMAND = 'run_command';

/**
 * Whether *Always allow this tool* may be offered and kept for a tool: only for our own tools
 * that change files (each edit shown as a diff, files that make things run asking every time),
 * never for running commands, and never for another extension's or an MCP server's tool. Such a
 * tool can run anything (a package installer, a shell), its description and arguments are its
 * own, and the setting is kept for every later workspace: a chat's *Allow in this chat* is the
 * widest it gets.
 */
export function mayAlwaysAllow(spec: ToolSpec): boolean {
  return spec.source.kind === 'builtin' && spec.name !== RUN_COMMAND;
}

/** The source id of every MCP server VS Code runs (see the host's lmTools). */
export const VSCODE_MCP_PREFIX = 'vscode-mcp:';

/** A command line the user allowed always, in the folder it was allowed in. */
export interface AllowedCommand {
  command: string;
  cwd: string;
}

/** Most exact commands kept; the oldest go first. */
export const MAX_ALLOWED_COMMANDS = 200;

/** The remembered commands from storage (outside data): well-formed entries, each once, bounded. */
export function parseAllowedCommands(value: unknown): AllowedCommand[] {
  if (!Array.isArray(value)) return [];
  const out: AllowedCommand[] = [];
  for (const item of value.slice(-MAX_ALLOWED_COMMANDS)) {
    if (typeof item !== 'object' || item === null) continue;
    const { command, cwd } = item as Record<string, unknown>;
    if (typeof command !== 'string' || typeof cwd !== 'string' || !command || command.length > 10_000)
      continue;
    if (!out.some((seen) => seen.command === command && seen.cwd === cwd)) out.push({ command, cwd });
  }
  return out;
}

/** Whether a command confirmation is one the user allowed always: the same command line, byte for byte, in the same folder. */
export function commandAllowed(
  list: readonly AllowedCommand[],
  confirmation: Confirmation | undefined,
): boolean {
  if (confirmation?.kind !== 'command') return false;
  return list.some((entry) => entry.command === confirmation.command && entry.cwd === confirmation.cwd);
}

/** The list with one more command, newest last. */
export function withAllowedCommand(list: readonly AllowedCommand[], entry: AllowedCommand): AllowedCommand[] {
  const rest = list.filter((e) => e.command !== entry.command || e.cwd !== entry.cwd);
  return [...rest, { command: entry.command, cwd: entry.cwd }].slice(-MAX_ALLOWED_COMMANDS);
}
