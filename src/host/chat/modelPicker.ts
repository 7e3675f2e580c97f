import * as vscode from 'vscode';
import { isModelId, readSettings } from '../config/settings';
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
  if (!isModelId(id)) {
    throw new Error(
      `"${model}" is not a model id. Use the form <vendor>/<model_name>, for example openai/gpt-4o-mini.`,
    );
  }
  await vscode.workspace
    .getConfiguration('gateway')
    .update('chat.model', id, vscode.ConfigurationTarget.Global);
  await recent.add(id);
}

interface ModelItem extends vscode.QuickPickItem {
  model?: string;
}

/**
 * A quick pick of recent and configured models; typing any `<vendor>/<model_name>` offers it as
 * an entry of its own. Resolves to the chosen id, or undefined when dismissed.
 */
export async function pickModel(recent: RecentModels): Promise<string | undefined> {
  const settings = readSettings();
  const current = settings.chat.model;
  const recents = recent.list();
  const configured = settings.chat.models.filter((m) => !recents.includes(m));
  const itemFor = (model: string): ModelItem => ({
    label: model,
    model,
    description: model === current ? 'current' : undefined,
    iconPath: new vscode.ThemeIcon(model === current ? 'check' : 'sparkle'),
  });
  const base: ModelItem[] = [];
  if (recents.length)
    base.push({ label: 'Recently used', kind: vscode.QuickPickItemKind.Separator }, ...recents.map(itemFor));
  if (configured.length)
    base.push({ label: 'Configured', kind: vscode.QuickPickItemKind.Separator }, ...configured.map(itemFor));
  if (!recents.includes(current) && !configured.includes(current) && current) base.unshift(itemFor(current));

  const pick = vscode.window.createQuickPick<ModelItem>();
  pick.title = 'Select Chat Model';
  pick.placeholder = 'Pick a model or type any <vendor>/<model_name>';
  pick.items = base;
  pick.matchOnDescription = true;
  return new Promise((resolve) => {
    let resolved = false;
    const done = (value: string | undefined) => {
      if (resolved) return;
      resolved = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidChangeValue((value) => {
      const typed = value.trim();
      const known = base.some((i) => i.model === typed);
      if (typed && !known) {
        const custom: ModelItem = isModelId(typed)
          ? {
              label: typed,
              model: typed,
              description: 'use this model',
              alwaysShow: true,
              iconPath: new vscode.ThemeIcon('edit'),
            }
          : { label: typed, description: 'model ids look like vendor/model_name', alwaysShow: true };
        pick.items = [custom, ...base];
      } else {
        pick.items = base;
      }
    });
    pick.onDidAccept(() => {
      const model = pick.selectedItems[0]?.model;
      if (model) done(model);
    });
    pick.onDidHide(() => done(undefined));
    pick.show();
  });
}
