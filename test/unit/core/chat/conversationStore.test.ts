import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { assistantTurn, newConversation, userTurn } from '../../../../src/core/chat/conversation';
import { ConversationStore } from '../../../../src/core/chat/conversationStore';
import type { ConversationFiles } from '../../../../src/core/chat/conversationStore';

/** Runs `work` at once and, as an async function would, turns what it throws into a rejection. */
function settle<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}

function folder(dir: string): ConversationFiles {
  mkdirSync(dir, { recursive: true });
  return {
    read: (name) =>
      settle(() =>
        existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), 'utf8') : undefined,
      ),
    write: (name, text) => settle(() => writeFileSync(path.join(dir, name), text)),
    delete: (name) => settle(() => unlinkSync(path.join(dir, name))),
  };
}

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

  it('reports corrupt data once and goes on', async () => {
    const problems: string[] = [];
    writeFileSync(path.join(dir, 'index.json'), '{not json');
    writeFileSync(path.join(dir, 'bad.json'), '[1,2,3]');
    const store = new ConversationStore(folder(dir), (p) => problems.push(p));
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.load('bad'), undefined);
    assert.equal(problems.length, 2);
    const c = newConversation();
    c.turns.push(userTurn('still works'));
    await store.save(c);
    assert.equal((await store.list()).length, 1);
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
});
