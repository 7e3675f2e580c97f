/**
 * The checkpoint store against real git and real folders (it imports no `vscode`): snapshots
 * round-trip byte for byte, leave out what they must, respect the time budget, and never touch
 * the user's repository, even one whose config and attributes try to run something.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { restorePlan } from '../../../src/core/agent/checkpoints';
import { DEFAULT_EXCLUDE } from '../../../src/core/inline/exclude';
import {
  applyPlan,
  CheckpointError,
  GitCheckpointStore,
  safeTarget,
} from '../../../src/host/agent/checkpoints/gitStore';

const far = () => Date.now() + 60_000;

function git(cwd: string, ...args: string[]): string {
  // The test's own git keeps the hostile repository's commands from running.
  const safe = [
    'core.fsmonitor=false',
    'filter.evil.clean=cat',
    'filter.evil.smudge=cat',
    'core.hooksPath=/dev/null',
  ];
  return execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t', ...safe.flatMap((c) => ['-c', c]), ...args],
    {
      cwd,
      // No optional locks: `git status` here must not refresh the index it is checking.
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_OPTIONAL_LOCKS: '0',
      },
    },
  ).toString();
}

/** Every file under a folder with its bytes' hash (what "byte-identical" means for `.git`). */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d)) {
      const file = path.join(d, name);
      const stat = fs.lstatSync(file);
      if (stat.isDirectory()) walk(file);
      else out[path.relative(dir, file)] = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** The folder's files (not `.git`) and their bytes. */
function files(dir: string): Record<string, string> {
  const all = fingerprint(dir);
  return Object.fromEntries(Object.entries(all).filter(([p]) => !p.startsWith(`.git${path.sep}`)));
}

/** What *Restore to here* does to one folder: a snapshot of now, then the plan applied. */
async function restore(
  store: GitCheckpointStore,
  work: string,
  id: string,
  nowId: string,
): Promise<string[]> {
  await store.snapshot(nowId, far());
  const target = await store.files(id);
  const plan = restorePlan(target, await store.files(nowId), await store.leftOut(id));
  return applyPlan({ folder: work, folderName: 'work', plan, target, blob: (oid) => store.blob(oid) });
}

describe('Checkpoint store (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let work: string;
  let store: GitCheckpointStore;
  const pwned = () => path.join(root, 'PWNED');

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cp-'));
    work = path.join(root, 'work');
    fs.mkdirSync(work);
    store = new GitCheckpointStore({
      dir: path.join(root, 'store'),
      workTree: work,
      secretPatterns: () => DEFAULT_EXCLUDE,
      maxFileBytes: 1000,
    });
  });

  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('snapshots and restores a git repository without touching its .git, whatever its config says', async () => {
    git(work, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(work, 'notes.txt'), 'one\r\ntwo\n');
    fs.writeFileSync(path.join(work, '.gitignore'), 'build/\n');
    git(work, 'add', '.');
    git(work, 'commit', '-qm', 'first');
    fs.writeFileSync(path.join(work, 'notes.txt'), 'stashed\n');
    git(work, 'stash', '-q');
    fs.writeFileSync(path.join(work, 'staged.txt'), 'staged\n');
    git(work, 'add', 'staged.txt');
    // A hostile repository: its config, hooks and attributes would run commands.
    fs.appendFileSync(
      path.join(work, '.git', 'config'),
      `[core]\n\tfsmonitor = "touch ${pwned()}"\n\thooksPath = hooks\n[filter "evil"]\n\tclean = touch ${pwned()}\n\tsmudge = touch ${pwned()}\n`,
    );
    fs.writeFileSync(path.join(work, '.gitattributes'), '* text eol=crlf filter=evil\n');
    fs.writeFileSync(path.join(work, '.git', 'info', 'exclude'), 'local-only.txt\n');
    fs.writeFileSync(path.join(work, 'local-only.txt'), 'never stored\n');
    fs.mkdirSync(path.join(work, 'build'));
    fs.writeFileSync(path.join(work, 'build', 'out.js'), 'ignored\n');
    fs.writeFileSync(path.join(work, '.env'), 'KEY=secret\n');
    fs.writeFileSync(path.join(work, 'big.bin'), Buffer.alloc(2000, 7));
    fs.writeFileSync(path.join(work, 'binary.dat'), Buffer.from([0, 255, 13, 10, 13, 0]));
    fs.writeFileSync(path.join(work, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    const status = git(work, 'status', '--porcelain');
    const dotGit = fingerprint(path.join(work, '.git'));
    const before = files(work);

    const first = await store.snapshot('cp-1-a', far());
    assert.deepEqual(first.leftOut, { secret: 1, large: 1 });
    const stored = await store.files('cp-1-a');
    assert.deepEqual([...stored.keys()].sort(), [
      '.gitattributes',
      '.gitignore',
      'binary.dat',
      'notes.txt',
      'run.sh',
      'staged.txt',
    ]);

    fs.writeFileSync(path.join(work, 'notes.txt'), 'changed by the agent\n');
    fs.writeFileSync(path.join(work, 'created.txt'), 'new\n');
    fs.rmSync(path.join(work, 'binary.dat'));
    fs.chmodSync(path.join(work, 'run.sh'), 0o644);
    await store.snapshot('cp-2-a', far());
    await restore(store, work, 'cp-1-a', 'cp-3-a');
    assert.deepEqual(files(work), before);
    assert.equal(fs.statSync(path.join(work, 'run.sh')).mode & 0o111, 0o111);

    // Redo: forward to the state before the restore, then back again.
    await restore(store, work, 'cp-3-a', 'cp-4-a');
    assert.equal(fs.readFileSync(path.join(work, 'notes.txt'), 'utf8'), 'changed by the agent\n');
    assert.ok(fs.existsSync(path.join(work, 'created.txt')));
    assert.ok(!fs.existsSync(path.join(work, 'binary.dat')));
    await restore(store, work, 'cp-1-a', 'cp-5-a');
    assert.deepEqual(files(work), before);

    assert.deepEqual(fingerprint(path.join(work, '.git')), dotGit);
    assert.equal(git(work, 'status', '--porcelain'), status);
    assert.ok(!fs.existsSync(pwned()), 'the repository made git run a command');
    // The secret never reached the store.
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      env: { ...process.env, GIT_DIR: path.join(root, 'store') },
    }).toString('latin1');
    assert.ok(!objects.includes('KEY=secret'));
  });

  it('works on a folder that is not a git repository, and lists and prunes its checkpoints', async () => {
    fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await store.snapshot('cp-1-a', far());
    fs.writeFileSync(path.join(work, 'a.txt'), 'b\n');
    fs.mkdirSync(path.join(work, 'deep', 'er'), { recursive: true });
    fs.writeFileSync(path.join(work, 'deep', 'er', 'c.txt'), 'c\n');
    await restore(store, work, 'cp-1-a', 'cp-2-a');
    assert.equal(fs.readFileSync(path.join(work, 'a.txt'), 'utf8'), 'a\n');
    assert.ok(!fs.existsSync(path.join(work, 'deep', 'er', 'c.txt')));
    assert.deepEqual(
      (await store.list()).map((c) => c.id),
      ['cp-1-a', 'cp-2-a'],
    );
    const dropped = await store.prune(
      Date.now() + 10 * 24 * 60 * 60 * 1000,
      {
        maxAgeMs: 24 * 60 * 60 * 1000,
        maxStoreBytes: Infinity,
        keepNewest: 0,
      },
      new Set(['cp-2-a']),
    );
    assert.deepEqual(dropped, ['cp-1-a']);
    assert.equal(await store.has('cp-1-a'), false);
    assert.equal(await store.has('cp-2-a'), true);
  });

  it('gives up when the time budget has run out, and says so', async () => {
    fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await assert.rejects(store.snapshot('cp-1-a', Date.now() - 1), (e: unknown) => {
      assert.ok(e instanceof CheckpointError);
      assert.equal(e.kind, 'timeout');
      return true;
    });
    // The next one, in budget, works.
    assert.equal((await store.snapshot('cp-2-a', far())).files, 1);
  });

  it('says when git is missing', async () => {
    const none = new GitCheckpointStore({
      dir: path.join(root, 'store2'),
      workTree: work,
      secretPatterns: () => [],
      git: path.join(root, 'no-such-git'),
    });
    await assert.rejects(
      none.snapshot('cp-1-a', far()),
      (e: unknown) => e instanceof CheckpointError && e.kind === 'noGit',
    );
  });

  /** Every object in a store, as text: what would be kept for 30 days. */
  function storeObjects(dir: string): string {
    if (!fs.existsSync(path.join(dir, 'HEAD'))) return '';
    return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      env: { ...process.env, GIT_DIR: dir },
    }).toString('latin1');
  }

  it('a checkpoint of a workspace that includes ~/.aws, the home folder, or a secrets/ project holds none of their files', async () => {
    const savedHome = process.env.HOME;
    const home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, '.aws'), { recursive: true });
    fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'aws_secret_access_key=AWS-SECRET\n');
    fs.writeFileSync(path.join(home, '.git-credentials'), 'https://u:HOME-TOKEN@example.com\n');
    fs.writeFileSync(path.join(home, 'notes.txt'), 'HOME-NOTES\n');
    const project = path.join(root, 'secrets', 'deploy');
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, 'prod.json'), '{"token": "SECRETS-PROJECT"}\n');
    fs.writeFileSync(path.join(project, 'readme.md'), 'SECRETS-README\n');
    // Links name them another way: judged by their real paths.
    fs.symlinkSync(home, path.join(root, 'linked-home'));
    fs.symlinkSync(path.join(home, '.aws'), path.join(root, 'linked-aws'));
    fs.symlinkSync(project, path.join(root, 'linked-project'));
    process.env.HOME = home;
    try {
      let n = 0;
      const storeOf = (folder: string) =>
        new GitCheckpointStore({
          dir: path.join(root, `store-${++n}`),
          workTree: folder,
          secretPatterns: () => DEFAULT_EXCLUDE,
        });
      for (const folder of [
        home,
        path.join(home, '.aws'),
        path.join(root, 'linked-home'),
        path.join(root, 'linked-aws'),
      ]) {
        const one = storeOf(folder);
        await assert.rejects(one.snapshot('cp-1-a', far()), (e: unknown) => {
          assert.ok(e instanceof CheckpointError, String(e));
          assert.equal(e.kind, 'refused');
          assert.match(e.message, /home folder|settings folder in the home folder/);
          return true;
        });
        assert.equal(storeObjects(one.dir), '', folder);
      }
      for (const folder of [project, path.join(root, 'linked-project')]) {
        const one = storeOf(folder);
        const result = await one.snapshot('cp-1-a', far());
        assert.equal(result.files, 0, folder);
        assert.deepEqual(result.leftOut, { secret: 2, large: 0 });
        assert.equal((await one.files('cp-1-a')).size, 0);
        assert.doesNotMatch(storeObjects(one.dir), /SECRETS-PROJECT|SECRETS-README/);
      }
    } finally {
      if (savedHome === undefined) delete process.env.HOME;
      else process.env.HOME = savedHome;
    }
  });

  it('an index made under other rules (an older version, a shorter secrets list) is judged again', async () => {
    let patterns: readonly string[] = [];
    const loose = new GitCheckpointStore({
      dir: path.join(root, 'store'),
      workTree: work,
      secretPatterns: () => patterns,
    });
    fs.writeFileSync(path.join(work, '.env'), 'KEY=LATER-SECRET\n');
    fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await loose.snapshot('cp-1-a', far());
    assert.deepEqual([...(await loose.files('cp-1-a')).keys()].sort(), ['.env', 'a.txt']);
    // The file is unchanged, so it is not listed again; the new rules still take it out.
    patterns = DEFAULT_EXCLUDE;
    await loose.snapshot('cp-2-a', far());
    assert.deepEqual([...(await loose.files('cp-2-a')).keys()], ['a.txt']);
  });

  it('"Restore to here" never deletes or changes a file the checkpoint left out (gitignored data that existed before)', async () => {
    let patterns = [...DEFAULT_EXCLUDE, 'private.txt'];
    store = new GitCheckpointStore({
      dir: path.join(root, 'store'),
      workTree: work,
      secretPatterns: () => patterns,
      maxFileBytes: 1000,
    });
    fs.writeFileSync(path.join(work, 'private.txt'), 'PRIVATE\n');
    fs.writeFileSync(path.join(work, '.gitignore'), 'data/\n*.log\n');
    fs.mkdirSync(path.join(work, 'data', 'cache'), { recursive: true });
    fs.writeFileSync(path.join(work, 'data', 'cache', 'users.db'), 'USER DATA\n');
    fs.writeFileSync(path.join(work, 'run.log'), 'LOG\n');
    fs.writeFileSync(path.join(work, 'big.bin'), Buffer.alloc(2000, 1));
    fs.writeFileSync(path.join(work, '.env.local'), 'KEY=1\n');
    fs.writeFileSync(path.join(work, 'grows.txt'), 'small\n');
    fs.writeFileSync(path.join(work, 'a.txt'), 'a\n');
    await store.snapshot('cp-1-a', far());
    // Then: .gitignore no longer ignores anything, a large file shrank, a secret stopped being one
    // (the user's list), a tracked file grew over the cap, and the agent created a file.
    fs.writeFileSync(path.join(work, '.gitignore'), '');
    patterns = [...DEFAULT_EXCLUDE];
    fs.writeFileSync(path.join(work, 'big.bin'), 'now small\n');
    fs.writeFileSync(path.join(work, 'grows.txt'), Buffer.alloc(2000, 2));
    fs.writeFileSync(path.join(work, 'a.txt'), 'changed\n');
    fs.writeFileSync(path.join(work, 'created.txt'), 'new\n');
    const failures = await restore(store, work, 'cp-1-a', 'cp-2-a');
    assert.deepEqual(failures, [
      'grows.txt (left as it is: the snapshot taken before this restore does not hold it)',
    ]);
    assert.equal(fs.readFileSync(path.join(work, 'a.txt'), 'utf8'), 'a\n');
    assert.equal(fs.readFileSync(path.join(work, '.gitignore'), 'utf8'), 'data/\n*.log\n');
    assert.ok(!fs.existsSync(path.join(work, 'created.txt')));
    // Untouched: what the checkpoint left out, and what the snapshot of now could not hold.
    assert.equal(fs.readFileSync(path.join(work, 'data', 'cache', 'users.db'), 'utf8'), 'USER DATA\n');
    assert.equal(fs.readFileSync(path.join(work, 'run.log'), 'utf8'), 'LOG\n');
    assert.equal(fs.readFileSync(path.join(work, 'big.bin'), 'utf8'), 'now small\n');
    assert.equal(fs.readFileSync(path.join(work, '.env.local'), 'utf8'), 'KEY=1\n');
    assert.equal(fs.readFileSync(path.join(work, 'private.txt'), 'utf8'), 'PRIVATE\n');
    assert.equal(fs.statSync(path.join(work, 'grows.txt')).size, 2000);
  });

  it('a folder replaced by a file or a link: the next snapshot records what is there now, never follows the link, and the first restore works', async () => {
    const outside = path.join(root, 'outside');
    fs.mkdirSync(path.join(outside, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'lib', 'b.txt'), 'OUTSIDE-B\n');
    fs.writeFileSync(path.join(outside, 'lib', 'c.txt'), 'OUTSIDE-C\n');
    for (const dir of ['docs', 'lib', 'emptied'])
      fs.mkdirSync(path.join(work, dir, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(work, 'docs', 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(work, 'docs', 'deep', 'z.txt'), 'z\n');
    fs.writeFileSync(path.join(work, 'lib', 'b.txt'), 'b\n');
    fs.writeFileSync(path.join(work, 'emptied', 'deep', 'e.txt'), 'e\n');
    fs.writeFileSync(path.join(work, 'was-file'), 'a file\n');
    fs.writeFileSync(path.join(work, 'was-file-2'), 'another\n');
    const before = files(work);
    await store.snapshot('cp-1-a', far());

    // A folder becomes a file, another a link out of the folder, a third an empty folder; two
    // files become folders (one with a file, one empty).
    fs.rmSync(path.join(work, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(work, 'docs'), 'now a file\n');
    fs.rmSync(path.join(work, 'lib'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'lib'), path.join(work, 'lib'));
    fs.rmSync(path.join(work, 'emptied', 'deep'), { recursive: true });
    fs.rmSync(path.join(work, 'was-file'));
    fs.mkdirSync(path.join(work, 'was-file'));
    fs.writeFileSync(path.join(work, 'was-file', 'x.txt'), 'x\n');
    fs.rmSync(path.join(work, 'was-file-2'));
    fs.mkdirSync(path.join(work, 'was-file-2'));

    await store.snapshot('cp-2-a', far());
    const now = await store.files('cp-2-a');
    assert.deepEqual([...now.keys()].sort(), ['docs', 'lib', 'was-file/x.txt']);
    assert.equal(now.get('lib')?.mode, '120000', 'the link is stored as a link');
    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      env: { ...process.env, GIT_DIR: path.join(root, 'store') },
    }).toString('latin1');
    assert.doesNotMatch(objects, /OUTSIDE-/, 'nothing was read through the link');

    assert.deepEqual(await restore(store, work, 'cp-1-a', 'cp-3-a'), []);
    assert.deepEqual(files(work), before);
    assert.ok(fs.lstatSync(path.join(work, 'lib')).isDirectory());
    assert.equal(fs.readFileSync(path.join(outside, 'lib', 'b.txt'), 'utf8'), 'OUTSIDE-B\n');
    // And Redo goes forward again.
    assert.deepEqual(await restore(store, work, 'cp-3-a', 'cp-4-a'), []);
    assert.equal(fs.readFileSync(path.join(work, 'docs'), 'utf8'), 'now a file\n');
    assert.ok(fs.lstatSync(path.join(work, 'lib')).isSymbolicLink());
    assert.equal(fs.readFileSync(path.join(work, 'was-file', 'x.txt'), 'utf8'), 'x\n');
  });

  it('never writes through a link out of the folder', async () => {
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(work, 'linked'));
    assert.equal(await safeTarget(work, 'linked/x.txt'), undefined);
    assert.equal(await safeTarget(work, '../x.txt'), undefined);
    assert.ok(await safeTarget(work, 'new/dir/x.txt'));
  });
});
