/**
 * Inline completions at activation: the status item, the commands, today's tally, and the
 * provider's registration while they are on and not snoozed. The provider (the engine, its cache)
 * is constructed on VS Code's first request for a completion. Its code is part of the entry, not
 * a bundle of its own: with the shared ids and settings it is about 16 KB minified, and a bundle
 * of its own cost the package 2 KB more than its 400 KB budget allowed.
 */
import * as vscode from 'vscode';
import { Command, Setting, StorageKey } from '../../core/ids';
import { addToTally, parseAccepted, parseTally, tallyCostText } from '../../core/inline/tally';
import type { AcceptedCompletion, InlineTally } from '../../core/inline/tally';
import { chooseInlineModel } from '../../core/inline/modelChoice';
import { Disposable } from '../../core/util/lifecycle';
import { inertText } from '../../core/util/text';
import type { FavouriteModels } from '../catalog/favouriteModels';
import { pickCatalogModel } from '../catalog/catalogPicker';
import { LazyFeature } from '../lazyFeature';
import type { InlineFeatureDeps } from './inlineFeature';
import { InlineCompletionsFeature } from './inlineFeature';
import { InlineStatusItem } from './inlineStatusItem';

export const SNOOZE_MS = 30 * 60_000;
/**
 * The documents completions are offered in: files on disk and new, unsaved ones, and the files of
 * a workspace folder on another file system (github.dev's `vscode-vfs`, a remote folder seen from
 * VS Code for the Web's worker as `vscode-remote`). Which of those documents are sent is the
 * feature's to judge (inlineFeature.ts: only files inside a folder of their own file system).
 */
function documentSelector(): vscode.DocumentFilter[] {
  const folderSchemes = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.scheme);
  return [...new Set(['file', 'untitled', ...folderSchemes])].map((scheme) => ({ scheme }));
}

export interface InlineLoaderDeps extends InlineFeatureDeps {
  context: vscode.ExtensionContext;
  favourites: FavouriteModels;
}

/** What one request cost (`usage.cost`, undefined when the gateway did not say). */
export interface InlineSpend {
  cost: number | undefined;
}

export class InlineCompletions extends Disposable {
  readonly feature: LazyFeature<InlineCompletionsFeature>;
  private readonly status = this.register(new InlineStatusItem());
  private registration: vscode.Disposable | undefined;
  private snoozedUntil: number | undefined;
  private snoozeTimer: ReturnType<typeof setTimeout> | undefined;
  private busy = false;
  private readonly spent = this.register(new vscode.EventEmitter<InlineSpend>());
  /**
   * Each completion request's cost, whether or not its suggestion was accepted: the hook for a
   * shared ledger of today's spending.
   */
  readonly onDidSpend = this.spent.event;

  constructor(private readonly deps: InlineLoaderDeps) {
    super();
    this.feature = this.register(
      new LazyFeature('inline completions', () => this.createFeature(), deps.logger),
    );
    const registrations: vscode.Disposable[] = [
      vscode.commands.registerCommand(Command.inlineCompletionAccepted, (value: unknown) => {
        // Any extension can run the command: only our own items' argument counts.
        const accepted = parseAccepted(value);
        return accepted && this.accepted(accepted);
      }),
      vscode.commands.registerCommand(Command.toggleInlineCompletions, () => this.toggle()),
      vscode.commands.registerCommand(Command.inlineCompletionsMenu, () => this.menu()),
      deps.settings.onDidChange((change) => {
        if (change.affects(Setting.inlineEnabled) || change.affects(Setting.inlineModel)) this.sync();
      }),
      // A folder on another file system added or removed: its documents' scheme joins or leaves.
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.unregister();
        this.sync();
      }),
      { dispose: () => this.unregister() },
      { dispose: () => clearTimeout(this.snoozeTimer) },
    ];
    for (const registration of registrations) this.register(registration);
    // Off the activation path, as the model item: the first render reads the settings and state.
    const first = setTimeout(() => this.sync(), 0);
    this.register({ dispose: () => clearTimeout(first) });
  }

  get enabled(): boolean {
    return this.deps.settings.current.inlineCompletions.enabled;
  }

  get snoozed(): boolean {
    return this.snoozedUntil !== undefined && this.snoozedUntil > Date.now();
  }

  get tally(): InlineTally {
    return parseTally(this.deps.context.globalState.get(StorageKey.inlineToday), Date.now());
  }

  /** Turns them on or off (user settings), ending a snooze. */
  async toggle(on = !this.enabled): Promise<void> {
    this.snooze(undefined);
    await vscode.workspace
      .getConfiguration()
      .update(Setting.inlineEnabled, on, vscode.ConfigurationTarget.Global);
  }

  /** Snoozes them for `ms` (undefined: wakes them). */
  snooze(ms: number | undefined): void {
    clearTimeout(this.snoozeTimer);
    this.snoozedUntil = ms === undefined ? undefined : Date.now() + ms;
    if (ms !== undefined) this.snoozeTimer = setTimeout(() => this.snooze(undefined), ms);
    this.sync();
  }

  private createFeature(): InlineCompletionsFeature {
    const feature = new InlineCompletionsFeature(this.deps);
    feature.engine.onDidChangeBusy((busy) => {
      this.busy = busy;
      this.render();
    });
    feature.engine.gate.onDidChangePause(() => this.render());
    feature.engine.onDidSpend(({ cost }) => {
      void this.addToTally({ requests: 1, cost });
      this.spent.fire({ cost });
    });
    return feature;
  }

  /** Registers the provider while they are on and not snoozed; unregisters it otherwise. */
  private sync(): void {
    if (this.isDisposed) return;
    const active = this.enabled && !this.snoozed;
    if (active && !this.registration) {
      const provider: vscode.InlineCompletionItemProvider = {
        provideInlineCompletionItems: (document, position, context, token) =>
          this.feature.get().provideInlineCompletionItems(document, position, context, token),
      };
      this.registration = vscode.languages.registerInlineCompletionItemProvider(documentSelector(), provider);
    } else if (!active) {
      this.unregister();
    }
    this.render();
  }

  private unregister(): void {
    this.registration?.dispose();
    this.registration = undefined;
    this.feature.loaded?.engine.cancel();
  }

  private render(): void {
    if (this.isDisposed) return;
    const setting = this.deps.settings.current.inlineCompletions.model;
    this.status.render({
      enabled: this.enabled,
      snoozedUntil: this.snoozed ? this.snoozedUntil : undefined,
      busy: this.busy,
      paused: this.feature.loaded?.engine.gate.currentPause !== undefined,
      tally: this.tally,
      model: setting || chooseInlineModel('', this.deps.catalog.peekAll()),
    });
  }

  private async accepted(accepted: AcceptedCompletion): Promise<void> {
    this.deps.logger.debug(
      `Inline completion accepted${accepted.cached ? ' (from the cache)' : ''}${accepted.model ? ` from ${accepted.model}` : ''}.`,
    );
    await this.addToTally({ accepted: 1 });
  }

  private async addToTally(change: { accepted?: number; requests?: number; cost?: number }): Promise<void> {
    const state = this.deps.context.globalState;
    await state.update(
      StorageKey.inlineToday,
      addToTally(state.get(StorageKey.inlineToday), Date.now(), change),
    );
    this.render();
  }

  private async menu(): Promise<void> {
    type Action = vscode.QuickPickItem & { run: () => unknown };
    const settings = this.deps.settings.current.inlineCompletions;
    const auto = chooseInlineModel('', await this.deps.catalog.models());
    const items: Action[] = [
      settings.enabled
        ? { label: '$(circle-slash) Turn Off', run: () => this.toggle(false) }
        : { label: '$(check) Turn On', run: () => this.toggle(true) },
    ];
    if (settings.enabled)
      items.push(
        this.snoozed
          ? { label: '$(bell) Wake Up', description: 'end the snooze', run: () => this.snooze(undefined) }
          : { label: '$(bell-slash) Snooze for 30 Minutes', run: () => this.snooze(SNOOZE_MS) },
      );
    if (this.feature.loaded?.engine.gate.currentPause)
      items.push({
        label: '$(debug-continue) Resume',
        description: 'after the error',
        run: () => this.feature.loaded?.engine.gate.resume(),
      });
    items.push({
      label: '$(sparkle) Pick Model…',
      // Model ids come from settings and the catalog: `$(…)` in one is shown, not drawn as an icon.
      description: inertText(
        settings.model ? settings.model : `automatic: ${auto ?? 'no model in the catalog'}`,
      ),
      detail: settings.model
        ? undefined
        : 'Empty setting: a fast code model chosen from the catalog (code models first, then the cheapest fast ones).',
      run: () => this.pickModel(settings.model),
    });
    const tally = this.tally;
    const chosen = await vscode.window.showQuickPick(items, {
      title: `Inline Completions · today ${tally.accepted} accepted, ${tallyCostText(tally)}`,
    });
    await chosen?.run();
  }

  private async pickModel(current: string): Promise<void> {
    const model = await pickCatalogModel(this.deps.catalog, {
      title: 'Inline completions: model',
      current,
      recent: [],
      favourites: this.deps.favourites,
    });
    if (model === undefined) return;
    await vscode.workspace
      .getConfiguration()
      .update(Setting.inlineModel, model, vscode.ConfigurationTarget.Global);
  }
}
