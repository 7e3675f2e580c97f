import type * as vscode from 'vscode';
import { decodeSecretHeaders, encodeSecretHeaders, withSecretHeader } from '../../core/config/secretHeaders';
import type { SecretHeaders } from '../../core/config/secretHeaders';
import { StorageKey } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import { SecretStorageUnavailableError } from './apiKeyStore';

/**
 * Request headers whose values are secrets, per gateway origin, kept only in VS Code's
 * SecretStorage (core/config/secretHeaders). Caches what it read and follows `onDidChange`, since
 * another window may change them.
 */
export class SecretHeaderStore extends Disposable {
  private loaded: Promise<SecretHeaders> | undefined;
  private cached: SecretHeaders = {};

  constructor(private readonly secrets: vscode.SecretStorage) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        if (e.key === StorageKey.secretHeaders) this.loaded = undefined;
      }),
    );
  }

  /** The secret headers stored for `origin` (empty when none). Throws SecretStorageUnavailableError. */
  async forOrigin(origin: string): Promise<Record<string, string>> {
    return (await this.all())[origin] ?? {};
  }

  /** Every stored value known now, without waiting: what the log redacts. */
  peekValues(): string[] {
    return Object.values(this.cached).flatMap((headers) => Object.values(headers));
  }

  /** Stores `value` for header `name` of `origin`; an empty value removes it. */
  async set(origin: string, name: string, value: string): Promise<void> {
    const next = withSecretHeader(await this.all(), origin, name, value.trim());
    try {
      await this.secrets.store(StorageKey.secretHeaders, encodeSecretHeaders(next));
    } catch (error) {
      throw new SecretStorageUnavailableError(error);
    }
    this.cached = next;
    this.loaded = Promise.resolve(next);
  }

  private async all(): Promise<SecretHeaders> {
    const reading = (this.loaded ??= this.read());
    try {
      return await reading;
    } catch (error) {
      if (this.loaded === reading) this.loaded = undefined;
      throw new SecretStorageUnavailableError(error);
    }
  }

  private async read(): Promise<SecretHeaders> {
    this.cached = decodeSecretHeaders(await this.secrets.get(StorageKey.secretHeaders));
    return this.cached;
  }
}
