import * as vscode from 'vscode';
import { Disposable } from '../../core/util/lifecycle';
import { StorageKey } from '../../core/ids';

const SECRET_KEY = StorageKey.apiKey;

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
 * The API key, kept only in VS Code's SecretStorage. Caches the value and follows `onDidChange`,
 * since another window may set or clear it.
 */
export class ApiKeyStore extends Disposable {
  private cached: string | undefined;
  private loaded: Promise<string | undefined> | undefined;
  /**
   * Bumped before and after each write of ours. A read that started under an older generation
   * may return what was there before our write, so its answer is dropped.
   */
  private generation = 0;
  /** What listeners were last told, so one change is announced once (here and by onDidChange). */
  private announced: string | undefined | null = null;
  private readonly changed = this.register(new vscode.EventEmitter<string | undefined>());
  /** Fires with the new key (or undefined) after it changed here or in another window. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        if (e.key !== SECRET_KEY) return;
        this.loaded = undefined;
        void this.get().then(
          (key) => this.announce(key),
          () => undefined,
        );
      }),
    );
  }

  /** The key, or undefined when none is stored. Throws SecretStorageUnavailableError. */
  async get(): Promise<string | undefined> {
    if (!this.loaded) {
      const generation = this.generation;
      const reading = Promise.resolve(this.secrets.get(SECRET_KEY)).then(
        (value) => {
          if (generation !== this.generation) return this.cached;
          this.cached = value?.trim() || undefined;
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
    return this.cached;
  }

  async set(key: string): Promise<void> {
    const trimmed = key.trim();
    if (!trimmed) throw new Error('The API key is empty.');
    await this.write(trimmed, () => this.secrets.store(SECRET_KEY, trimmed));
  }

  async clear(): Promise<void> {
    await this.write(undefined, () => this.secrets.delete(SECRET_KEY));
  }

  private async write(value: string | undefined, operation: () => Thenable<void>): Promise<void> {
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

  private announce(key: string | undefined): void {
    if (this.announced === key) return;
    this.announced = key;
    this.changed.fire(key);
  }
}
