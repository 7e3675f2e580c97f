import type * as vscode from 'vscode';
import { isModelId } from '../config/settings';
import { StorageKey } from '../../core/ids';

const MAX_FAVOURITES = 50;

/** The models starred in a picker (ids only, nothing secret), kept in global state. */
export class FavouriteModels {
  constructor(private readonly state: vscode.Memento) {}

  list(): string[] {
    const value = this.state.get<unknown>(StorageKey.favouriteModels);
    return Array.isArray(value) ? value.filter(isModelId).slice(0, MAX_FAVOURITES) : [];
  }

  async toggle(id: string): Promise<void> {
    const list = this.list();
    const next = list.includes(id) ? list.filter((m) => m !== id) : [id, ...list].slice(0, MAX_FAVOURITES);
    await this.state.update(StorageKey.favouriteModels, next);
  }
}
