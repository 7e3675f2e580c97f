/**
 * The agent's file tools as the browser build runs them: the `.web.ts` variants use only `vscode`
 * and web globals, so they run in this (Node) extension host too, where `workspace.fs` works. Each
 * is checked against its desktop module on the same folder: reads, listings (through VS Code's
 * search and through the walk used where no search provider answers), search with its limits and
 * ignored folders, the bounded read refusing a large file, and the command tool's message.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ToolInputError } from '../../src/core/agent/types';
import { DEFAULT_EXCLUDE } from '../../src/core/inline/exclude';
import { BuiltinTools } from '../../src/host/agent/builtinTools';
import * as desktopRunner from '../../src/host/agent/commandRunner';
import * as webRunner from '../../src/host/agent/commandRunner.web';
import * as webRules from '../../src/host/agent/paths/folderRules.web';
import * as webProcesses from '../../src/host/agent/processTree.web';
import * as desktopRegex from '../../src/host/agent/regexSearch';
import * as webRegex from '../../src/host/agent/regexSearch.web';
import type { RegexFile } from '../../src/host/agent/regexTypes';
import { WorkspaceAccess } from '../../src/host/agent/workspaceAccess';
import type { WorkspaceFs } from '../../src/host/agent/workspaceAccess';
import * as desktopRead from '../../src/host/boundedRead';
import * as webRead from '../../src/host/boundedRead.web';
import * as webDisk from '../../src/host/diskPaths.web';
import { findByWalking, walkFiles } from '../../src/host/fileWalk';
import * as webPrograms from '../../src/host/programPath.web';
import * as desktopStart from '../../src/host/storage/readStart';
import * as webStart from '../../src/host/storage/readStart.web';

const DIR = 'web-agent';
const CAP = 1024 * 1024;

function folder(): vscode.WorkspaceFolder {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (!first) throw new Error('The integration workspace has no folder.');
  return first;
}

function file(relative: string): string {
  return path.join(folder().uri.fsPath, DIR, ...relative.split('/'));
}

function uri(relative: string): vscode.Uri {
  return vscode.Uri.joinPath(folder().uri, DIR, ...relative.split('/'));
}

function write(relative: string, text: string | Uint8Array): void {
  mkdirSync(path.dirname(file(relative)), { recursive: true });
  writeFileSync(file(relative), text);
}

/** The browser's way (URI paths, no links, VS Code's search then a walk), and the walk alone. */
const WEB: WorkspaceFs = { ...webDisk, judgeFolder: webRules.judgeFolder };
const WALK: WorkspaceFs = { ...WEB, findFiles: findByWalking };
const folders = () => vscode.workspace.workspaceFolders ?? [];
const secrets = () => DEFAULT_EXCLUDE;
const ACCESS = {
  desktop: new WorkspaceAccess(folders, secrets),
  web: new WorkspaceAccess(folders, secrets, WEB),
  walk: new WorkspaceAccess(folders, secrets, WALK),
};

function tools(files?: WorkspaceFs): BuiltinTools {
  return new BuiltinTools({
    folders,
    trusted: () => true,
    settings: () => ({
      commandTimeoutSeconds: 5,
      secretPatterns: DEFAULT_EXCLUDE,
      media: { model: '', parameters: {}, saveFolder: '' },
      workspaceTerminal: [],
    }),
    logger: { info: () => undefined, warn: () => undefined },
    ...(files ? { files } : {}),
  });
}

async function call(set: BuiltinTools, name: string, args: unknown): Promise<string> {
  const signal = new AbortController().signal;
  const prepared = await set.prepare(name, args, signal);
  return (await prepared.run(signal)).text;
}

async function listed(access: WorkspaceAccess, glob?: string, limit = 500) {
  const base = await access.locate(DIR);
  const { files, more } = await access.listFiles({ base, ...(glob ? { glob } : {}), limit });
  return { names: files.map((one) => one.display), more };
}

describe('Agent in the browser build (.web variants)', function () {
  this.timeout(60_000);
  const sets = { desktop: tools(), web: tools(WEB), walk: tools(WALK) };
  const EXPECTED = [
    `${DIR}/.gitignore`,
    ...Array.from({ length: 12 }, (_, i) => `${DIR}/many/f${String(i).padStart(2, '0')}.txt`),
    `${DIR}/notes.md`,
    `${DIR}/src/a.ts`,
    `${DIR}/src/deep/b.ts`,
  ].sort();

  before(async () => {
    rmSync(path.join(folder().uri.fsPath, DIR), { recursive: true, force: true });
    write(
      'src/a.ts',
      Array.from({ length: 10 }, (_, i) => `line ${i + 1} needle${i === 4 ? ' five' : ''}`).join('\n') + '\n',
    );
    write('src/deep/b.ts', 'export const needle = 2;\n');
    write('notes.md', '# Notes\nbeta\n');
    write('.gitignore', 'ignored/\n*.log\nnode_modules/\n');
    write('ignored/x.ts', 'needle in an ignored folder\n');
    write('node_modules/pkg/index.js', 'needle in a package\n');
    write('build.log', 'needle in a log\n');
    write('hidden/h.ts', 'needle in a hidden folder\n');
    write('.env', 'needle=SECRET_VALUE\n');
    for (let i = 0; i < 12; i++) write(`many/f${String(i).padStart(2, '0')}.txt`, `file ${i}\n`);
    await vscode.workspace
      .getConfiguration('files')
      .update('exclude', { '**/hidden': true }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace
      .getConfiguration('files')
      .update('exclude', undefined, vscode.ConfigurationTarget.Global);
    for (const set of Object.values(sets)) set.dispose();
    rmSync(path.join(folder().uri.fsPath, DIR), { recursive: true, force: true });
  });

  it('lists the same files as the desktop, through the search and through a walk', async () => {
    for (const [name, access] of Object.entries(ACCESS)) {
      const all = await listed(access);
      assert.deepEqual(all.names, EXPECTED, name);
      assert.equal(all.more, false, name);
      assert.deepEqual(
        (await listed(access, '**/*.ts')).names,
        [`${DIR}/src/a.ts`, `${DIR}/src/deep/b.ts`],
        name,
      );
      const cut = await listed(access, undefined, 5);
      assert.deepEqual(cut.names, EXPECTED.slice(0, 5), name);
      assert.equal(cut.more, true, name);
    }
  });

  it('refuses the same paths: outside the workspace, a secret, inside .git', async () => {
    for (const [name, access] of Object.entries(ACCESS))
      for (const raw of ['../outside.txt', `${DIR}/.env`, '.git/config', '/etc/passwd'])
        await assert.rejects(access.locate(raw), ToolInputError, `${name}: ${raw}`);
    const desktop = await ACCESS.desktop.locate(`${DIR}/src/a.ts`);
    const web = await ACCESS.web.locate(`${DIR}/src/a.ts`);
    assert.equal(web.uri.toString(), desktop.uri.toString());
    assert.equal(web.display, desktop.display);
    assert.equal(web.realRelative, desktop.realRelative);
  });

  it('never reads, lists or writes through a link, which the browser cannot resolve', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'web-agent-outside-'));
    writeFileSync(path.join(outside, 'credentials'), 'aws_secret_access_key=SECRET_VALUE\n');
    symlinkSync(path.join(outside, 'credentials'), file('src/creds.txt'));
    symlinkSync(outside, file('src/out'), 'dir');
    symlinkSync(file('.env'), file('src/env.txt'));
    try {
      for (const [name, access] of Object.entries(ACCESS)) {
        for (const raw of ['src/creds.txt', 'src/out/credentials', 'src/out/new.txt', 'src/env.txt'])
          await assert.rejects(access.locate(`${DIR}/${raw}`), ToolInputError, `${name}: ${raw}`);
        assert.deepEqual((await listed(access)).names, EXPECTED, name);
      }
      for (const [name, set] of Object.entries(sets)) {
        const found = await call(set, 'search_text', { query: 'SECRET_VALUE' });
        assert.doesNotMatch(found, /SECRET_VALUE/, name);
      }
      // A path that does not exist yet is no link: it can be created.
      assert.equal((await ACCESS.web.locate(`${DIR}/src/new.txt`)).relative, `${DIR}/src/new.txt`);
    } finally {
      for (const link of ['src/creds.txt', 'src/out', 'src/env.txt']) rmSync(file(link), { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reads, lists and searches through the tools alike, ignored folders left out', async () => {
    const read = { path: `${DIR}/src/a.ts`, start_line: 2, end_line: 3 };
    const list = { path: DIR };
    const literal = { query: 'needle', glob: `${DIR}/**` };
    const regex = { query: 'line \\d+ needle five$', is_regex: true, glob: `${DIR}/**` };
    const expected = {
      read: await call(sets.desktop, 'read_file', read),
      list: await call(sets.desktop, 'list_files', list),
      literal: await call(sets.desktop, 'search_text', literal),
      regex: await call(sets.desktop, 'search_text', regex),
    };
    assert.equal(expected.literal.split('\n').length, 11, expected.literal);
    assert.ok(
      !/ignored|node_modules|build\.log|hidden|\.env|SECRET/.test(expected.literal),
      expected.literal,
    );
    assert.equal(expected.regex, `${DIR}/src/a.ts:5: line 5 needle five`);
    for (const name of ['web', 'walk'] as const) {
      const set = sets[name];
      assert.equal(await call(set, 'read_file', read), expected.read, name);
      assert.equal(await call(set, 'list_files', list), expected.list, name);
      assert.equal(await call(set, 'search_text', literal), expected.literal, name);
      assert.equal(await call(set, 'search_text', regex), expected.regex, name);
    }
  });

  it('edits a file through the browser’s access with a diff to approve', async () => {
    const signal = new AbortController().signal;
    const prepared = await sets.walk.prepare(
      'edit_file',
      { path: `${DIR}/notes.md`, edits: [{ search: 'beta', replace: 'Beta' }] },
      signal,
    );
    assert.equal(prepared.confirmation?.kind, 'edit');
    assert.match(prepared.confirmation?.kind === 'edit' ? prepared.confirmation.diff : '', /-beta\n\+Beta/);
    const result = await prepared.run(signal);
    assert.equal(result.isError, undefined, result.text);
    assert.equal(
      new TextDecoder().decode(await vscode.workspace.fs.readFile(uri('notes.md'))),
      '# Notes\nBeta\n',
    );
  });

  it('walks within its bounds: files, entries looked at, time, excluded folders never entered', async () => {
    const where = { folder: folder().uri, base: uri(''), glob: '**/*' };
    const all = await walkFiles({ ...where, exclude: ['**/node_modules', '**/ignored'], limit: 1000 });
    const names = all.map((one) => path.relative(file(''), one.fsPath).split(path.sep).join('/'));
    assert.ok(names.includes('src/deep/b.ts') && names.includes('.env'), names.join(', '));
    assert.ok(!names.some((name) => /^(node_modules|ignored)\//.test(name)), names.join(', '));
    assert.equal((await walkFiles({ ...where, exclude: [], limit: 3 })).length, 3);
    assert.ok((await walkFiles({ ...where, exclude: [], limit: 1000, scanLimit: 4 })).length <= 4);
    assert.deepEqual(await walkFiles({ ...where, exclude: [], limit: 1000, budgetMs: 0 }), []);
    // The glob is relative to the base, as VS Code's RelativePattern takes it.
    const deep = await walkFiles({ ...where, base: uri('src'), glob: 'deep/*.ts', exclude: [], limit: 10 });
    assert.deepEqual(
      deep.map((one) => one.toString()),
      [uri('src/deep/b.ts').toString()],
    );
  });

  it('ends a walk at its budget when the file system never answers', async () => {
    // A provider whose folders never come back, as a stalled remote repository's.
    const stalled = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
    const provider: vscode.FileSystemProvider = {
      onDidChangeFile: stalled.event,
      watch: () => new vscode.Disposable(() => undefined),
      stat: () => ({ type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 }),
      readDirectory: () => new Promise<[string, vscode.FileType][]>(() => undefined),
      createDirectory: () => undefined,
      readFile: () => new Uint8Array(),
      writeFile: () => undefined,
      delete: () => undefined,
      rename: () => undefined,
    };
    const registered = vscode.workspace.registerFileSystemProvider('gateway-stalled', provider);
    try {
      const root = vscode.Uri.parse('gateway-stalled:/repo');
      const started = Date.now();
      const found = await walkFiles({
        folder: root,
        base: root,
        glob: '**/*',
        exclude: [],
        limit: 10,
        budgetMs: 300,
      });
      assert.deepEqual(found, []);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    } finally {
      registered.dispose();
      stalled.dispose();
    }
  });

  it('matches regular expressions as the desktop’s worker does, up to the same limits', async () => {
    const files: RegexFile[] = [];
    for (const name of ['src/a.ts', 'src/deep/b.ts', 'notes.md'])
      files.push({
        path: name,
        text: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri(name))),
      });
    files.push({ path: 'long.txt', text: `${'x'.repeat(5000)} needle\nneedle\n` });
    for (const [pattern, flags, max] of [
      ['needle', 'u', 200],
      ['NEEDLE', 'iu', 3],
      ['^line \\d+ needle( five)?$', 'u', 200],
      ['(?:beta|Beta)$', 'gu', 200],
    ] as const) {
      const signal = new AbortController().signal;
      const desktop = await desktopRegex.regexSearch(pattern, flags, files, max, signal);
      const web = await webRegex.regexSearch(pattern, flags, files, max, signal);
      assert.deepEqual(web, desktop, pattern);
    }
  });

  it('never blocks the host on a regex: refuses a backtracking shape, yields, and stops at its budget', async () => {
    const signal = new AbortController().signal;
    const long = [{ path: 'long.txt', text: `${'a'.repeat(40)}!\n` }];
    assert.deepEqual(await webRegex.regexSearch('^(a+)+$', 'u', long, 10, signal), { kind: 'timeout' });
    const stopped = new AbortController();
    stopped.abort();
    assert.deepEqual(await webRegex.regexSearch('a', 'u', long, 10, stopped.signal), { kind: 'stopped' });
    // A million lines take longer than one slice: a timer set before runs before the search ends,
    // and a budget of nothing ends it at the first yield.
    const big = [{ path: 'big.txt', text: 'no match here\n'.repeat(1_000_000) }];
    let fired = false;
    setTimeout(() => (fired = true), 0);
    assert.deepEqual(await webRegex.regexSearch('zzz', 'u', big, 10, signal, 0), { kind: 'timeout' });
    assert.equal(fired, true);
  });

  it('reads a file bounded as the desktop does, and refuses a large one, a folder and a missing one', async () => {
    write('big.bin', new Uint8Array(CAP + 10));
    try {
      const small = await desktopRead.readBounded(file('src/a.ts'), CAP);
      const webSmall = await webRead.readBounded(uri('src/a.ts').toString(), CAP);
      assert.ok(small.ok && webSmall.ok);
      assert.deepEqual(Buffer.from(webSmall.bytes), Buffer.from(small.bytes));
      assert.equal(webSmall.realPath, uri('src/a.ts').toString());
      for (const name of ['big.bin', 'src', 'absent.txt']) {
        const desktop = await desktopRead.readBounded(file(name), CAP);
        const web = await webRead.readBounded(uri(name).toString(), CAP);
        assert.deepEqual(web, desktop, name);
      }
      const big = await webRead.readBounded(uri('big.bin').toString(), CAP);
      assert.equal(big.ok ? '' : big.reason, 'it is 1 MB, over the 1 MB limit');
    } finally {
      rmSync(file('big.bin'), { force: true });
    }
  });

  it('reads a file’s start as the desktop does', async () => {
    const desktop = await desktopStart.readStart(uri('src/a.ts'), 20);
    const web = await webStart.readStart(uri('src/a.ts'), 20);
    assert.equal(web.size, desktop.size);
    assert.deepEqual(Buffer.from(web.bytes), Buffer.from(desktop.bytes));
  });

  it('runs no command in the browser and says why, as a result rather than an error', async () => {
    assert.equal(typeof desktopRunner.CommandRunner, 'function');
    const runner = new webRunner.CommandRunner();
    const result = await runner.run({
      command: 'echo hi',
      cwd: file(''),
      timeoutMs: 1000,
      signal: new AbortController().signal,
    });
    assert.equal(result.ended, 'failed');
    assert.equal(result.error, webRunner.NO_COMMANDS);
    assert.match(webRunner.NO_COMMANDS, /not available in VS Code for the Web/);
    assert.match(webRunner.NO_COMMANDS, /remote window \(GitHub Codespaces, a tunnel/);
    runner.dispose();
    const program = await webPrograms.resolveProgram('npx', webPrograms.hostProgramSearch([file('')]));
    assert.equal(program.ok, false);
    assert.deepEqual(await webProcesses.descendantLevels(1), []);
    await webProcesses.killTree(1);
    // Where no home folder exists, the folder rules still judge a root and system folders.
    assert.ok((await webRules.judgeFolder('/')).why);
    assert.ok((await webRules.judgeFolder('/etc/app')).why);
    assert.deepEqual(await webRules.judgeFolder('/owner/repo'), { real: '/owner/repo' });
  });
});
