import * as vscode from 'vscode';
import { Command } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { storageFolder } from '../storage/storageFolder';
import { CreditsService } from './credits';
import { FavouriteModels } from './favouriteModels';
import { ModelCatalog } from './modelCatalog';
import { pickCatalogModel } from './catalogPicker';
import { mediaModels } from '../../core/catalog/catalogView';

/**
 * The model catalog, favourites and credits, shared by the chat, the media feature, the status bar
 * (and the language-model provider); and the Refresh Model Catalog command.
 */
export class CatalogFeature extends Disposable {
  readonly catalog: ModelCatalog;
  readonly credits: CreditsService;
  readonly favourites: FavouriteModels;

  constructor(deps: {
    context: vscode.ExtensionContext;
    gateway: GatewayService;
    apiKey: ApiKeyStore;
    settings: Settings;
    logger: Logger;
  }) {
    super();
    const { context, gateway, apiKey, settings, logger } = deps;
    this.catalog = this.register(
      new ModelCatalog(gateway, settings, storageFolder(context.globalStorageUri, 'catalog'), logger),
    );
    // A catalog that could not be fetched (no key yet, a revoked one) is asked for again with the new key.
    this.register(apiKey.onDidChange(() => this.catalog.keyChanged()));
    this.credits = this.register(new CreditsService(gateway, settings, logger));
    this.favourites = new FavouriteModels(context.globalState);
    this.register(
      vscode.commands.registerCommand(Command.refreshModelCatalog, async () => {
        const models = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'Refreshing the model catalog' },
          () => this.catalog.refresh(),
        );
        const where =
          this.catalog.source === 'gateway'
            ? `${models.length} models from the gateway`
            : `the gateway has no catalog; ${models.length} configured models (see the Gateway AI log)`;
        void notify.info(`Gateway AI: model catalog refreshed: ${where}.`);
        return models.length;
      }),
    );
  }

  /** The models whose output includes image, video or audio (and the current media model). */
  pickMediaModel(current: string): Promise<string | undefined> {
    return pickCatalogModel(this.catalog, {
      title: 'Generate Media (2/3): model',
      current,
      recent: [],
      favourites: this.favourites,
      filter: (models) => {
        const media = mediaModels(models);
        const currentEntry = models.find((m) => m.id === current);
        return currentEntry && !media.includes(currentEntry) ? [currentEntry, ...media] : media;
      },
    });
  }
}
