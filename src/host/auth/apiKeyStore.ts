import * as vscode from 'vscode';
import { decodeStoredKey, encodeStoredKey } from '../../core/config/keyOrigin';
import type { StoredKey } from '../../core/config/keyOrigin';
import { Disposable } from '../../core/util/lifecycle';
import { StorageKey } from '../../core/ids';

/** Where the key is kept now: with its origin, as one JSON value. */
const BOUND_KEY = StorageKey.boundApiKey;
/** Where earlier versions kept the bare key (read once, then moved to BOUND_KEY). */
const LEGACY_KEY = StorageKey.apiKey;

/** Thrown when the OS keyring behind SecretStorage is not available. */
export class SecretStorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'VS Code could not use its secret storage' +
        (cause instanceof Error ? ` (${cause.message})` : '') +
        '. On Linux this usually means no keyring (e.g. gnome-keyring or KWallet) is running; ' +
        'start one, or run VS Code with --password-store=basic.',
    );
    this.name = 'SecretStorageUnavailableError';
  }
}

/**
 * The API key, kept only in VS Code's SecretStorage together with the origin it belongs to (the
 * gateway it was entered for, or the one the user agreed to send it to). Caches the value and
 * follows `onDidChange`, since another window may set, re-bind or clear it.
 *
 * A key an earlier version stored (bare, without an origin) is moved on first read and bound to
 * `legacyOrigin()`: the origin of the user's own base URL, never a workspace's.
 */
export class ApiKeyStore extends Disposable {
  private cached: StoredKey | undefined;
  private loaded: Promise<StoredKey | undefined> | undefined;
  /**
   * Bumped before and after each write of ours. A read that started under an older generation
   * may return what was there before our write, so its answer is dropped.
   */
  private generation = 0;
  /** What listeners were last told, so one change is announced once (here and by onDidChange). */
  private announced: string | null = null;
  private readonly changed = this.register(new vscode.EventEmitter<string | undefined>());
  /** Fires with the key (or undefined) after it, or the origin it belongs to, changed here or in another window. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly legacyOrigin: () => string,
  ) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        if (e.key !== BOUND_KEY && e.key !== LEGACY_KEY) return;
        this.loaded = undefined;
        void this.binding().then(
          (stored) => this.announce(stored),
          () => undefined,
        );
      }),
    );
  }

  /** The key, or undefined when none is stored. Throws SecretStorageUnavailableError. */
  async get(): Promise<string | undefined> {
    return (await this.binding())?.key;
  }

  /** The key and its origin, or undefined when none is stored. Throws SecretStorageUnavailableError. */
  binding(): Promise<StoredKey | undefined> {
    if (!this.loaded) {
      const generation = this.generation;
      const reading = this.readStored().then(
        (value) => {
          if (generation !== this.generation) return this.cached;
          this.cached = value;
          return this.cached;
        },
        (error: unknown) => {
          if (this.loaded === reading) this.loaded = undefined;
          throw new SecretStorageUnavailableError(error);
        },
      );
      this.loaded = reading;
    }
    return this.loaded;
  }

  /** The last known key, without waiting (undefined before the first `get`). */
  peek(): string | undefined {
    return this.cached?.key;
  }

  /** Stores `key` for `origin` (the gateway it was entered for). */
  async set(key: string, origin: string): Promise<void> {
    const trimmed = key.trim();
    if (!trimmed) throw new Error('The API key is empty.');
    const stored = { key: trimmed, origin };
    await this.write(stored, async () => {
      await this.secrets.store(BOUND_KEY, encodeStoredKey(stored));
      await this.secrets.delete(LEGACY_KEY);
    });
  }

  /** Lets the stored key go to `origin` from now on (the user agreed to it), instead of its own. */
  async bind(origin: string): Promise<void> {
    const stored = await this.binding();
    if (!stored) throw new Error('No API key is stored.');
    await this.set(stored.key, origin);
  }

  async clear(): Promise<void> {
    await this.write(undefined, async () => {
      await this.secrets.delete(BOUND_KEY);
      await this.secrets.delete(LEGACY_KEY);
    });
  }

  /**
   * What is stored: the bound key, or a bare key an earlier version (or one still running in
   * another window) stored, which is moved now and bound to the user's own gateway.
   */
  private async readStored(): Promise<StoredKey | undefined> {
    const [boundText, legacyText] = await Promise.all([
      this.secrets.get(BOUND_KEY),
      this.secrets.get(LEGACY_KEY),
    ]);
    const bound = decodeStoredKey(boundText);
    const legacy = legacyText?.trim();
    if (!legacy) return bound;
    if (bound?.key === legacy) {
      await this.secrets.delete(LEGACY_KEY);
      return bound;
    }
    const moved = { key: legacy, origin: this.legacyOrigin() };
    await this.secrets.store(BOUND_KEY, encodeStoredKey(moved));
    await this.secrets.delete(LEGACY_KEY);
    return moved;
  }

  private async write(value: StoredKey | undefined, operation: () => Promise<void>): Promise<void> {
    this.generation++;
    try {
      await operation();
    } catch (error) {
      throw new SecretStorageUnavailableError(error);
    } finally {
      this.generation++;
    }
    this.cached = value;
    this.loaded = Promise.resolve(value);
    this.announce(value);
  }

  private announce(stored: StoredKey | undefined): void {
    const text = stored ? encodeStoredKey(stored) : '';
    if (this.announced === text) return;
    this.announced = text;
    this.changed.fire(stored?.key);
  }
}
