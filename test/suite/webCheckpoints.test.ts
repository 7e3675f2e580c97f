/**
 * The browser build's checkpoints (`workspaceCheckpoints.web.ts`: snapshots kept with
 * `workspace.fs` in the extension's storage, no git) run here in the desktop extension host,
 * where `workspace.fs` works too, against the same expectations as the desktop's git store:
 * snapshot, edit, *Restore to here* (the confirmation lists the same files), Redo; a restore
 * never changes or deletes a file the checkpoint did not cover (ignored, a possible secret, over
 * the size cap, a link); a damaged or hostile manifest or blob restores nothing wrong; pruning
 * drops old checkpoints and the blobs only they held.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_EXCLUDE } from '../../src/core/inline/exclude';
import { WorkspaceCheckpoints as DesktopCheckpoints } from '../../src/host/agent/checkpoints/workspaceCheckpoints';
import { UriCheckpointStore } from '../../src/host/agent/checkpoints/uriStore';
import { WorkspaceCheckpoints as WebCheckpoints } from '../../src/host/agent/checkpoints/workspaceCheckpoints.web';
import { answerDialogs } from './restoreDialogs';

/** Files a checkpoint holds (or, for created/new.txt, knows was not there). */
const COVERED = ['edited.txt', 'sub/data.bin', 'sub/deep/kept.txt', 'created/new.txt'];
/** Files it does not cover: ignored, a possible secret, over the size cap, a link, git's own. */
const NOT_COVERED = [
  'ignored/cache.txt',
  'ignored/more.txt',
  'run.log',
  '.env',
  'big.bin',
  'link.txt',
  '.git/config',
];
const BIG = 5 * 1024 * 1024 + 1;
const BINARY = Buffer.from([0, 1, 2, 255, 13, 10, 0xc3]);
const CRLF = Buffer.from('alpha\r\nbeta é 😀\r\nno newline', 'utf8');

describe('Checkpoints in the browser build: a workspace.fs store, as on desktop', function () {
  this.timeout(60_000);
  let scratch: string;
  let count = 0;

  before(() => {
    scratch = fs.mkdtempSync(path.join(tmpdir(), 'gateway-web-checkpoints-'));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /** A fresh folder with files of every kind a snapshot takes or leaves out. */
  function workspace(): { root: string; folder: vscode.WorkspaceFolder; storage: vscode.Uri } {
    const root = path.join(scratch, `ws-${++count}`);
    const write = (relative: string, bytes: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), bytes);
    };
    write('.gitignore', 'ignored/\n*.log\n');
    write('edited.txt', CRLF);
    write('sub/data.bin', BINARY);
    write('sub/deep/kept.txt', 'kept\n');
    write('ignored/cache.txt', 'cache 1\n');
    write('run.log', 'log 1\n');
    write('.env', 'TOKEN=needle-web-secret\n');
    write('big.bin', Buffer.alloc(BIG, 7));
    write('.git/config', '[core]\n');
    fs.writeFileSync(path.join(scratch, `outside-${count}.txt`), 'outside\n');
    fs.symlinkSync(path.join(scratch, `outside-${count}.txt`), path.join(root, 'link.txt'));
    const folder = { uri: vscode.Uri.file(root), name: `ws-${count}`, index: 0 };
    return { root, folder, storage: vscode.Uri.file(path.join(scratch, `storage-${count}`)) };
  }

  const deps = (folder: vscode.WorkspaceFolder, storage: vscode.Uri, logged: string[] = []) => ({
    storage,
    secretPatterns: () => DEFAULT_EXCLUDE,
    logger: { info: (m: string) => void logged.push(m), warn: (m: string) => void logged.push(m) },
    folders: () => [folder],
  });

  /** The edits of a turn: a change, a deletion, a new file, and changes to files not covered. */
  function edit(root: string): void {
    fs.writeFileSync(path.join(root, 'edited.txt'), 'ALPHA\n');
    fs.rmSync(path.join(root, 'sub/data.bin'));
    fs.mkdirSync(path.join(root, 'created'), { recursive: true });
    fs.writeFileSync(path.join(root, 'created/new.txt'), 'new\n');
    fs.writeFileSync(path.join(root, 'ignored/cache.txt'), 'cache 2\n');
    fs.writeFileSync(path.join(root, 'ignored/more.txt'), 'more\n');
    fs.writeFileSync(path.join(root, 'run.log'), 'log 2\n');
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=changed\n');
    fs.writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(BIG, 8));
    fs.writeFileSync(path.join(scratch, `outside-${count}.txt`), 'outside 2\n');
  }

  function state(root: string): Record<string, string | undefined> {
    const read = (relative: string) => {
      const file = path.join(root, relative);
      return fs.existsSync(file) ? fs.readFileSync(file).toString('base64') : undefined;
    };
    return Object.fromEntries([...COVERED, ...NOT_COVERED].map((f) => [f, read(f)]));
  }

  for (const [label, Checkpoints] of [
    ['browser (workspace.fs)', WebCheckpoints],
    ['desktop (git), for comparison', DesktopCheckpoints],
  ] as const)
    it(`${label}: snapshot, edit, Restore to here, Redo; files it did not cover are never touched`, async () => {
      const { root, folder, storage } = workspace();
      const checkpoints = new Checkpoints(deps(folder, storage));
      const taken = await checkpoints.take('before the turn');
      assert.ok(taken.ok, taken.ok ? '' : taken.reason);
      // .gitignore, edited.txt, sub/data.bin, sub/deep/kept.txt; .env a possible secret, big.bin too large.
      assert.equal(taken.files, Checkpoints === WebCheckpoints ? 4 : 5 /* git keeps the link */);
      assert.deepEqual(taken.leftOut, { secret: 1, large: 1 });
      const before = state(root);
      edit(root);
      const edited = state(root);

      const dialogs = answerDialogs((d) => (d.items.includes('Restore Files') ? 'Restore Files' : 'Redo'));
      try {
        const restored = await checkpoints.restore(taken.id, { offerConversation: true, redo: false });
        assert.ok(restored.done, restored.done ? '' : restored.reason);
        const asked = dialogs.shown[0];
        assert.match(asked.message, /Restore 3 files/);
        assert.match(asked.detail, /changed back: edited\.txt/);
        assert.match(asked.detail, /brought back: sub\/data\.bin/);
        assert.match(asked.detail, /removed: created\/new\.txt/);
        assert.doesNotMatch(
          asked.detail.split('\n\n')[0],
          /ignored\/|run\.log|\.env|big\.bin|link\.txt|\.git/,
        );
        const after = state(root);
        for (const covered of COVERED) assert.equal(after[covered], before[covered], covered);
        // Not covered: ignored, a possible secret, over the cap, a link, .git: as the turn left them.
        for (const uncovered of NOT_COVERED) assert.equal(after[uncovered], edited[uncovered], uncovered);
        assert.ok(fs.lstatSync(path.join(root, 'link.txt')).isSymbolicLink(), 'the link is still a link');

        const redo = await checkpoints.restore(restored.redoId, { offerConversation: false, redo: true });
        assert.ok(redo.done);
        assert.match(dialogs.shown[1]?.message ?? '', /Redo 3 files/);
        assert.deepEqual(state(root), edited);
      } finally {
        dialogs.dispose();
      }
    });

  it('never copies a possible secret: no blob of the store holds one', async () => {
    const { folder, storage } = workspace();
    const taken = await new WebCheckpoints(deps(folder, storage)).take('t');
    assert.ok(taken.ok);
    const walk = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory()
            ? walk(path.join(dir, e.name))
            : [fs.readFileSync(path.join(dir, e.name), 'latin1')],
        );
    const all = walk(storage.fsPath).join('\n');
    assert.doesNotMatch(all, /needle-web-secret|outside/);
    assert.match(all, /beta/, 'the store does hold the covered files');
  });

  it('a damaged or hostile manifest restores nothing, and a damaged blob is not written back', async () => {
    const { root, folder, storage } = workspace();
    const checkpoints = new WebCheckpoints(deps(folder, storage));
    const taken = await checkpoints.take('t');
    assert.ok(taken.ok);
    edit(root);
    const edited = state(root);
    const store = path.join(storage.fsPath, 'checkpoint-files');
    const [name] = fs.readdirSync(store);
    const manifestFile = path.join(store, name, 'manifests', `${taken.id}.json`);
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as {
      files: [string, string, number, number][];
    };

    const dialogs = answerDialogs(() => 'Restore Files');
    try {
      // A path out of the folder: the whole manifest is refused, so the checkpoint is "not stored".
      const hostile = {
        ...manifest,
        files: [...manifest.files, ['../outside-escape.txt', manifest.files[0][1], 1, 1]],
      };
      fs.writeFileSync(manifestFile, JSON.stringify(hostile));
      const fresh = new WebCheckpoints(deps(folder, storage));
      const refused = await fresh.restore(taken.id, { offerConversation: false, redo: false });
      assert.equal(refused.done, false);
      assert.match(refused.done ? '' : (refused.reason ?? ''), /not stored/);
      fs.writeFileSync(manifestFile, '{"format": "gateway-checkpoint v1", "id": 7');
      assert.equal(
        (
          await new WebCheckpoints(deps(folder, storage)).restore(taken.id, {
            offerConversation: false,
            redo: false,
          })
        ).done,
        false,
      );
      assert.equal(dialogs.shown.length, 0, 'nothing was offered');
      assert.deepEqual(state(root), edited);
      assert.ok(!fs.existsSync(path.join(root, '..', 'outside-escape.txt')));

      // The manifest back, one blob's bytes replaced: that file is reported, not written wrong.
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
      const editedOid = manifest.files.find(([p]) => p === 'edited.txt')![1];
      fs.writeFileSync(path.join(store, name, 'blobs', editedOid.slice(0, 2), editedOid), 'tampered');
      {
        const restored = await new WebCheckpoints(deps(folder, storage)).restore(taken.id, {
          offerConversation: false,
          redo: false,
        });
        assert.ok(restored.done);
        assert.equal(fs.readFileSync(path.join(root, 'edited.txt'), 'utf8'), 'ALPHA\n', 'left as it was');
        assert.ok(fs.existsSync(path.join(root, 'sub/data.bin')), 'the other files were restored');
        assert.ok(
          dialogs.warned.some((m) => /edited\.txt \(Its stored copy is missing or damaged/.test(m)),
          dialogs.warned.join('\n'),
        );
      }

      // A blob grown past the size cap is not even read (a restore holds each file in memory).
      const kept = manifest.files.find(([p]) => p === 'sub/deep/kept.txt')![1];
      fs.writeFileSync(path.join(store, name, 'blobs', kept.slice(0, 2), kept), Buffer.alloc(BIG, 1));
      fs.rmSync(path.join(root, 'sub/deep/kept.txt'));
      dialogs.warned.length = 0;
      {
        const restored = await new WebCheckpoints(deps(folder, storage)).restore(taken.id, {
          offerConversation: false,
          redo: false,
        });
        assert.ok(restored.done);
        assert.ok(!fs.existsSync(path.join(root, 'sub/deep/kept.txt')), 'not written from an oversized blob');
        assert.ok(
          dialogs.warned.some((m) => /kept\.txt \(Its stored copy is larger than any file/.test(m)),
          dialogs.warned.join('\n'),
        );
      }
    } finally {
      dialogs.dispose();
    }
  });

  it('prunes checkpoints past their age and the blobs only they held, keeping those in use', async () => {
    const { root, folder, storage } = workspace();
    const dir = vscode.Uri.joinPath(storage, 'store');
    const store = new UriCheckpointStore({ dir, folder: folder.uri, secretPatterns: () => DEFAULT_EXCLUDE });
    const far = () => Date.now() + 60_000;
    await store.snapshot('cp-1-a', far());
    fs.writeFileSync(path.join(root, 'edited.txt'), 'second\n');
    await store.snapshot('cp-2-b', far());
    assert.deepEqual((await store.list()).map((c) => c.id).sort(), ['cp-1-a', 'cp-2-b']);
    const blobs = () =>
      fs
        .readdirSync(path.join(dir.fsPath, 'blobs'), { recursive: true })
        .filter((f) => String(f).length > 60);
    const held = blobs().length;
    // A month and more later: both are past their age, and cp-2-b is in use.
    const dropped = await store.prune(Date.now() + 31 * 24 * 3600_000, undefined, new Set(['cp-2-b']));
    assert.deepEqual(dropped, ['cp-1-a']);
    assert.equal(await store.has('cp-1-a'), false);
    assert.ok(await store.has('cp-2-b'));
    assert.equal(blobs().length, held - 1, 'the first edited.txt, held by cp-1-a alone, is gone');
    assert.equal((await store.files('cp-2-b')).size, 4);
  });

  it('a folder that is a link is refused, and a root or system folder on disk is left out, as the tools do', async () => {
    const { root, storage } = workspace();
    const linked = path.join(scratch, `linked-${count}`);
    fs.symlinkSync(root, linked);
    const logged: string[] = [];
    const viaLink = await new WebCheckpoints(
      deps({ uri: vscode.Uri.file(linked), name: 'linked', index: 0 }, storage, logged),
    ).take('t');
    assert.equal(viaLink.ok, false);
    assert.match(viaLink.ok ? '' : viaLink.reason, /is a link/);
    const system = await new WebCheckpoints(
      deps({ uri: vscode.Uri.file('/etc'), name: 'etc', index: 0 }, storage, logged),
    ).take('t');
    assert.equal(system.ok, false);
    assert.ok(
      logged.some((m) => /leave out the workspace folder etc: it is a system folder/.test(m)),
      logged.join('\n'),
    );
  });
});
