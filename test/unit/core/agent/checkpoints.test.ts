import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  checkpointsToDrop,
  describePlan,
  isCheckpointId,
  isStorablePath,
  leftOutBecause,
  leftOutText,
  MAX_LEFT_OUT_ENTRIES,
  newCheckpointId,
  parseLeftOut,
  parseCheckpointRefs,
  parseCountObjects,
  parseLsTree,
  parsePathList,
  restorePlan,
} from '../../../../src/core/agent/checkpoints';
import type { TreeEntry } from '../../../../src/core/agent/checkpoints';
import { DEFAULT_EXCLUDE } from '../../../../src/core/inline/exclude';
import { parseTurn, parseWebviewMessage } from '../../../../src/core/protocol/chatProtocol';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const entry = (oid: string, mode = '100644'): TreeEntry => ({ mode, oid });
const DAY = 24 * 60 * 60 * 1000;

describe('Checkpoints (pure)', () => {
  it('makes ids that are valid, distinct and sortable by time', () => {
    const one = newCheckpointId(1_000, () => 0.5);
    const two = newCheckpointId(2_000_000, () => 0.25);
    assert.ok(isCheckpointId(one) && isCheckpointId(two));
    assert.notEqual(one, two);
    for (const bad of ['', 'cp-', 'cp-a-b/../x', 'refs/heads/main', 'cp-A-b', 42, null])
      assert.equal(isCheckpointId(bad), false, String(bad));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 45 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (t, r) => isCheckpointId(newCheckpointId(t, () => r)),
      ),
    );
  });

  it('parses ls-tree output, keeping files and links and skipping the rest', () => {
    const text = [
      `100644 blob ${A}\tsrc/a.txt`,
      `100755 blob ${B}\trun.sh`,
      `120000 blob ${C}\tlink`,
      `160000 commit ${A}\tvendor/sub`,
      `100644 blob ${A}\t../escape`,
      `100644 blob ${A}\tname with\ttab and\nnewline`,
      'garbage',
      '',
    ].join('\0');
    const files = parseLsTree(text);
    assert.deepEqual([...files.keys()], ['src/a.txt', 'run.sh', 'link', 'name with\ttab and\nnewline']);
    assert.deepEqual(files.get('run.sh'), { mode: '100755', oid: B });
  });

  it('plans a restore: changed files back, deleted ones recreated, created ones removed', () => {
    const target = new Map([
      ['edited.txt', entry(A)],
      ['deleted.txt', entry(B)],
      ['same.txt', entry(C)],
      ['mode.sh', entry(A, '100755')],
    ]);
    const current = new Map([
      ['edited.txt', entry(B)],
      ['same.txt', entry(C)],
      ['created.txt', entry(A)],
      ['mode.sh', entry(A)],
    ]);
    assert.deepEqual(restorePlan(target, current), {
      changed: ['edited.txt', 'mode.sh'],
      recreated: ['deleted.txt'],
      removed: ['created.txt'],
      kept: [],
    });
    assert.deepEqual(restorePlan(current, current), { changed: [], recreated: [], removed: [], kept: [] });
  });

  it('"Restore to here" never deletes or changes a file the checkpoint left out: only what it covered is removed', () => {
    const target = new Map([['a.txt', entry(A)]]);
    // Since the checkpoint, .gitignore stopped ignoring data/, a large file shrank and a secret
    // stopped matching: the snapshot of now holds them all.
    const current = new Map([
      ['a.txt', entry(A)],
      ['data/cache/x.db', entry(B)],
      ['big.bin', entry(B)],
      ['.env.local', entry(C)],
      ['created.txt', entry(C)],
    ]);
    const leftOut = { paths: ['data/', 'big.bin', '.env.local'], complete: true };
    const plan = restorePlan(target, current, leftOut);
    assert.deepEqual(plan.removed, ['created.txt']);
    assert.deepEqual(plan.kept, ['.env.local', 'big.bin', 'data/cache/x.db']);
    assert.deepEqual(plan.changed, []);
    assert.match(
      describePlan(plan, undefined).at(-1)!,
      /^left as they are: 3 files this checkpoint did not hold/,
    );
    // A checkpoint that cannot say what it left out (an earlier version's, a list over its cap)
    // removes nothing.
    const unknown = restorePlan(target, current, { paths: [], complete: false });
    assert.deepEqual(unknown.removed, []);
    assert.equal(unknown.kept.length, 4);
  });

  it('reads a stored left-out list as outside data: our header only, paths inside the folder, bounded (property)', () => {
    const text = leftOutText(['data/', 'big.bin', '../escape', '/abs', 'a/.git/x', 'ok/file']);
    assert.deepEqual(parseLeftOut(text), { paths: ['data/', 'big.bin', 'ok/file'], complete: true });
    assert.equal(parseLeftOut('left-out'), undefined);
    assert.equal(parseLeftOut(42), undefined);
    assert.equal(
      parseLeftOut(leftOutText(Array.from({ length: MAX_LEFT_OUT_ENTRIES + 1 }, (_, i) => `f${i}`)))
        ?.complete,
      false,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((t) => `gateway-left-out v1 complete\n${t}`),
        ),
        (raw) => {
          const list = parseLeftOut(raw);
          if (!list) return;
          for (const p of list.paths) assert.ok(isStorablePath(p.endsWith('/') ? p.slice(0, -1) : p), p);
        },
      ),
    );
  });

  it('a restore and then its redo leave the files as they were (property)', () => {
    const tree = fc.dictionary(
      fc.constantFrom('a', 'b', 'c/d', 'e', 'f/g/h'),
      fc.constantFrom(A, B, C).map((oid) => entry(oid)),
    );
    fc.assert(
      fc.property(tree, tree, (checkpoint, now) => {
        const target = new Map(Object.entries(checkpoint));
        const current = new Map(Object.entries(now));
        const apply = (state: Map<string, TreeEntry>, to: Map<string, TreeEntry>) => {
          const plan = restorePlan(to, state);
          const out = new Map(state);
          for (const p of [...plan.changed, ...plan.recreated]) out.set(p, to.get(p)!);
          for (const p of plan.removed) out.delete(p);
          return out;
        };
        const restored = apply(current, target);
        assert.deepEqual(restored, target);
        assert.deepEqual(apply(restored, current), current);
      }),
    );
  });

  it('leaves out secrets, huge files and odd paths', () => {
    assert.equal(leftOutBecause('src/a.ts', 10, DEFAULT_EXCLUDE), undefined);
    assert.equal(leftOutBecause('.env', 10, DEFAULT_EXCLUDE), 'secret');
    assert.equal(leftOutBecause('deploy/server.PEM', 10, DEFAULT_EXCLUDE), 'secret');
    assert.equal(leftOutBecause('config/secrets/db.txt', 10, DEFAULT_EXCLUDE), 'secret');
    assert.equal(leftOutBecause('data/big.bin', 6 * 1024 * 1024, DEFAULT_EXCLUDE), 'large');
    assert.equal(leftOutBecause('x.bin', 101, [], 100), 'large');
    assert.equal(leftOutBecause('../x', 1, []), 'path');
    assert.equal(isStorablePath('sub/.GIT/config'), false);
    assert.equal(isStorablePath('a//b'), false);
    assert.equal(isStorablePath('a/b'), true);
  });

  it('reads ls-files output once per path, without nested repositories', () => {
    assert.deepEqual(parsePathList('a\0b\0a\0nested/\0'), ['a', 'b']);
  });

  it('drops checkpoints by age, and by size the older half, keeping the newest and those in use', () => {
    const now = 100 * DAY;
    const list = Array.from({ length: 30 }, (_, i) => ({ id: `cp-${i}-x`, createdAt: now - i * DAY }));
    const limits = { maxAgeMs: 25 * DAY, maxStoreBytes: 1000, keepNewest: 5 };
    assert.deepEqual(
      checkpointsToDrop(list, now, 10, limits),
      list.slice(26).map((c) => c.id),
    );
    const bySize = checkpointsToDrop(list, now, 5000, limits, new Set(['cp-25-x']));
    // Ages 26–29 go for age; of the 20 droppable left (5 newest kept, cp-25 in use), the older 10 go.
    assert.equal(bySize.length, 4 + 10);
    assert.ok(!bySize.includes('cp-25-x'));
    for (let i = 0; i < 5; i++) assert.ok(!bySize.includes(`cp-${i}-x`));
    assert.deepEqual(checkpointsToDrop([], now, 1e12, limits), []);
  });

  it('reads refs and object counts', () => {
    assert.deepEqual(
      parseCheckpointRefs('refs/checkpoints/cp-1-a 1700000000\nrefs/heads/main 1\nrefs/checkpoints/../x 2\n'),
      [{ id: 'cp-1-a', createdAt: 1_700_000_000_000 }],
    );
    assert.equal(
      parseCountObjects('count: 3\nsize: 10\nin-pack: 4\nsize-pack: 20\nsize-garbage: 1\n'),
      31 * 1024,
    );
  });

  it('describes a plan with each file and caps long lists', () => {
    const plan = { changed: ['a'], recreated: ['b'], removed: ['c'], kept: [] };
    assert.deepEqual(describePlan(plan, undefined), ['changed back: a', 'brought back: b', 'removed: c']);
    assert.deepEqual(describePlan(plan, 'web', 2), [
      'web: changed back: a',
      'web: brought back: b',
      '… and 1 more',
    ]);
  });

  it("protocol: the restore intents and the prompt's checkpoint fields are checked at the boundary", () => {
    assert.deepEqual(parseWebviewMessage({ type: 'restoreCheckpoint', turnId: 'u1' }), {
      type: 'restoreCheckpoint',
      turnId: 'u1',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'redoCheckpoint', turnId: 'u1', extra: 1 }), {
      type: 'redoCheckpoint',
      turnId: 'u1',
    });
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'restoreCheckpoint', turnId: 'x'.repeat(201) }), undefined);

    const reported: string[] = [];
    const turn = parseTurn(
      {
        id: 'u1',
        role: 'user',
        content: 'hi',
        createdAt: 1,
        checkpoint: 'cp-abc-def',
        redoCheckpoint: 'refs/heads/main',
        checkpointNote: 'n'.repeat(2000),
      },
      (p) => reported.push(p),
    );
    assert.ok(turn?.role === 'user');
    assert.equal(turn.checkpoint, 'cp-abc-def');
    assert.equal(turn.redoCheckpoint, undefined);
    assert.equal(turn.checkpointNote?.length, 500);
    assert.deepEqual(reported, ['turn.redoCheckpoint']);
  });
});
