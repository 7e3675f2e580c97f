import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { StorageKey } from '../../../../src/core/ids';
import { SavedResults } from '../../../../src/core/mediaStudio/savedMarkers';
import type { KeyValueState } from '../../../../src/core/mediaStudio/savedMarkers';

/**
 * The extension's global state as VS Code gives it to several windows: each window reads its own
 * copy; a write changes that copy and the stored value at once, and reaches the other windows'
 * copies later (key by key, as VS Code sends storage changes), when `deliver()` says so.
 */
class Windows {
  readonly stored = new Map<string, unknown>();
  private readonly all: Window[] = [];

  open(): Window {
    const window = new Window(this, new Map(this.stored));
    this.all.push(window);
    return window;
  }

  send(from: Window, key: string, value: unknown): void {
    if (value === undefined) this.stored.delete(key);
    else this.stored.set(key, value);
    for (const window of this.all) if (window !== from) window.inbox.push([key, value]);
  }

  deliver(): void {
    for (const window of this.all) window.receive();
  }
}

class Window implements KeyValueState {
  readonly inbox: Array<[string, unknown]> = [];

  constructor(
    private readonly windows: Windows,
    private readonly copy: Map<string, unknown>,
  ) {}

  keys(): readonly string[] {
    return [...this.copy.keys()];
  }

  get(key: string): unknown {
    return structuredClone(this.copy.get(key));
  }

  update(key: string, value: unknown): Promise<void> {
    const stored = value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
    if (stored === undefined) this.copy.delete(key);
    else this.copy.set(key, stored);
    this.windows.send(this, key, stored);
    return Promise.resolve();
  }

  receive(): void {
    for (const [key, value] of this.inbox.splice(0)) {
      if (value === undefined) this.copy.delete(key);
      else this.copy.set(key, value);
    }
  }
}

describe('saved results marks', () => {
  it('suspected: marks are erased by another window, or by a cleanup before the jobs are loaded (confirmed, fixed)', async () => {
    const windows = new Windows();
    const a = new SavedResults(windows.open());
    const b = new SavedResults(windows.open());

    // Two windows save results at about the same time: each write once replaced the whole list.
    await a.add('job-a', ['a.png']);
    await b.add('job-b', ['b.png']);
    windows.deliver();
    for (const window of [a, b]) {
      assert.ok(window.has('job-a'), "window A's save is still marked");
      assert.ok(window.has('job-b'), "window B's save is still marked");
    }

    // A cleanup in a window that does not hold job-c (yet): its model is still loading, or the
    // job was made in the other window a moment ago. Nothing is known removed, so nothing goes.
    await a.add('job-c', ['c.png']);
    await b.forgetRemoved(() => undefined);
    windows.deliver();
    assert.ok(a.has('job-c') && b.has('job-c'), 'a mark survives a window that lacks its job');
    assert.deepEqual(a.paths('job-a'), ['a.png']);

    // A job removed after it was saved loses its mark, in every window.
    const removedAt = Date.now() + 1_000;
    await a.forgetRemoved((id) => (id === 'job-a' ? removedAt : undefined));
    windows.deliver();
    assert.equal(b.has('job-a'), false);
    assert.ok(b.has('job-b') && b.has('job-c'));
    // An id removed before the job now under it was saved (the gateway gave it again) keeps it.
    await b.forgetRemoved((id) => (id === 'job-b' ? 0 : undefined));
    assert.ok(b.has('job-b'));
  });

  it('reads the marks earlier versions kept under one key, and moves them to keys of their own', async () => {
    const windows = new Windows();
    windows.stored.set(StorageKey.mediaSaved, { old: ['x.png', 7], bad: 'nope', constructor: ['c.png'] });
    const state = windows.open();
    const saved = new SavedResults(state);
    assert.ok(saved.has('old'));
    assert.deepEqual(saved.paths('old'), ['x.png']);
    assert.ok(saved.has('constructor'));
    assert.equal(saved.has('bad'), false);
    assert.equal(saved.has('toString'), false);
    await saved.add('new', ['n.png']);
    await saved.forgetRemoved(() => undefined);
    assert.equal(state.get(StorageKey.mediaSaved), undefined, 'the old key is gone');
    assert.ok(saved.has('old') && saved.has('constructor') && saved.has('new'));
    await saved.forget('old');
    assert.equal(saved.has('old'), false);
  });

  it('any job id and any stored value: a mark is kept exactly under its own id, and reading never throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, unit: 'binary' }), { maxLength: 6 }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        async (ids, junk) => {
          const windows = new Windows();
          for (const [key, value] of Object.entries(junk)) windows.stored.set(key, value);
          windows.stored.set(`${StorageKey.mediaSavedPrefix}x`, junk);
          const state = windows.open();
          const saved = new SavedResults(state);
          for (const id of ids) await saved.add(id, [`${id}.png`]);
          await saved.forgetRemoved(() => undefined);
          for (const id of ids) assert.deepEqual(saved.paths(id), [`${id}.png`]);
          saved.has('anything');
        },
      ),
    );
  });
});
