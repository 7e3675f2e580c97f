/**
 * The browser build's notice for a key that lasted only one session (host/auth/sessionSecrets):
 * run here with the browser's platform, a Memento and a key store of the test's own.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { StorageKey } from '../../src/core/ids';
import { watchSessionSecrets } from '../../src/host/auth/sessionSecrets';
import type { HostPlatform } from '../../src/host/platformKind';
import { answerInformation } from './helpers';

const WEB: HostPlatform = { kind: 'web', commands: false, stdioMcp: false, gitCheckpoints: false };
const NODE: HostPlatform = { kind: 'node', commands: true, stdioMcp: true, gitCheckpoints: true };

function memento(initial: Record<string, unknown> = {}): vscode.Memento & { values: Map<string, unknown> } {
  const values = new Map(Object.entries(initial));
  const state = {
    values,
    keys: () => [...values.keys()],
    get: <T>(key: string, fallback?: T) => (values.has(key) ? (values.get(key) as T) : fallback),
    update: (key: string, value: unknown) => {
      if (value === undefined) values.delete(key);
      else values.set(key, value);
      return Promise.resolve();
    },
  };
  return state;
}

function keyStore(key: string | undefined) {
  const changed = new vscode.EventEmitter<string | undefined>();
  return {
    get: () => Promise.resolve(key),
    onDidChange: changed.event,
    fire: (value: string | undefined) => changed.fire(value),
  };
}

describe('A key kept only for a session, in the browser build', () => {
  it('is told once when the key stored in an earlier session is gone', async () => {
    const notices = answerInformation(/keeps secrets only for a session/, 'none');
    try {
      const state = memento({ [StorageKey.keyWasStored]: true });
      const watch = watchSessionSecrets(state, keyStore(undefined), WEB);
      await watch?.idle();
      assert.equal(notices.shown.length, 1);
      assert.deepEqual(notices.shown[0].items, ['Set API Key']);
      assert.equal(
        state.values.has(StorageKey.keyWasStored),
        false,
        'the marker is cleared, so it is said once',
      );
      watch?.dispose();
      const again = watchSessionSecrets(state, keyStore(undefined), WEB);
      await again?.idle();
      again?.dispose();
      assert.equal(notices.shown.length, 1);
    } finally {
      notices.dispose();
    }
  });

  it('says nothing when the key is still there, or none was ever stored, and remembers a key set now', async () => {
    const notices = answerInformation(/keeps secrets only for a session/, 'none');
    try {
      const kept = watchSessionSecrets(
        memento({ [StorageKey.keyWasStored]: true }),
        keyStore('sk-here'),
        WEB,
      );
      await kept?.idle();
      kept?.dispose();
      const fresh = memento();
      const store = keyStore(undefined);
      const watch = watchSessionSecrets(fresh, store, WEB);
      await watch?.idle();
      assert.equal(notices.shown.length, 0);
      store.fire('sk-new');
      await watch?.idle();
      assert.equal(fresh.values.get(StorageKey.keyWasStored), true);
      assert.ok(![...fresh.values.values()].includes('sk-new'), 'the key itself is never kept there');
      store.fire(undefined);
      await watch?.idle();
      assert.equal(fresh.values.has(StorageKey.keyWasStored), false, 'Clear API Key forgets it');
      watch?.dispose();
    } finally {
      notices.dispose();
    }
  });

  it('does nothing on desktop, where secret storage persists', () => {
    assert.equal(
      watchSessionSecrets(memento({ [StorageKey.keyWasStored]: true }), keyStore(undefined), NODE),
      undefined,
    );
  });
});
