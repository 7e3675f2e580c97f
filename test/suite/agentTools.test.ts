/**
 * The agent's own tools inside a real extension host: reads with ranges, listings that honour
 * .gitignore and files.exclude, search, the Problems list, created and edited files (through
 * WorkspaceEdit, so the editor's undo works; unsaved changes never overwritten), paths that try
 * to leave the workspace or reach secrets, and commands: output, exit code, timeout, and Stop
 * killing the process within a second.
 */
import * as assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ToolInputError } from '../../src/core/agent/types';
import type { ToolOutput } from '../../src/core/agent/types';
import { BuiltinTools, toolSettings } from '../../src/host/agent/builtinTools';
import type { BuiltinToolsDeps } from '../../src/host/agent/builtinTools';
import { CommandRunner } from '../../src/host/agent/commandRunner';
import type { Settings } from '../../src/host/config/settings';
import { gatewayApi, processRuns, waitFor } from './helpers';

const DIR = 'agent-tools';
/** The checkout (the compiled suite runs from out/test/suite). */
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('The integration workspace has no folder.');
  return folder.uri.fsPath;
}

function file(relative: string): string {
  return path.join(root(), DIR, ...relative.split('/'));
}

function write(relative: string, text: string): void {
  mkdirSync(path.dirname(file(relative)), { recursive: true });
  writeFileSync(file(relative), text);
}

const logged: string[] = [];
let trusted = true;
/** The extension's settings service, once the first suite's hook has it (tools read it at each call). */
let settings: Settings | undefined;
before(async () => {
  settings = (await gatewayApi()).settings;
});

function tools(extra: Partial<BuiltinToolsDeps> = {}): BuiltinTools {
  return new BuiltinTools({
    folders: () => vscode.workspace.workspaceFolders ?? [],
    trusted: () => trusted,
    settings: () => toolSettings(settings!),
    logger: { info: (line) => logged.push(line), warn: (line) => logged.push(line) },
    ...extra,
  });
}

async function call(
  set: BuiltinTools,
  name: string,
  args: unknown,
  signal = new AbortController().signal,
): Promise<ToolOutput> {
  const prepared = await set.prepare(name, args, signal);
  return prepared.run(signal);
}

async function refusal(set: BuiltinTools, name: string, args: unknown): Promise<string> {
  try {
    await set.prepare(name, args, new AbortController().signal);
  } catch (error) {
    assert.ok(error instanceof ToolInputError, `not a ToolInputError: ${String(error)}`);
    return error.message;
  }
  assert.fail(`${name} ${JSON.stringify(args)} was not refused`);
}

/** Whether a process runs: a zombie (dead, not yet reaped by a parent that was killed too) does not. */
const alive = processRuns;

describe('Agent tools', function () {
  this.timeout(60_000);
  const set = tools();
  const outside = mkdtempSync(path.join(tmpdir(), 'agent-outside-'));

  before(async () => {
    rmSync(path.join(root(), DIR), { recursive: true, force: true });
    write(
      'src/a.ts',
      Array.from({ length: 10 }, (_, i) => `line ${i + 1} needle${i === 4 ? ' five' : ''}`).join('\n') + '\n',
    );
    write('.gitignore', 'ignored/\n*.log\n');
    write('ignored/x.ts', 'needle in an ignored folder\n');
    write('build.log', 'needle in a log\n');
    write('hidden/h.ts', 'needle in a hidden folder\n');
    write('.env', 'needle=SECRET_VALUE\n');
    write('long.txt', `${'a'.repeat(40)}!\n`);
    writeFileSync(path.join(outside, 'secret.txt'), 'outside the workspace\n');
    symlinkSync(outside, file('link'));
    await vscode.workspace
      .getConfiguration('files')
      .update('exclude', { '**/hidden': true }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace
      .getConfiguration('files')
      .update('exclude', undefined, vscode.ConfigurationTarget.Global);
    set.dispose();
    rmSync(path.join(root(), DIR), { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('reads a line range without asking, numbered, and says which part it is', async () => {
    const prepared = await set.prepare(
      'read_file',
      { path: `${DIR}/src/a.ts`, start_line: 2, end_line: 3 },
      new AbortController().signal,
    );
    assert.equal(prepared.confirmation, undefined);
    const { text } = await prepared.run(new AbortController().signal);
    assert.match(text, /^agent-tools\/src\/a\.ts\n2: line 2 needle\n3: line 3 needle\n\(lines 2–3 of 10\)$/);
  });

  it('lists files without what .gitignore, files.exclude and the secrets list hide', async () => {
    const { text } = await call(set, 'list_files', { path: DIR });
    const listed = text.split('\n');
    assert.ok(listed.includes(`${DIR}/src/a.ts`), text);
    assert.ok(listed.includes(`${DIR}/.gitignore`), text);
    for (const hidden of ['ignored/x.ts', 'build.log', 'hidden/h.ts', '.env', 'link/secret.txt'])
      assert.ok(!listed.includes(`${DIR}/${hidden}`), `${hidden} listed:\n${text}`);
    const { text: ts } = await call(set, 'list_files', { path: DIR, glob: '**/*.ts' });
    assert.deepEqual(ts.split('\n'), [`${DIR}/src/a.ts`]);
  });

  it('searches text, literal and by regex, in the files a listing shows', async () => {
    const { text } = await call(set, 'search_text', {
      query: 'NEEDLE five'.toLowerCase(),
      glob: `${DIR}/**`,
    });
    assert.equal(text, `${DIR}/src/a.ts:5: line 5 needle five`);
    const { text: all } = await call(set, 'search_text', { query: 'needle', glob: `${DIR}/**` });
    assert.equal(all.split('\n').length, 10, all);
    assert.ok(!/ignored|build\.log|hidden|\.env|SECRET/.test(all), all);
    const { text: regex } = await call(set, 'search_text', {
      query: 'line \\d+ needle five$',
      is_regex: true,
      glob: `${DIR}/**`,
    });
    assert.equal(regex, `${DIR}/src/a.ts:5: line 5 needle five`);
    assert.match(
      await refusal(set, 'search_text', { query: '(', is_regex: true }),
      /not a valid regular expression/,
    );
  });

  it('stops a catastrophically backtracking regex at its budget without blocking the host', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      const result = await call(set, 'search_text', {
        query: '^(a+)+$',
        is_regex: true,
        glob: `${DIR}/long.txt`,
      });
      assert.equal(result.isError, true);
      assert.match(result.text, /took too long/);
    } finally {
      clearInterval(ticker);
    }
    // The host went on while the worker backtracked: its timers kept firing.
    assert.ok(ticks > 10, `the host's timers fired ${ticks} times during the search`);
  });

  it('lists the Problems of workspace files only', async () => {
    const diagnostics = vscode.languages.createDiagnosticCollection('agent-tools-test');
    try {
      const inside = vscode.Uri.file(file('src/a.ts'));
      const problem = new vscode.Diagnostic(
        new vscode.Range(2, 4, 2, 8),
        'bad thing',
        vscode.DiagnosticSeverity.Error,
      );
      problem.source = 'agent-test';
      problem.code = 'E1';
      diagnostics.set([
        [inside, [problem]],
        [
          vscode.Uri.file(path.join(outside, 'secret.txt')),
          [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), 'outside')],
        ],
      ]);
      const { text } = await call(set, 'get_problems', {});
      assert.match(text, /agent-tools\/src\/a\.ts:3:5 error \(agent-test E1\): bad thing/);
      assert.ok(!text.includes('outside'), text);
      const { text: one } = await call(set, 'get_problems', { path: `${DIR}/src/a.ts` });
      assert.equal(one, 'agent-tools/src/a.ts:3:5 error (agent-test E1): bad thing');
    } finally {
      diagnostics.dispose();
    }
  });

  it('creates a file after showing its diff, and refuses one that exists', async () => {
    const prepared = await set.prepare(
      'create_file',
      { path: `${DIR}/new/made.txt`, content: 'hello\nworld\n' },
      new AbortController().signal,
    );
    assert.deepEqual(prepared.confirmation, {
      kind: 'edit',
      path: `${DIR}/new/made.txt`,
      created: true,
      diff: ['--- /dev/null', `+++ b/${DIR}/new/made.txt`, '@@ -0,0 +1,2 @@', '+hello', '+world'].join('\n'),
    });
    assert.deepEqual(prepared.preview, {
      path: `${DIR}/new/made.txt`,
      folder: 0,
      before: '',
      after: 'hello\nworld\n',
    });
    assert.ok(!existsSync(file('new/made.txt')), 'nothing is written before the call runs');
    const result = await prepared.run(new AbortController().signal);
    assert.equal(readFileSync(file('new/made.txt'), 'utf8'), 'hello\nworld\n');
    assert.deepEqual(result.changes, [
      {
        path: `${DIR}/new/made.txt`,
        folder: 0,
        folderUri: vscode.workspace.workspaceFolders![0].uri.toString(),
        before: null,
        after: 'hello\nworld\n',
      },
    ]);
    assert.match(
      await refusal(set, 'create_file', { path: `${DIR}/new/made.txt`, content: 'x' }),
      /exists already/,
    );
  });

  it("edits through a WorkspaceEdit: diff first, file saved, the editor's undo restores it", async () => {
    const before = readFileSync(file('src/a.ts'), 'utf8');
    const prepared = await set.prepare(
      'edit_file',
      { path: `${DIR}/src/a.ts`, edits: [{ search: 'line 5 needle five', replace: 'LINE FIVE' }] },
      new AbortController().signal,
    );
    assert.equal(prepared.confirmation?.kind, 'edit');
    const diff = prepared.confirmation?.kind === 'edit' ? prepared.confirmation.diff : '';
    assert.match(diff, /^-line 5 needle five\n\+LINE FIVE$/m);
    assert.equal(readFileSync(file('src/a.ts'), 'utf8'), before, 'nothing is written before the call runs');
    const result = await prepared.run(new AbortController().signal);
    const after = before.replace('line 5 needle five', 'LINE FIVE');
    assert.equal(readFileSync(file('src/a.ts'), 'utf8'), after);
    assert.deepEqual(result.changes, [
      {
        path: `${DIR}/src/a.ts`,
        folder: 0,
        folderUri: vscode.workspace.workspaceFolders![0].uri.toString(),
        before,
        after,
      },
    ]);

    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file('src/a.ts')));
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    await waitFor(() => document.getText() === before, 'the undo to restore the text');
    await document.save();
    assert.equal(readFileSync(file('src/a.ts'), 'utf8'), before);
  });

  it('tells the model why a search does not fit: not found, or found more than once', async () => {
    assert.match(
      await refusal(set, 'edit_file', {
        path: `${DIR}/src/a.ts`,
        edits: [{ search: 'no such text', replace: 'x' }],
      }),
      /not found.*read_file/s,
    );
    assert.match(
      await refusal(set, 'edit_file', {
        path: `${DIR}/src/a.ts`,
        edits: [{ search: 'needle', replace: 'x' }],
      }),
      /found 10 times .*surrounding lines/,
    );
  });

  it('never overwrites unsaved changes in the editor, before or after approval', async () => {
    const uri = vscode.Uri.file(file('src/a.ts'));
    const prepared = await set.prepare(
      'edit_file',
      { path: `${DIR}/src/a.ts`, edits: [{ search: 'line 1 needle', replace: 'first' }] },
      new AbortController().signal,
    );
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await editor.edit((builder) => builder.insert(new vscode.Position(0, 0), 'typed by the user '));
    assert.ok(editor.document.isDirty);
    const result = await prepared.run(new AbortController().signal);
    assert.equal(result.isError, true);
    assert.match(result.text, /unsaved changes/);
    assert.match(
      await refusal(set, 'edit_file', {
        path: `${DIR}/src/a.ts`,
        edits: [{ search: 'line 2', replace: 'x' }],
      }),
      /unsaved changes/,
    );
    assert.ok(editor.document.getText().startsWith('typed by the user line 1'), 'the user’s text is kept');
    await vscode.commands.executeCommand('workbench.action.files.revert');
    assert.ok(!editor.document.isDirty);
  });

  it('refuses .., absolute paths elsewhere, symlinks that leave, and secrets', async () => {
    assert.match(await refusal(set, 'read_file', { path: '../outside.txt' }), /climbs out of the workspace/);
    assert.match(
      await refusal(set, 'read_file', { path: path.join(outside, 'secret.txt') }),
      /outside the workspace folders/,
    );
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/link/secret.txt` }), /symbolic link/);
    assert.match(
      await refusal(set, 'create_file', { path: `${DIR}/link/planted.txt`, content: 'x' }),
      /symbolic link/,
    );
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/.env` }), /may hold secrets/);
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/no-such-file.ts` }), /does not exist/);
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/src` }), /is a folder/);
    assert.match(
      await refusal(set, 'edit_file', { path: `${DIR}/.env`, edits: [{ search: 'a', replace: 'b' }] }),
      /may hold secrets/,
    );
    assert.ok(!existsSync(path.join(outside, 'planted.txt')));
  });

  it('keeps every tool off .git: its config can run commands and hold tokens', async () => {
    write('repo/.git/config', '[remote "origin"]\n\turl = https://user:needle-token@example.com/r.git\n');
    write('repo/.git/hooks/pre-commit', 'echo needle\n');
    write('repo/.GIT/x.txt', 'needle\n');
    write('repo/ok.txt', 'needle\n');
    const git = /inside a \.git folder/;
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/repo/.git/config` }), git);
    assert.match(await refusal(set, 'read_file', { path: `${DIR}/repo/.GIT/x.txt` }), git);
    assert.match(await refusal(set, 'list_files', { path: `${DIR}/repo/.git` }), git);
    assert.match(await refusal(set, 'get_problems', { path: `${DIR}/repo/.git/config` }), git);
    assert.match(
      await refusal(set, 'edit_file', {
        path: `${DIR}/repo/.git/config`,
        edits: [{ search: 'url', replace: 'url' }],
      }),
      git,
    );
    assert.match(
      await refusal(set, 'create_file', { path: `${DIR}/repo/.git/hooks/post-checkout`, content: 'x' }),
      git,
    );
    assert.match(await refusal(set, 'run_command', { command: 'git status', cwd: `${DIR}/repo/.git` }), git);
    // Even where files.exclude lets VS Code find them, listings and searches leave them out.
    await vscode.workspace
      .getConfiguration('files')
      .update('exclude', { '**/hidden': true, '**/.git': false }, vscode.ConfigurationTarget.Global);
    try {
      const { text: listed } = await call(set, 'list_files', { path: `${DIR}/repo` });
      assert.equal(listed, `${DIR}/repo/ok.txt`);
      const { text: found } = await call(set, 'search_text', { query: 'needle', glob: `${DIR}/repo/**` });
      assert.equal(found, `${DIR}/repo/ok.txt:1: needle`);
    } finally {
      await vscode.workspace
        .getConfiguration('files')
        .update('exclude', { '**/hidden': true }, vscode.ConfigurationTarget.Global);
    }
    assert.ok(!existsSync(file('repo/.git/hooks/post-checkout')));
  });

  it('uses no workspace folder that is the home folder, above it, or a disk root', async () => {
    const broad = [homedir(), path.dirname(homedir()), path.parse(homedir()).root];
    for (const [index, fsPath] of broad.entries()) {
      const folder = { uri: vscode.Uri.file(fsPath), name: `broad${index}`, index };
      const wide = tools({ folders: () => [folder, ...(vscode.workspace.workspaceFolders ?? [])] });
      const home = tools({ folders: () => [folder] });
      try {
        assert.match(
          await refusal(home, 'read_file', { path: '.bashrc' }),
          /is not used by the agent's tools: it is (a disk's root|the home folder or a folder above it)/,
        );
        assert.match(await refusal(home, 'run_command', { command: 'ls' }), /not used by the agent's tools/);
        assert.match(
          await refusal(wide, 'read_file', { path: path.join(homedir(), '.ssh', 'config') }),
          /not used by the agent's tools/,
        );
        // The workspace's own folder still works beside it.
        const { text } = await call(wide, 'read_file', { path: `${DIR}/long.txt` });
        assert.match(text, /^agent-tools\/long\.txt\n/);
      } finally {
        wide.dispose();
        home.dispose();
      }
    }
  });

  it('writes nothing when a folder on the path became a symbolic link after the approval', async () => {
    write('swap/e.txt', 'abc\n');
    writeFileSync(path.join(outside, 'e.txt'), 'abc\n');
    const signal = new AbortController().signal;
    const create = await set.prepare('create_file', { path: `${DIR}/swap/new.txt`, content: 'x' }, signal);
    const edit = await set.prepare(
      'edit_file',
      { path: `${DIR}/swap/e.txt`, edits: [{ search: 'abc', replace: 'planted' }] },
      signal,
    );
    // Approved; then the folder is swapped for a link out of the workspace.
    rmSync(file('swap'), { recursive: true });
    symlinkSync(outside, file('swap'));
    try {
      const created = await create.run(signal);
      assert.equal(created.isError, true, created.text);
      assert.match(created.text, /symbolic link|somewhere else/);
      const edited = await edit.run(signal);
      assert.equal(edited.isError, true, edited.text);
      assert.match(edited.text, /symbolic link|somewhere else/);
      assert.ok(!existsSync(path.join(outside, 'new.txt')), 'nothing created outside');
      assert.equal(readFileSync(path.join(outside, 'e.txt'), 'utf8'), 'abc\n', 'nothing edited outside');
    } finally {
      rmSync(file('swap'), { force: true });
    }
  });

  it('offers no edits or commands in an untrusted workspace, and refuses them', async () => {
    trusted = false;
    try {
      const names = set.specs().map((spec) => spec.name);
      assert.deepEqual(names, ['read_file', 'list_files', 'search_text', 'get_problems']);
      assert.match(await refusal(set, 'run_command', { command: 'echo hi' }), /Restricted Mode/);
      assert.match(
        await refusal(set, 'create_file', { path: `${DIR}/r.txt`, content: '' }),
        /Restricted Mode/,
      );
      const withMedia = tools({
        generateMedia: () => Promise.reject(new Error('never loaded in Restricted Mode')),
      });
      assert.ok(!withMedia.specs().some((spec) => spec.name === 'generate_media'));
      assert.match(await refusal(withMedia, 'generate_media', { prompt: 'a cat' }), /Restricted Mode/);
    } finally {
      trusted = true;
    }
    assert.ok(set.specs().every((spec) => spec.source.id === 'gateway'));
    assert.ok(set.specs().some((spec) => spec.name === 'run_command'));
  });

  it('generates media through the media feature’s tool, after showing exactly what it sends', async () => {
    const seen: unknown[] = [];
    let cancelled = false;
    const media = tools({
      generateMedia: () =>
        Promise.resolve({
          prepareInvocation: (options: { input: unknown }) => {
            seen.push(['prepare', options.input]);
            return { invocationMessage: 'Generating media' };
          },
          invoke: (options: { input: unknown }, token: vscode.CancellationToken) => {
            seen.push(['invoke', options.input]);
            token.onCancellationRequested(() => (cancelled = true));
            return Promise.resolve(
              new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart('Saved assets/cat.png')]),
            );
          },
        }),
    });
    assert.ok(media.specs().some((spec) => spec.name === 'generate_media' && !spec.readOnly));
    assert.ok(
      !set.specs().some((spec) => spec.name === 'generate_media'),
      'not offered without the media feature',
    );
    const input = { prompt: 'a cat', model: 'vendor/image-model', parameters: { size: '512x512' } };
    const prepared = await media.prepare('generate_media', input, new AbortController().signal);
    assert.equal(prepared.confirmation?.kind, 'tool');
    const shown = prepared.confirmation?.kind === 'tool' ? prepared.confirmation.arguments : '';
    assert.match(shown, /vendor\/image-model/);
    assert.match(shown, /a cat/);
    assert.match(shown, /512x512/);
    const result = await prepared.run(new AbortController().signal);
    assert.equal(result.text, 'Saved assets/cat.png');
    assert.deepEqual(seen, [
      ['prepare', input],
      ['invoke', input],
    ]);
    assert.ok(!cancelled);
    assert.match(
      await refusal(media, 'generate_media', { prompt: '' }),
      /"prompt" must be a non-empty string/,
    );
  });

  describe('commands', () => {
    const node = JSON.stringify(process.execPath);
    /** Agent terminals other suites left open (the panel's own tools keep theirs). */
    let others = new Set<vscode.Terminal>();
    before(() => {
      others = new Set(vscode.window.terminals);
    });
    it('refuses a command holding a control, bidi or invisible character, and runs nothing', async () => {
      // test/fixtures/hostile/control-characters: each C0 and C1 control, DEL, bidi and zero-width
      // characters. A shell's line editor applied ^U or ^W, so `echo safe^Utouch …` ran `touch`.
      const corpus = JSON.parse(
        readFileSync(
          path.join(REPO_ROOT, 'test', 'fixtures', 'hostile', 'control-characters', 'commands.json'),
          'utf8',
        ),
      ) as { refused: string[] };
      const pwned = file('pwned-by-control.txt');
      for (const char of corpus.refused) {
        const command = `echo safe${char}touch ${JSON.stringify(pwned)}`;
        assert.match(
          await refusal(set, 'run_command', { command, cwd: DIR }),
          /^"command" holds .*nothing was run/,
          `U+${char.codePointAt(0)!.toString(16)}`,
        );
      }
      assert.ok(!existsSync(pwned), 'nothing ran');
    });

    it('refuses to run a command whose folder was swapped for a link after the approval', async () => {
      for (const [name, target] of [
        ['outside', outside],
        ['inside', file('src')],
      ] as const) {
        const work = file(`work-${name}`);
        rmSync(work, { recursive: true, force: true });
        mkdirSync(work, { recursive: true });
        const marker = `marker-${name}.txt`;
        const prepared = await set.prepare(
          'run_command',
          {
            command: `${node} -e "require('fs').writeFileSync('${marker}', 'x')"`,
            cwd: `${DIR}/work-${name}`,
          },
          new AbortController().signal,
        );
        assert.equal(prepared.confirmation?.kind === 'command' && prepared.confirmation.cwd, work);
        rmSync(work, { recursive: true });
        symlinkSync(target, work);
        const { text, isError } = await prepared.run(new AbortController().signal);
        assert.equal(isError, true, text);
        assert.match(
          text,
          /^The command was not run: its folder "agent-tools\/work-\w+" is not where it was/,
        );
        assert.ok(!existsSync(path.join(target, marker)), `the command ran in ${target}`);
      }
    });

    for (const shellIntegration of [false, true]) {
      const runner = shellIntegration ? 'a terminal with shell integration' : 'a child process';
      const commands = tools({ commands: { preferShellIntegration: shellIntegration } });
      after(() => commands.dispose());

      it(`runs a command in ${runner}, after showing it, with output and exit code`, async function () {
        if (shellIntegration && !(await shellIntegrationHere())) this.skip();
        write(
          'exit3.js',
          "console.log('out of the command'); console.error('and its errors'); process.exit(3);\n",
        );
        const prepared = await commands.prepare(
          'run_command',
          { command: `${node} exit3.js`, cwd: DIR },
          new AbortController().signal,
        );
        assert.deepEqual(prepared.confirmation, {
          kind: 'command',
          command: `${node} exit3.js`,
          cwd: path.join(root(), DIR),
          timeoutSeconds: 120,
        });
        const { text, isError } = await prepared.run(new AbortController().signal);
        assert.match(text, /out of the command/);
        assert.match(text, /and its errors/);
        assert.match(text, /\[exit code 3\]$/);
        assert.equal(isError, undefined);
      });

      it(`stops a command in ${runner} at its timeout`, async function () {
        if (shellIntegration && !(await shellIntegrationHere())) this.skip();
        write('forever.js', "console.log('started'); setInterval(() => {}, 1000);\n");
        const { text, isError } = await call(commands, 'run_command', {
          command: `${node} forever.js`,
          cwd: DIR,
          timeout_seconds: 1,
        });
        assert.equal(isError, true);
        assert.match(text, /stopped after 1 s: out of time/);
      });

      it(`kills a command in ${runner} within a second of Stop`, async function () {
        if (shellIntegration && !(await shellIntegrationHere())) this.skip();
        const pidFile = file(`pid-${String(shellIntegration)}.txt`);
        rmSync(pidFile, { force: true });
        write(
          'sleeper.js',
          `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);\n`,
        );
        const stop = new AbortController();
        const prepared = await commands.prepare(
          'run_command',
          { command: `${node} sleeper.js`, cwd: DIR },
          stop.signal,
        );
        const running = prepared.run(stop.signal);
        const pid = await waitFor(
          () => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')),
          'the command to write its pid',
        );
        assert.ok(alive(pid));
        stop.abort();
        await waitFor(() => !alive(pid), `process ${pid} to be gone after Stop`, 1000);
        const { text, isError } = await running;
        assert.equal(isError, true);
        assert.match(text, /stopped by the user/);
        if (shellIntegration)
          // Each command had a terminal of its own; those of the timed-out and stopped ones are
          // closed with their shells, leaving the finished one.
          await waitFor(
            () =>
              vscode.window.terminals.filter(
                (terminal) => terminal.name === 'Gateway AI: agent' && !others.has(terminal),
              ).length === 1,
            'one agent terminal',
          );
      });

      it(`runs a multi-line command in ${runner} exactly as shown, byte for byte`, async function () {
        if (shellIntegration && !(await shellIntegrationHere())) this.skip();
        // A tab (a line editor's completion), Unicode text, and what a shell would expand if it
        // were read as a command line rather than a here-document.
        const body = '\tindented with a tab: héllo 日本 ⚠️\n  $HOME `not run` \\ back\nlast line';
        const out = file(`exact-${String(shellIntegration)}.txt`);
        rmSync(out, { force: true });
        const command = `cat > ${JSON.stringify(out)} <<'GATEWAY_EOF'\n${body}\nGATEWAY_EOF\necho written`;
        const prepared = await commands.prepare(
          'run_command',
          { command, cwd: DIR },
          new AbortController().signal,
        );
        assert.equal(prepared.confirmation?.kind === 'command' && prepared.confirmation.command, command);
        const { text, isError } = await prepared.run(new AbortController().signal);
        assert.equal(isError, undefined, text);
        assert.match(text, /written/);
        assert.equal(readFileSync(out, 'utf8'), `${body}\n`);
      });

      it(`runs nothing more of a command list in ${runner} after Stop`, async function () {
        if (shellIntegration && !(await shellIntegrationHere())) this.skip();
        const names = ['pids', 'trigger', 'waited', 'after'].map((name) =>
          file(`list-${name}-${String(shellIntegration)}.txt`),
        );
        const [pids, trigger, waited, after] = names;
        for (const name of names) rmSync(name, { force: true });
        write(
          'waiter.js',
          `const fs = require('fs');
fs.writeFileSync(${JSON.stringify(pids)}, process.pid + ' ' + process.ppid);
const poll = setInterval(() => {
  if (!fs.existsSync(${JSON.stringify(trigger)})) return;
  clearInterval(poll);
  fs.writeFileSync(${JSON.stringify(waited)}, 'x');
}, 10);
`,
        );
        write('marker.js', `require('fs').writeFileSync(${JSON.stringify(after)}, 'x');\n`);
        const stop = new AbortController();
        const running = call(
          commands,
          'run_command',
          { command: `${node} waiter.js; ${node} marker.js`, cwd: DIR },
          stop.signal,
        );
        const [pid, shell] = await waitFor(() => {
          const text = existsSync(pids) ? readFileSync(pids, 'utf8') : '';
          return /^\d+ \d+$/.test(text) && text.split(' ').map(Number);
        }, 'the waiter to start');
        stop.abort();
        const { text } = await running;
        assert.match(text, /stopped by the user/);
        await waitFor(() => !alive(pid), `the waiter ${pid} to be gone`, 1000);
        // The shell that ran the list (or the child process's own shell) is gone too.
        await waitFor(() => !alive(shell), `the shell ${shell} to be gone`, 1000);
        writeFileSync(trigger, 'go');
        assert.ok(!existsSync(waited), 'the waiter never went on');
        assert.ok(!existsSync(after), 'the rest of the list never ran');
      });

      it(`gives each command in ${runner} a fresh shell: nothing an earlier one set carries over`, async function () {
        if (!shellIntegration || !(await shellIntegrationHere())) this.skip();
        const first = await call(commands, 'run_command', {
          command: 'export GATEWAY_CARRIED=leaked',
          cwd: DIR,
        });
        assert.match(first.text, /\[exit code 0\]$/);
        const second = await call(commands, 'run_command', {
          command: `${node} -p "'[' + (process.env.GATEWAY_CARRIED ?? '') + ']'"`,
          cwd: DIR,
        });
        assert.match(second.text, /^\[\]$/m, second.text);
        // Only the last few finished terminals stay open (a disposed one leaves the list when VS
        // Code has closed it).
        await waitFor(
          () =>
            vscode.window.terminals.filter(
              (terminal) => terminal.name === 'Gateway AI: agent' && !others.has(terminal),
            ).length <= 3,
          'at most three finished agent terminals',
        );
      });
    }

    it("a workspace that sets the terminal's environment: the command runs as our own process, never the workspace's BASH_ENV", async function () {
      if (process.platform === 'win32') this.skip();
      const terminal = vscode.workspace.getConfiguration('terminal.integrated');
      const os = process.platform === 'darwin' ? 'osx' : 'linux';
      const sourced = file('bash-env-ran.txt');
      write('bash-env.sh', `echo sourced > ${JSON.stringify(sourced)}\n`);
      // A non-interactive bash (the one running the command's script) sources BASH_ENV first.
      await terminal.update(
        `env.${os}`,
        { BASH_ENV: file('bash-env.sh') },
        vscode.ConfigurationTarget.Workspace,
      );
      const preferTerminal = tools({
        commands: { preferShellIntegration: true, shellIntegrationWaitMs: 10_000 },
      });
      try {
        await waitFor(
          () => settings!.workspaceTerminalSettings().includes(`terminal.integrated.env.${os}`),
          'the workspace value to be read',
        );
        const { text } = await call(preferTerminal, 'run_command', {
          command: `${node} -p "'ran ' + (process.env.BASH_ENV ?? 'without BASH_ENV')"`,
          cwd: DIR,
        });
        assert.match(text, /^ran without BASH_ENV$/m, text);
        assert.ok(!existsSync(sourced), "the workspace's BASH_ENV script ran");
        assert.ok(
          logged.some((line) =>
            line.includes(`as its own process: the workspace sets terminal.integrated.env.${os}`),
          ),
          logged.join('\n'),
        );
      } finally {
        preferTerminal.dispose();
        await terminal.update(`env.${os}`, undefined, vscode.ConfigurationTarget.Workspace);
      }
    });
  });
});

describe('Agent tools: output that imitates the terminal', function () {
  this.timeout(60_000);

  it("a command whose output holds the terminal's end marker is still waited for, and that output's exit code is not taken", async function () {
    if (!(await shellIntegrationHere())) this.skip();
    const logged: string[] = [];
    const runner = new CommandRunner({
      preferShellIntegration: true,
      shellIntegrationWaitMs: 10_000,
      log: (line) => logged.push(line),
    });
    try {
      const started = Date.now();
      // What `cat` of a hostile file would print: shell integration's "command ended, exit 0".
      const result = await runner.run({
        command: "printf '\\033]633;D;0\\007'; sleep 1; exit 3",
        cwd: root(),
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      });
      const took = Date.now() - started;
      assert.equal(result.via, 'shellIntegration');
      assert.equal(result.ended, 'exited', logged.join('\n'));
      assert.ok(took >= 1000, `it waited for the command: ${took} ms; ${logged.join(' / ')}`);
      // Its own (3) when VS Code did not take the marker; unknown when it did, never the 0 claimed.
      assert.notEqual(result.exitCode, 0, 'the exit code the output claimed is not taken');
    } finally {
      runner.dispose();
    }
  });
});

let integration: Promise<boolean> | undefined;

/** Whether this VS Code's terminal reports shell integration for the default shell here. */
function shellIntegrationHere(): Promise<boolean> {
  integration ??= (async () => {
    const runner = new CommandRunner({ preferShellIntegration: true, shellIntegrationWaitMs: 10_000 });
    try {
      const result = await runner.run({
        command: 'echo probe',
        cwd: root(),
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      });
      return result.via === 'shellIntegration';
    } finally {
      runner.dispose();
    }
  })();
  return integration;
}
