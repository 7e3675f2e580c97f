/**
 * Hostile workspaces against the agent's path decisions, inside a real extension host. Each
 * attack is a fixture under test/fixtures/hostile/ (copied to a scratch folder with its links, so
 * nothing a test does reaches the repository):
 * - `linked-home/`: a `.code-workspace` whose folders are links to the home folder and to
 *   `~/.aws`, and `/proc/self/root`: judged by their real paths, none is used;
 * - `secret-names/`: files that may hold secrets under the names tools and people give them, and
 *   a folder that is itself `.aws` (its `credentials` has no `.aws` in its relative path);
 * - `two-folders/`: a two-folder workspace, where the model names `app/.vscode/tasks.json`;
 * - `linked-always-ask/`: `docs/setup.md` is a link to `.vscode/tasks.json`;
 * - `key-content/`: key files under names no list knows (`notes.txt` links to one);
 * - `package-scripts/`: files that `package.json` scripts run, at the root and in a package;
 * and *Undo this turn* writing through a folder swapped for a link after the turn; and the
 * checkpoints of such workspaces, which follow the same rules.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ToolInputError } from '../../src/core/agent/types';
import { approvalKey } from '../../src/core/agent/approvalPolicy';
import type { PreparedCall, ToolCallRecord, ToolSpec } from '../../src/core/agent/types';
import { Approvals } from '../../src/host/agent/approvals';
import { BuiltinTools, toolSettings } from '../../src/host/agent/builtinTools';
import { WorkspaceCheckpoints } from '../../src/host/agent/checkpoints/workspaceCheckpoints';
import { undoTurnChanges } from '../../src/host/agent/turnUndo';
import type { Settings } from '../../src/host/config/settings';
import { gatewayApi, waitFor } from './helpers';

/** The fixtures, in the repository (this file compiles to out/test/suite/). */
const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'hostile');

function folder(fsPath: string, index: number, name = path.basename(fsPath)): vscode.WorkspaceFolder {
  return { uri: vscode.Uri.file(fsPath), name, index };
}

/** The folders a `.code-workspace` names, as VS Code keeps them: relative paths joined, links not resolved. */
function workspaceFileFolders(file: string): vscode.WorkspaceFolder[] {
  // JSON with trailing commas, as VS Code reads it (the fixtures have no comments).
  const text = readFileSync(file, 'utf8').replace(/,(\s*[}\]])/g, '$1');
  const parsed = JSON.parse(text) as { folders: Array<{ path: string }> };
  return parsed.folders.map((entry, index) => folder(path.resolve(path.dirname(file), entry.path), index));
}

/** The extension's settings service, once this file's first hook has it (tools read it at each call). */
let settings: Settings | undefined;
before(async () => {
  settings = (await gatewayApi()).settings;
});
/** The secrets list in force, as the agent's undo is given it. */
const secrets = () => toolSettings(settings!).secretPatterns;

function tools(folders: readonly vscode.WorkspaceFolder[]): BuiltinTools {
  return new BuiltinTools({
    folders: () => folders,
    trusted: () => true,
    settings: () => toolSettings(settings!),
    logger: { info: () => undefined, warn: () => undefined },
  });
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

async function run(set: BuiltinTools, name: string, args: unknown): Promise<string> {
  const signal = new AbortController().signal;
  const output = await (await set.prepare(name, args, signal)).run(signal);
  assert.ok(!output.isError, output.text);
  return output.text;
}

describe('Hostile workspaces: every path decision on the real path', function () {
  this.timeout(60_000);
  let scratch = '';
  const home = process.env.HOME;

  let copies = 0;
  /** A fresh copy of one fixture, links kept as they are written. */
  function fixture(name: string): string {
    const copy = path.join(scratch, `${name}-${++copies}`);
    cpSync(path.join(FIXTURES, name), copy, { recursive: true, verbatimSymlinks: true });
    return copy;
  }

  before(() => {
    scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'hostile-')));
  });

  afterEach(() => {
    // `os.homedir()` reads $HOME: the fake home folder is put back after each test.
    if (home === undefined) delete process.env.HOME;
    else process.env.HOME = home;
  });

  after(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('uses no folder that is a link to the home folder, to ~/.aws or to /proc/self/root', async () => {
    const root = fixture('linked-home');
    process.env.HOME = path.join(root, 'fake-home');
    const folders = workspaceFileFolders(path.join(root, 'repo', 'hostile.code-workspace'));
    assert.deepEqual(
      folders.map((f) => f.name),
      ['app', 'home', 'aws', 'root'],
    );
    const set = tools(folders);
    try {
      for (const [raw, why] of [
        ['home/.git-credentials', /the home folder or a folder above it/],
        ['home/.config/gh/hosts.yml', /the home folder or a folder above it/],
        ['aws/credentials', /a settings folder in the home folder/],
        ['root/etc/hostname', /a system folder \(like \/proc or \/etc\)/],
      ] as const) {
        const message = await refusal(set, 'read_file', { path: raw });
        assert.match(message, /is not used by the agent's tools/, raw);
        assert.match(message, why, raw);
      }
      // Nothing of theirs is listed or searched; the project folder still works, as the only one.
      assert.equal(await run(set, 'list_files', {}), 'readme.md');
      assert.equal(await run(set, 'search_text', { query: 'needle' }), 'readme.md:3: needle in the project');
    } finally {
      set.dispose();
    }
  });

  it('checkpoints copy nothing the tools leave out: folders linked to the home folder, ~/.aws or /proc/self/root, nor a secret by any name', async () => {
    const root = fixture('linked-home');
    const secretNames = fixture('secret-names');
    process.env.HOME = path.join(root, 'fake-home');
    const folders = [
      ...workspaceFileFolders(path.join(root, 'repo', 'hostile.code-workspace')),
      folder(secretNames, 4),
      folder(path.join(secretNames, 'home', '.aws'), 5, 'aws-folder'),
    ];
    const storage = path.join(scratch, `checkpoints-${copies}`);
    const logged: string[] = [];
    const checkpoints = new WorkspaceCheckpoints({
      storage: vscode.Uri.file(storage),
      secretPatterns: secrets,
      logger: { info: (m: string) => void logged.push(m), warn: (m: string) => void logged.push(m) },
      folders: () => folders,
    });
    const outcome = await checkpoints.take('hostile');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    // app/readme.md, and the secret-names project's three files that are no secret.
    assert.equal(outcome.files, 4, logged.join('\n'));
    for (const name of ['home', 'aws', 'root'])
      assert.ok(
        logged.some((m) => m.startsWith(`Checkpoints leave out the workspace folder ${name}:`)),
        name,
      );
    // Every object of every store: no secret of the fake home folder nor of the project.
    const stores = readdirSync(path.join(storage, 'checkpoints'));
    assert.equal(stores.length, 3, 'one store per folder used: app, secret-names and its .aws folder');
    for (const store of stores) {
      const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
        env: { ...process.env, GIT_DIR: path.join(storage, 'checkpoints', store) },
      }).toString('latin1');
      assert.doesNotMatch(objects, /needle-(git-token|aws-secret|secret)|AKIANEEDLE/, store);
    }
  });

  it('refuses secrets by every name: the corpus of names, and a folder that is itself .aws', async () => {
    const root = fixture('secret-names');
    const set = tools([folder(root, 0)]);
    const aws = tools([folder(path.join(root, 'home', '.aws'), 0)]);
    try {
      const listed = (await run(set, 'list_files', {})).split('\n');
      assert.deepEqual(listed, ['docs/secrets.md', 'src/env.ts', 'src/environment.ts']);
      const found = await run(set, 'search_text', { query: 'needle' });
      assert.doesNotMatch(found, /needle-secret/);
      assert.equal(found.split('\n').length, 3, found);
      for (const name of [
        'prod.env',
        'env.production',
        '.dev.vars',
        '.secrets',
        'secrets.json',
        'secrets.yaml',
        'config/database.yml',
        '.git-credentials',
        '.pgpass',
        '.pypirc',
        '.kube/config',
        'kubeconfig',
        'prod.tfvars',
        '.vault-token',
        '.s3cfg',
        '.boto',
        'deploy.ppk',
        '.htpasswd',
        'local.settings.json',
        'serviceAccountKey.json',
        '_netrc',
        '.netrc',
        '.mcp.json',
        '.cursor/mcp.json',
        // Still readable without approval in the last review.
        'token.json',
        'myapp-firebase-adminsdk-ab12c-0123456789.json',
        'key.json',
        'gcp-key.json',
        'appsettings.Production.json',
        'keystore.properties',
        'signing.properties',
        'release.asc',
        'secring.gpg',
        'wp-config.php',
      ])
        assert.match(await refusal(set, 'read_file', { path: name }), /may hold secrets/, name);
      // In a folder that is `.aws`, the relative path is `credentials`: the real path says `.aws`.
      for (const name of ['credentials', 'config'])
        assert.match(await refusal(aws, 'read_file', { path: name }), /may hold secrets/, name);
      assert.equal(await run(aws, 'list_files', {}), 'No files found (files.exclude and .gitignore apply).');
    } finally {
      set.dispose();
      aws.dispose();
    }
  });

  it('still readable without approval: a JSON or YAML file that holds a private key asks first, every time', async () => {
    const root = fixture('key-content');
    const set = tools([folder(root, 0)]);
    const noState: vscode.Memento = {
      keys: () => [],
      get: <T>(_key: string, fallback?: T) => fallback,
      update: () => Promise.resolve(),
    };
    const approvals = new Approvals(() => undefined, { warn: () => undefined }, noState, settings!);
    try {
      const spec = set.specs().find((s) => s.name === 'read_file')!;
      for (const [name, held] of [
        ['deploy/ci-account.json', 'a PEM private key block'],
        ['deploy/values.yaml', 'a PEM private key block'],
        ['notes.txt', 'a PEM private key block'],
      ] as const) {
        const prepared = await set.prepare('read_file', { path: name }, new AbortController().signal);
        assert.equal(prepared.alwaysAsk, held, name);
        assert.equal(prepared.confirmation?.kind, 'tool', name);
        assert.match(prepared.confirmation?.why ?? '', /holds a PEM private key block/, name);
        const call: ToolCallRecord = {
          id: name,
          name: 'read_file',
          arguments: '{}',
          state: 'awaitingApproval',
          confirmation: prepared.confirmation,
        };
        assert.equal(approvals.needsApproval('keys', spec, call, prepared), true, name);
      }
      // A key past the first 64 KB: the start is plain, so the first page reads without asking;
      // the page that holds the key asks.
      const padding = Array.from({ length: 2000 }, (_, i) => `  "pad${i}": "${'x'.repeat(40)}",`).join('\n');
      writeFileSync(
        path.join(root, 'deploy', 'late.json'),
        `{\n${padding}\n  "private_key": "needle-secret"\n}\n`,
      );
      const head = await set.prepare(
        'read_file',
        { path: 'deploy/late.json', end_line: 10 },
        new AbortController().signal,
      );
      assert.equal(head.alwaysAsk, undefined);
      const tail = await set.prepare(
        'read_file',
        { path: 'deploy/late.json', start_line: 2000 },
        new AbortController().signal,
      );
      assert.equal(tail.alwaysAsk, 'a "private_key" field');
      // Plain JSON is read as before, without asking.
      const plain = await set.prepare(
        'read_file',
        { path: 'package-info.json' },
        new AbortController().signal,
      );
      assert.equal(plain.alwaysAsk, undefined);
      // A search cannot ask per file: key files are left out of it, and it says so.
      const found = await run(set, 'search_text', { query: 'needle' });
      assert.doesNotMatch(found, /needle-secret/);
      assert.match(found, /package-info\.json:1:/);
      assert.match(found, /[34] files that hold a private key skipped/);
    } finally {
      set.dispose();
      approvals.dispose();
    }
  });

  it("Always allow this tool on another extension's tool: not kept, and an older entry for it is ignored", async () => {
    const warnings: string[] = [];
    const noState: vscode.Memento = {
      keys: () => [],
      get: <T>(_key: string, fallback?: T) => fallback,
      update: () => Promise.resolve(),
    };
    const approvals = new Approvals(
      () => undefined,
      { warn: (line) => warnings.push(line) },
      noState,
      settings!,
    );
    const installer: ToolSpec = {
      name: 'install_package',
      description: 'Installs a package',
      parameters: { type: 'object' },
      source: { kind: 'extension', id: 'acme.installer', label: 'Acme Installer' },
      readOnly: false,
    };
    const key = approvalKey(installer);
    const config = vscode.workspace.getConfiguration('gateway');
    const before = config.inspect<string[]>('agent.alwaysAllow')?.globalValue;
    const prepared: PreparedCall = { run: () => Promise.resolve({ text: 'installed' }) };
    const call = (id: string): ToolCallRecord => ({
      id,
      name: installer.name,
      arguments: '{"name":"left-pad"}',
      state: 'awaitingApproval',
    });
    try {
      // An entry an earlier version wrote: the tool asks anyway, and the log says so once.
      await config.update('agent.alwaysAllow', [key], vscode.ConfigurationTarget.Global);
      await waitFor(() => settings!.current.agent.alwaysAllow.includes(key), 'the entry to be read');
      assert.equal(approvals.needsApproval('c1', installer, call('a'), prepared), true);
      assert.equal(approvals.needsApproval('c1', installer, call('b'), prepared), true);
      assert.equal(warnings.filter((line) => line.includes(key)).length, 1);
      // A view that still sends "always" gets it once, and nothing is added.
      await config.update('agent.alwaysAllow', undefined, vscode.ConfigurationTarget.Global);
      await waitFor(() => !settings!.current.agent.alwaysAllow.includes(key), 'the entry to be gone');
      const asked = approvals.ask('c2', 'turn', installer, call('c'), prepared, new AbortController().signal);
      assert.ok(approvals.decide('turn', 'c', { choice: 'always' }));
      assert.equal((await asked).choice, 'once');
      assert.equal(approvals.needsApproval('c3', installer, call('d'), prepared), true);
      assert.ok(!(config.inspect<string[]>('agent.alwaysAllow')?.globalValue ?? []).includes(key));
    } finally {
      await config.update('agent.alwaysAllow', before, vscode.ConfigurationTarget.Global);
      approvals.dispose();
    }
  });

  describe('edits that always ask', () => {
    /** Nothing is remembered here: these edits ask every time whatever was allowed before. */
    const noState: vscode.Memento = {
      keys: () => [],
      get: <T>(_key: string, fallback?: T) => fallback,
      update: () => Promise.resolve(),
    };
    const approvals = new Approvals(() => undefined, { warn: () => undefined }, noState, settings!);
    after(() => approvals.dispose());

    /** The card of a prepared call, as the loop makes it. */
    function card(id: string, name: string, prepared: PreparedCall): ToolCallRecord {
      return { id, name, arguments: '{}', state: 'awaitingApproval', confirmation: prepared.confirmation };
    }

    /** Allows `edit_file` for the rest of a chat, through the user's click on a call's card. */
    async function allowInChat(chatId: string, set: BuiltinTools, prepared: PreparedCall): Promise<void> {
      const spec = set.specs().find((s) => s.name === 'edit_file')!;
      const call = card(`allow-${chatId}`, 'edit_file', prepared);
      // Without its preview: no diff editor opens for this click.
      const asked = approvals.ask(
        chatId,
        'turn',
        spec,
        call,
        { ...prepared, preview: undefined },
        new AbortController().signal,
      );
      assert.ok(approvals.decide('turn', call.id, { choice: 'chat' }));
      assert.equal((await asked).choice, 'chat');
      assert.equal(approvals.needsApproval(chatId, spec, call, prepared), false, 'allowed in the chat');
    }

    function edit(set: BuiltinTools, file: string): Promise<PreparedCall> {
      return set.prepare(
        'edit_file',
        { path: file, edits: [{ search: '"tasks": []', replace: '"tasks": [{ "label": "x" }]' }] },
        new AbortController().signal,
      );
    }

    it('asks for app/.vscode/tasks.json in a two-folder workspace, after Allow in this chat', async () => {
      const root = fixture('two-folders');
      const set = tools(workspaceFileFolders(path.join(root, 'two.code-workspace')));
      try {
        const plain = await set.prepare(
          'edit_file',
          { path: 'lib/notes.txt', edits: [{ search: 'plain', replace: 'changed' }] },
          new AbortController().signal,
        );
        await allowInChat('two-folders', set, plain);
        const tasks = await edit(set, 'app/.vscode/tasks.json');
        const spec = set.specs().find((s) => s.name === 'edit_file')!;
        assert.equal(tasks.alwaysAsk, '**/.vscode/**');
        assert.equal(
          approvals.needsApproval('two-folders', spec, card('t', 'edit_file', tasks), tasks),
          true,
        );
      } finally {
        set.dispose();
      }
    });

    it('the always-ask list misses scripts that package.json points to: they ask, after Allow in this chat', async () => {
      const root = fixture('package-scripts');
      const set = tools([folder(root, 0)]);
      const plainEdit = (file: string) =>
        set.prepare(
          'edit_file',
          { path: file, edits: [{ search: 'plain', replace: 'changed' }] },
          new AbortController().signal,
        );
      try {
        const plain = await plainEdit('src/index.js');
        assert.equal(plain.alwaysAsk, undefined);
        await allowInChat('scripts', set, plain);
        const spec = set.specs().find((s) => s.name === 'edit_file')!;
        for (const [file, why] of [
          ['scripts/postinstall.js', 'scripts.postinstall of package.json'],
          ['packages/web/tools/gen.sh', 'scripts.build of packages/web/package.json'],
        ] as const) {
          const prepared = await plainEdit(file);
          assert.equal(prepared.alwaysAsk, why, file);
          assert.equal(
            approvals.needsApproval('scripts', spec, card(file, 'edit_file', prepared), prepared),
            true,
          );
        }
      } finally {
        set.dispose();
      }
    });

    it('asks for docs/setup.md when it is a link to .vscode/tasks.json, and checks again when it runs', async () => {
      const root = fixture('linked-always-ask');
      const set = tools([folder(root, 0)]);
      try {
        const plain = await set.prepare(
          'edit_file',
          { path: 'notes.txt', edits: [{ search: 'plain', replace: 'changed' }] },
          new AbortController().signal,
        );
        await allowInChat('linked', set, plain);
        const linked = await edit(set, 'docs/setup.md');
        const spec = set.specs().find((s) => s.name === 'edit_file')!;
        assert.equal(linked.alwaysAsk, '**/.vscode/**');
        // An edit through a link alias: the card names the real file and why it asks.
        const confirmation = linked.confirmation;
        assert.equal(confirmation?.kind, 'edit');
        assert.equal(confirmation?.kind === 'edit' ? confirmation.path : '', 'docs/setup.md');
        assert.equal(
          confirmation?.kind === 'edit' ? confirmation.realPath : '',
          path.join(root, '.vscode', 'tasks.json'),
        );
        assert.match(
          confirmation?.why ?? '',
          /"docs\/setup\.md" is a link to .*tasks\.json: it is VS Code configuration/,
        );
        assert.equal(approvals.needsApproval('linked', spec, card('l', 'edit_file', linked), linked), true);
        // Approved as the link was; then the link is pointed elsewhere: nothing is written.
        rmSync(path.join(root, 'docs', 'setup.md'));
        writeFileSync(path.join(root, 'other.json'), '{\n  "version": "2.0.0",\n  "tasks": []\n}\n');
        symlinkSync('../other.json', path.join(root, 'docs', 'setup.md'));
        const output = await linked.run(new AbortController().signal);
        assert.equal(output.isError, true, output.text);
        assert.match(output.text, /somewhere else/);
        assert.doesNotMatch(readFileSync(path.join(root, 'other.json'), 'utf8'), /"x"/);
      } finally {
        set.dispose();
      }
    });
  });

  describe('Undo this turn', () => {
    it('writes nothing through a folder swapped for a link after the turn, nor into a secret', async () => {
      const root = fixture('linked-always-ask');
      const outside = realpathSync(mkdtempSync(path.join(tmpdir(), 'hostile-outside-')));
      const folders = [folder(root, 0)];
      const folderUri = folders[0].uri.toString();
      try {
        // The turn changed swap/u.txt; then `swap` became a link to a folder outside.
        writeFileSync(path.join(outside, 'u.txt'), 'after the turn\n');
        symlinkSync(outside, path.join(root, 'swap'));
        const swapped = await undoTurnChanges(
          [
            {
              path: 'swap/u.txt',
              folder: 0,
              folderUri,
              before: 'before the turn\n',
              after: 'after the turn\n',
            },
          ],
          secrets,
          () => folders,
        );
        assert.equal(swapped.undone, false);
        assert.match(swapped.undone ? '' : swapped.reason, /symbolic link/);
        assert.equal(readFileSync(path.join(outside, 'u.txt'), 'utf8'), 'after the turn\n');

        writeFileSync(path.join(root, '.git-credentials'), 'after the turn\n');
        const secret = await undoTurnChanges(
          [{ path: '.git-credentials', folder: 0, folderUri, before: null, after: 'after the turn\n' }],
          secrets,
          () => folders,
        );
        assert.equal(secret.undone, false);
        assert.match(secret.undone ? '' : secret.reason, /may hold secrets/);
        assert.ok(existsSync(path.join(root, '.git-credentials')), 'not deleted');
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });
});
