import * as vscode from 'vscode';
import { isModelId, modelIdProblem } from '../config/settings';
import { StorageKey } from '../../core/ids';

const RECENT_KEY = StorageKey.recentModels;
const MAX_RECENT = 8;

/** Recently used chat models (ids only, nothing secret), kept in global state. */
export class RecentModels {
  constructor(private readonly state: vscode.Memento) {}

  list(): string[] {
    const value = this.state.get<unknown>(RECENT_KEY);
    return Array.isArray(value) ? value.filter(isModelId) : [];
  }

  async add(model: string): Promise<void> {
    await this.state.update(
      RECENT_KEY,
      [model, ...this.list().filter((m) => m !== model)].slice(0, MAX_RECENT),
    );
  }
}

/** Sets the chat model (user settings) and remembers it as recent. */
export async function setChatModel(model: string, recent: RecentModels): Promise<void> {
  const id = model.trim();
  const problem = modelIdProblem(id);
  if (problem) throw new Error(`That is not a model id. ${problem}`);
  await vscode.workspace
    .getConfiguration('gateway')
    .update('chat.model', id, vscode.ConfigurationTarget.Global);
  await recent.add(id);
}
