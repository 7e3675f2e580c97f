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
import { parseEndpoints } from '../../core/catalog/endpointsCodec';
import type { ModelEndpoint } from '../../core/catalog/endpointsCodec';
import type { ConversationFiles } from '../../core/chat/conversationStore';
import { Disposable } from '../../core/util/lifecycle';
import { Setting } from '../../core/ids';
import type { Settings } from '../config/settings';
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
  /** Each model's providers (`/v1/models/{id}/endpoints`), asked once per catalog; undefined: none known. */
  private endpointsById = new Map<string, Promise<ModelEndpoint[] | undefined>>();
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when the list changes: fetched, refreshed, or the gateway or the configured models changed. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly gateway: GatewayService,
    private readonly settings: Settings,
    private readonly files: ConversationFiles,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.register(
      settings.onDidChange((change) => {
        if (change.affects(Setting.baseUrl)) this.forget();
        else if (change.affects(Setting.chatModels) && this.lastSource === 'settings') this.forget();
      }),
    );
  }

  get source(): CatalogSource {
    return this.lastSource;
  }

  /** Every model: the gateway's catalog, or the configured list when it has none. */
  models(): Promise<CatalogModel[]> {
    const baseUrl = this.settings.current.baseUrl;
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

  /**
   * The providers that serve a model, from `GET /v1/models/{id}/endpoints`, asked once and kept
   * with the catalog. Undefined when the gateway has no such endpoint (404) or it fails: the
   * routing menu then takes provider names as typed text.
   */
  endpoints(id: string): Promise<ModelEndpoint[] | undefined> {
    let pending = this.endpointsById.get(id);
    if (!pending) {
      pending = this.fetchEndpoints(id);
      this.endpointsById.set(id, pending);
    }
    return pending;
  }

  private async fetchEndpoints(id: string): Promise<ModelEndpoint[] | undefined> {
    try {
      const endpoints = parseEndpoints(await this.gateway.client().listModelEndpoints(id));
      if (!endpoints) this.logger.info(`The gateway's endpoints of ${id} have an unexpected shape.`);
      return endpoints;
    } catch (error) {
      const status = GatewayError.is(error) ? error.status : undefined;
      // A gateway without the endpoint (404) is normal; anything else may pass, so ask again later.
      if (status !== 404) this.endpointsById.delete(id);
      this.logger.info(
        `No provider list for ${id} (${status !== undefined ? `status ${status}` : String(error)}).`,
      );
      return undefined;
    }
  }

  private forget(): void {
    this.endpointsById.clear();
    this.generation++;
    this.loaded = undefined;
    this.loading = undefined;
    this.changed.fire();
  }

  private async load(force: boolean): Promise<CatalogModel[]> {
    if (force) this.endpointsById.clear();
    const generation = this.generation;
    const baseUrl = this.settings.current.baseUrl;
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

  /**
   * `GET /v1/models?output_modalities=all` lists image, video and audio models beside the text
   * ones; a gateway that refuses the query (400, 404) or answers it with nothing usable is asked
   * the plain `GET /v1/models`.
   */
  private async fetchAll(): Promise<CatalogModel[] | undefined> {
    try {
      const models = parseCatalog(await this.gateway.client().listModels({}, { outputModalities: 'all' }));
      if (models?.length) return models;
      this.logger.info('GET /v1/models?output_modalities=all gave no models; asking GET /v1/models.');
    } catch (error) {
      if (!GatewayError.is(error) || (error.status !== 400 && error.status !== 404)) throw error;
      this.logger.info(
        `GET /v1/models?output_modalities=all answered ${error.status}; asking GET /v1/models.`,
      );
    }
    return parseCatalog(await this.gateway.client().listModels());
  }

  private async fetch(baseUrl: string): Promise<CatalogModel[] | undefined> {
    const started = this.now();
    try {
      const models = await this.fetchAll();
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
    const settings = this.settings.current;
    const ids = [settings.chat.model, ...settings.chat.models, settings.media.model].filter(Boolean);
    return [...new Set(ids)].map(undescribedModel);
  }
}
