import * as vscode from 'vscode';
import { pickerEntries, typedModelEntry } from '../../core/catalog/catalogView';
import type { PickerEntry } from '../../core/catalog/catalogView';
import type { CatalogModel } from '../../core/catalog/catalogCodec';
import type { ModelCatalog } from './modelCatalog';
import type { FavouriteModels } from './favouriteModels';

interface ModelItem extends vscode.QuickPickItem {
  model?: string;
}

export interface PickOptions {
  title: string;
  current: string;
  recent: readonly string[];
  favourites: FavouriteModels;
  /** Only these models (e.g. media models); all when absent. */
  filter?: (models: CatalogModel[]) => CatalogModel[];
}

const GROUP_LABELS: Record<PickerEntry['group'], string> = {
  favourites: 'Favourites',
  recent: 'Recently used',
  models: 'Models',
};

/** The star button of a row; made on use, so loading this module builds nothing of VS Code's. */
function favouriteButton(favourite: boolean): vscode.QuickInputButton {
  return favourite
    ? { iconPath: new vscode.ThemeIcon('star-full'), tooltip: 'Remove from favourites' }
    : { iconPath: new vscode.ThemeIcon('star-empty'), tooltip: 'Add to favourites' };
}

/** Quick-pick items with group separators, from the pure entries. */
export function toQuickPickItems(entries: readonly PickerEntry[]): ModelItem[] {
  const items: ModelItem[] = [];
  let group: PickerEntry['group'] | undefined;
  for (const entry of entries) {
    if (entry.group !== group) {
      group = entry.group;
      items.push({ label: GROUP_LABELS[group], kind: vscode.QuickPickItemKind.Separator });
    }
    items.push({
      label: entry.label,
      description: entry.current ? `${entry.description} · current` : entry.description,
      detail: entry.detail || undefined,
      model: entry.id,
      iconPath: new vscode.ThemeIcon(entry.current ? 'check' : 'sparkle'),
      buttons: [favouriteButton(entry.favourite)],
    });
  }
  return items;
}

/**
 * A model picker over the catalog: it opens at once (busy while the catalog loads), shows name,
 * id, price per million tokens, context and capabilities, and searches all of them. Favourites
 * (the star button) and recent models come first; typing any model id (`gpt-4o`,
 * `openai/gpt-4o`, `llama3.2:3b`) offers it.
 */
export async function pickCatalogModel(
  catalog: ModelCatalog,
  options: PickOptions,
): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<ModelItem>();
  pick.title = options.title;
  pick.placeholder = 'Search by name, id, price, context or capability, or type any model id';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.busy = true;
  let models: CatalogModel[] = [];
  let base: ModelItem[] = [];
  const render = () => {
    const wasActive = pick.activeItems[0]?.model;
    const shown = options.filter ? options.filter(models) : models;
    base = toQuickPickItems(
      pickerEntries(shown, {
        current: options.current,
        favourites: options.favourites.list(),
        recent: options.recent,
      }),
    );
    showTyped(pick.value);
    // Enter right away keeps the current model, as the input box it replaced did.
    const keep = pick.items.find((i) => i.model === (wasActive ?? options.current));
    if (keep && !pick.value.trim()) pick.activeItems = [keep];
  };
  const showTyped = (value: string) => {
    const typed = typedModelEntry(
      value,
      base.flatMap((i) => (i.model ? [i.model] : [])),
    );
    if (typed) {
      const custom: ModelItem = {
        label: typed.label,
        description: typed.description,
        model: typed.id,
        alwaysShow: true,
        iconPath: typed.id ? new vscode.ThemeIcon('edit') : undefined,
      };
      pick.items = [custom, ...base];
    } else {
      pick.items = base;
    }
  };
  return new Promise((resolve) => {
    let resolved = false;
    const listeners: vscode.Disposable[] = [];
    const done = (value: string | undefined) => {
      if (resolved) return;
      resolved = true;
      for (const listener of listeners) listener.dispose();
      resolve(value);
      pick.dispose();
    };
    pick.onDidChangeValue(showTyped);
    pick.onDidTriggerItemButton(async (event) => {
      const id = event.item.model;
      if (!id) return;
      await options.favourites.toggle(id);
      render();
    });
    pick.onDidAccept(() => {
      const model = pick.selectedItems[0]?.model;
      if (model) done(model);
    });
    // The current model is there at once; the catalog fills in the rest when it arrives, and
    // again when it changes while the picker is open (a refresh, a key set after a fallback).
    const load = () =>
      void catalog.models().then(
        (loaded) => {
          models = loaded;
          pick.busy = false;
          if (!resolved) render();
        },
        () => {
          pick.busy = false;
        },
      );
    listeners.push(
      catalog.onDidChange(() => {
        if (resolved) return;
        pick.busy = true;
        load();
      }),
    );
    pick.onDidHide(() => done(undefined));
    render();
    pick.show();
    load();
  });
}
