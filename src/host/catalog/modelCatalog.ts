import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import { tryParseJson } from '../../api/json';
import {
  encodeCatalogCache,
  isCacheFresh,
  parseCatalog,
  parseCatalogCache,
  undescribedModel,
} from '../../core/catalog/catalogCodec';
import type { CatalogModel } from '../../core/catalog/catalogCodec';
import type { ConversationFiles } from '../../core/chat/conversationStore';
import { Disposable } from '../../core/util/lifecycle';
import { Setting } from '../../core/ids';
import { readSettings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';

const CACHE_FILE = 'models.json';

/** Where the models came from: the gateway now, its copy on disk, or the settings (no catalog). */
export type CatalogSource = 'gateway' | 'cache' | 'settings';

/**
 * The gateway's model catalog (`GET /v1/models`), cached on disk for a few hours. When the gateway
 * has no catalog or it cannot be read (404, 401, a network error, an unexpected shape), the models
 * come from the settings instead, undescribed; only the log says why. Nothing is fetched until a
 * picker or a request asks.
 */
export class ModelCatalog extends Disposable {
  private loaded: { baseUrl: string; models: CatalogModel[]; byId: Map<string, CatalogModel> } | undefined;
  private loading: Promise<CatalogModel[]> | undefined;
  private generation = 0;
  private lastSource: CatalogSource = 'settings';
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when the list changes: fetched, refreshed, or the gateway or the configured models changed. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly gateway: GatewayService,
    private readonly files: ConversationFiles,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(Setting.baseUrl)) this.forget();
        else if (e.affectsConfiguration(Setting.chatModels) && this.lastSource === 'settings') this.forget();
      }),
    );
  }

  get source(): CatalogSource {
    return this.lastSource;
  }

  /** Every model: the gateway's catalog, or the configured list when it has none. */
  models(): Promise<CatalogModel[]> {
    const baseUrl = readSettings().baseUrl;
    if (this.loaded?.baseUrl === baseUrl) return Promise.resolve(this.loaded.models);
    this.loading ??= this.load(false);
    return this.loading;
  }

  async get(id: string): Promise<CatalogModel | undefined> {
    await this.models();
    return this.peek(id);
  }

  /** The model's entry if the catalog is loaded already (no I/O). */
  peek(id: string): CatalogModel | undefined {
    return this.loaded?.byId.get(id);
  }

  /** Every model if the catalog is loaded already (no I/O); none otherwise. */
  peekAll(): CatalogModel[] {
    return this.loaded?.models ?? [];
  }

  /** Fetches the catalog again, ignoring the copy on disk. */
  refresh(): Promise<CatalogModel[]> {
    this.loading = this.load(true);
    return this.loading;
  }

  /**
   * The API key changed. A list that came from the settings because the gateway refused or could
   * not be asked (no key yet, a revoked one) is dropped, so the next use fetches the catalog with
   * the new key; a fetched catalog stays.
   */
  keyChanged(): void {
    if (this.lastSource === 'settings' && (this.loaded || this.loading)) this.forget();
  }

  private forget(): void {
    this.generation++;
    this.loaded = undefined;
    this.loading = undefined;
    this.changed.fire();
  }

  private async load(force: boolean): Promise<CatalogModel[]> {
    const generation = this.generation;
    const baseUrl = readSettings().baseUrl;
    let models: CatalogModel[] | undefined;
    let source: CatalogSource = 'gateway';
    const cache = force ? undefined : await this.readCache();
    if (cache && isCacheFresh(cache, baseUrl, this.now())) {
      models = cache.models;
      source = 'cache';
    } else {
      models = await this.fetch(baseUrl);
      if (models) {
        void this.files
          .write(CACHE_FILE, encodeCatalogCache({ baseUrl, fetchedAt: this.now(), models }))
          .then(undefined, (error: unknown) =>
            this.logger.warn(`The model catalog was not cached: ${String(error)}`),
          );
      }
    }
    if (!models || models.length === 0) {
      models = this.fromSettings();
      source = 'settings';
    }
    if (generation === this.generation) {
      this.loaded = { baseUrl, models, byId: new Map(models.map((m) => [m.id, m])) };
      this.lastSource = source;
      this.loading = undefined;
      this.changed.fire();
    }
    return models;
  }

  private async fetch(baseUrl: string): Promise<CatalogModel[] | undefined> {
    const started = this.now();
    try {
      const body = await this.gateway.client().listModels();
      const models = parseCatalog(body);
      if (!models) {
        this.logger.warn(
          'The gateway answered GET /v1/models with an unexpected shape; using the configured models.',
        );
        return undefined;
      }
      this.logger.info(`Model catalog of ${baseUrl}: ${models.length} models in ${this.now() - started} ms.`);
      return models;
    } catch (error) {
      const why = GatewayError.is(error)
        ? error.status !== undefined
          ? `status ${error.status}`
          : error.kind
        : String(error);
      this.logger.warn(`No model catalog from the gateway (${why}); using the configured models.`);
      return undefined;
    }
  }

  private async readCache() {
    try {
      const text = await this.files.read(CACHE_FILE);
      if (text === undefined) return undefined;
      const parsed = tryParseJson(text);
      return parsed.ok ? parseCatalogCache(parsed.value) : undefined;
    } catch (error) {
      this.logger.warn(`The cached model catalog could not be read: ${String(error)}`);
      return undefined;
    }
  }

  private fromSettings(): CatalogModel[] {
    const settings = readSettings();
    const ids = [settings.chat.model, ...settings.chat.models, settings.media.model].filter(Boolean);
    return [...new Set(ids)].map(undescribedModel);
  }
}
