import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { assistantTurn, newConversation, userTurn } from '../../../../src/core/chat/conversation';
import { parseConversation } from '../../../../src/core/chat/conversationCodec';
import {
  ConversationStore,
  conversationFile,
  INDEX_FILE,
  legacyConversationFile,
} from '../../../../src/core/chat/conversationStore';
import { flakyFolder, tempFolder } from '../storage/tempFolder';

const folder = tempFolder;

describe('ConversationStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'gateway-store-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('saves, lists and loads conversations across store instances (a reload)', async () => {
    const store = new ConversationStore(folder(dir));
    const c = newConversation();
    c.title = 'First';
    c.turns.push(userTurn('hello'), { ...assistantTurn('a/b'), content: 'hi', status: 'complete' });
    await store.save(c);

    const reloaded = new ConversationStore(folder(dir));
    assert.equal(await reloaded.currentId(), c.id);
    assert.deepEqual(
      (await reloaded.list()).map((s) => [s.id, s.title, s.turnCount]),
      [[c.id, 'First', 2]],
    );
    assert.deepEqual(await reloaded.load(c.id), c);
  });

  it('keeps what each prompt carried and which turns are left out, across a reload', async () => {
    const store = new ConversationStore(folder(dir));
    const c = newConversation();
    const prompt = userTurn('what is wrong here?');
    prompt.attachments = [
      {
        id: 'sel-1',
        kind: 'selection',
        name: 'src/a.ts:1-3',
        path: 'src/a.ts',
        language: 'typescript',
        text: 'let a',
        bytes: 5,
        tokens: 9,
      },
      {
        id: 'img-1',
        kind: 'image',
        name: 'shot.png',
        mimeType: 'image/png',
        file: 'img-1.png',
        bytes: 2048,
        tokens: 765,
      },
    ];
    prompt.leftOut = true;
    c.turns.push(prompt, {
      ...assistantTurn('a/b'),
      content: 'a is fine',
      status: 'complete',
      leftOut: true,
    });
    c.turns.push(userTurn('and now?'));
    await store.save(c);
    await store.flush();

    const loaded = await new ConversationStore(folder(dir)).load(c.id);
    assert.deepEqual(loaded, c);
  });

  it('loads files written before attachments were kept, and drops only the bad attachments', async () => {
    const old = {
      id: 'c-old',
      title: 'Old',
      createdAt: 1,
      updatedAt: 2,
      turns: [
        { id: 'u-1', role: 'user', content: 'hi', createdAt: 1 },
        {
          id: 'u-2',
          role: 'user',
          content: 'with junk',
          createdAt: 2,
          attachments: [
            { id: 'f', kind: 'file', name: 'a.md', text: 'x', bytes: 1, tokens: 3 },
            { id: 'g', kind: 'image', name: 'p.png', file: '../../etc/passwd', bytes: 1, tokens: 765 },
            { id: 'h', kind: 'script', name: 'x', bytes: 1, tokens: 1 },
            { id: 'i', kind: 'file', name: 'huge', bytes: -1, tokens: 1 },
            'nonsense',
          ],
        },
      ],
    };
    writeFileSync(path.join(dir, conversationFile('c-old')), JSON.stringify(old));
    const parsed = parseConversation(old);
    assert.ok(parsed);
    const [first, second] = parsed.value.turns;
    assert.equal(first.role === 'user' && first.attachments, undefined);
    assert.ok(second.role === 'user');
    assert.deepEqual(second.attachments, [
      { id: 'f', kind: 'file', name: 'a.md', text: 'x', bytes: 1, tokens: 3 },
      { id: 'g', kind: 'image', name: 'p.png', bytes: 1, tokens: 765 },
    ]);
    assert.deepEqual(parsed.dropped, ['turns[1].attachments (3 left out)']);
    const loaded = await new ConversationStore(folder(dir)).load('c-old');
    assert.equal(loaded?.turns.length, 2);
  });

  it('does not store empty conversations, but remembers the current one', async () => {
    const store = new ConversationStore(folder(dir));
    const empty = newConversation();
    await store.save(empty);
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.currentId(), empty.id);
  });

  it('marks a reply that was streaming when the window closed as stopped', async () => {
    const store = new ConversationStore(folder(dir));
    const c = newConversation();
    c.turns.push(userTurn('q'), { ...assistantTurn('a/b'), content: 'part' });
    await store.save(c);
    const loaded = await new ConversationStore(folder(dir)).load(c.id);
    assert.equal(loaded?.turns[1].role === 'assistant' && loaded.turns[1].status, 'stopped');
  });

  it('deletes a conversation and its file', async () => {
    const store = new ConversationStore(folder(dir));
    const c = newConversation();
    c.turns.push(userTurn('q'));
    await store.save(c);
    await store.delete(c.id);
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.currentId(), undefined);
    assert.equal(await store.load(c.id), undefined);
  });

  it('writes saves in order, the last one wins', async () => {
    const store = new ConversationStore(folder(dir));
    const c = newConversation();
    c.turns.push(userTurn('one'));
    const first = store.save(c);
    const copy = structuredClone(c);
    copy.turns.push(userTurn('two'));
    await Promise.all([first, store.save(copy)]);
    assert.equal((await new ConversationStore(folder(dir)).load(c.id))?.turns.length, 2);
  });

  it('keeps a corrupt conversation file aside, reports it once, and the history stays intact', async () => {
    const kept: string[] = [];
    const store = new ConversationStore(folder(dir), { onKept: (k) => kept.push(k.keptAs) });
    const good = chat('good');
    const bad = chat('bad');
    await store.save(good);
    await store.save(bad);
    const badFile = path.join(dir, conversationFile(bad.id));
    const original = readFileSync(badFile, 'utf8');
    writeFileSync(badFile, original.slice(0, original.length / 2));

    const reader = new ConversationStore(folder(dir), { onKept: (k) => kept.push(k.keptAs) });
    assert.equal(await reader.load(bad.id), undefined);
    assert.equal(await reader.load(bad.id), undefined);
    assert.equal(kept.length, 1, 'reported once');
    assert.match(kept[0], /\.corrupt-\d+\.json$/);
    assert.equal(readFileSync(path.join(dir, kept[0]), 'utf8'), original.slice(0, original.length / 2));
    assert.deepEqual(
      (await reader.list()).map((s) => s.id),
      [good.id],
      'the unreadable chat leaves the list; the others stay',
    );
    await reader.flush();
    assert.deepEqual(await new ConversationStore(folder(dir)).load(good.id), good);
  });

  it('rebuilds a truncated index from the conversation files, and the next save keeps them', async () => {
    const store = new ConversationStore(folder(dir));
    const chats = [chat('one'), chat('two'), chat('three')];
    for (const c of chats) await store.save(c);
    const index = readFileSync(path.join(dir, INDEX_FILE), 'utf8');
    writeFileSync(path.join(dir, INDEX_FILE), index.slice(0, 25));

    const kept: string[] = [];
    const reader = new ConversationStore(folder(dir), { onKept: (k) => kept.push(k.keptAs) });
    assert.deepEqual((await reader.list()).map((s) => s.title).sort(), ['one', 'three', 'two']);
    assert.equal(kept.length, 1, 'the truncated index was kept aside');
    await reader.save(chat('four'));
    await reader.flush();
    const after = new ConversationStore(folder(dir));
    assert.deepEqual((await after.list()).map((s) => s.title).sort(), ['four', 'one', 'three', 'two']);
  });

  it('rebuilds a missing index', async () => {
    const store = new ConversationStore(folder(dir));
    await store.save(chat('kept'));
    unlinkSync(path.join(dir, INDEX_FILE));
    assert.deepEqual(
      (await new ConversationStore(folder(dir)).list()).map((s) => s.title),
      ['kept'],
    );
  });

  it('gives ids that an earlier version mapped to one name their own files', async () => {
    const store = new ConversationStore(folder(dir));
    const a = { ...chat('colon'), id: 'c-a:b' };
    const b = { ...chat('underscore'), id: 'c-a_b' };
    await store.save(a);
    await store.save(b);
    assert.notEqual(conversationFile(a.id), conversationFile(b.id));
    const reader = new ConversationStore(folder(dir));
    assert.equal((await reader.load(a.id))?.title, 'colon');
    assert.equal((await reader.load(b.id))?.title, 'underscore');
  });

  it('reads files written under the old names and moves them on the next save', async () => {
    const old = chat('from an older version');
    writeFileSync(path.join(dir, legacyConversationFile(old.id)), JSON.stringify(old));
    writeFileSync(
      path.join(dir, INDEX_FILE),
      JSON.stringify({
        version: 1,
        currentId: old.id,
        items: [{ id: old.id, title: old.title, updatedAt: old.updatedAt, turnCount: 1 }],
      }),
    );
    const store = new ConversationStore(folder(dir));
    assert.equal(await store.currentId(), old.id);
    const loaded = await store.load(old.id);
    assert.ok(loaded);
    assert.deepEqual(loaded, old);
    loaded.turns.push(userTurn('more'));
    await store.save(loaded);
    assert.deepEqual(readdirSync(dir).sort(), [conversationFile(old.id), INDEX_FILE].sort());
  });

  it('refuses ids that are too long or have other characters, when read', async () => {
    writeFileSync(
      path.join(dir, INDEX_FILE),
      JSON.stringify({
        version: 2,
        items: [
          { id: '../../etc/passwd', title: 'x', updatedAt: 1, turnCount: 1 },
          { id: 'x'.repeat(201), title: 'x', updatedAt: 1, turnCount: 1 },
          { id: 'c-fine', title: 'fine', updatedAt: 1, turnCount: 1 },
        ],
      }),
    );
    const store = new ConversationStore(folder(dir));
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      ['c-fine'],
    );
    assert.equal(await store.load('../../etc/passwd'), undefined);
  });

  describe('two windows sharing the folder', () => {
    it("lose neither window's chats when both save at once, and each follows the other", async () => {
      const one = new ConversationStore(folder(dir));
      const two = new ConversationStore(folder(dir));
      await Promise.all([one.list(), two.list()]);
      const changes: string[][] = [];
      one.onDidChange((c) => changes.push(c.ids));
      const mine = Array.from({ length: 10 }, (_, i) => chat(`one ${i}`));
      const theirs = Array.from({ length: 10 }, (_, i) => chat(`two ${i}`));
      await Promise.all([...mine.map((c) => one.save(c)), ...theirs.map((c) => two.save(c))]);
      await Promise.all([one.flush(), two.flush()]);
      await one.refresh();
      assert.equal((await one.list()).length, 20);
      assert.ok(changes.flat().length > 0, "window one was told about window two's chats");
      await two.refresh();
      assert.equal((await two.list()).length, 20);
      assert.equal((await new ConversationStore(folder(dir)).list()).length, 20);
    });

    it("a deletion is not brought back by the other window's older copy of the index", async () => {
      const one = new ConversationStore(folder(dir));
      const two = new ConversationStore(folder(dir));
      const c = chat('doomed');
      await one.save(c);
      await two.refresh();
      assert.equal((await two.list()).length, 1);
      await one.delete(c.id);
      // Window two still has it in memory and saves something else.
      await two.save(chat('other'));
      await two.flush();
      const titles = (await new ConversationStore(folder(dir)).list()).map((s) => s.title);
      assert.deepEqual(titles, ['other']);
    });

    it('merges turns two windows added to the same chat', async () => {
      const one = new ConversationStore(folder(dir));
      const c = chat('shared');
      await one.save(c);
      const two = new ConversationStore(folder(dir));
      const inTwo = (await two.load(c.id))!;
      const inOne = structuredClone(c);
      inOne.turns.push(userTurn('from one', c.updatedAt + 1));
      inOne.updatedAt += 1;
      inTwo.turns.push(userTurn('from two', c.updatedAt + 2));
      inTwo.updatedAt += 2;
      await one.save(inOne);
      await two.save(inTwo);
      const merged = await new ConversationStore(folder(dir)).load(c.id);
      assert.deepEqual(
        merged?.turns.map((t) => t.content),
        ['shared', 'from one', 'from two'],
      );
    });
  });

  it('a save that fails is reported once, retried, and lands when the disk recovers', async () => {
    let full = true;
    const failures: unknown[] = [];
    const store = new ConversationStore(
      flakyFolder(folder(dir), () => full),
      {
        onSaveFailed: (e) => failures.push(e),
      },
    );
    const c = chat('patient');
    const started = Date.now();
    await store.save(c); // resolves after the first attempt, does not hang
    c.turns.push(userTurn('second'));
    await store.save(c);
    assert.ok(Date.now() - started < 2000);
    assert.equal(failures.length, 1);
    assert.equal(store.isFailing, true);
    assert.deepEqual(
      (await store.list()).map((s) => s.turnCount),
      [2],
      'the list shows it meanwhile',
    );
    full = false;
    await store.flush();
    assert.equal((await new ConversationStore(folder(dir)).load(c.id))?.turns.length, 2);
    store.dispose();
  });
});

function chat(title: string) {
  const c = newConversation();
  c.title = title;
  c.turns.push(userTurn(title, c.createdAt));
  return c;
}
