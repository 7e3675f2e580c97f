import * as vscode from 'vscode';
import type { MediaModelInfo } from '../../api/mediaRoutes';
import { modelIdProblem } from '../config/settings';

const KIND_ICONS: Readonly<Record<MediaModelInfo['kind'], string>> = {
  image: '$(file-media)',
  video: '$(device-camera-video)',
  audio: '$(unmute)',
};

interface ModelPickItem extends vscode.QuickPickItem {
  id?: string;
  /** "Another model…": asks for an id. */
  other?: boolean;
}

/** Text from a catalog, made safe for a quick pick (no icon syntax, one line, bounded). */
function plain(text: string, max = 120): string {
  return text.replace(/\$\(/g, '$\u200b(').replace(/\s+/g, ' ').slice(0, max);
}

/**
 * Step 2 of Generate Media: every image, video and audio model of the gateway's media catalogs,
 * with its kind and price and the parameters it takes; the current one first and chosen. "Another
 * model…" takes any id. Undefined when cancelled.
 */
export async function pickMediaModel(
  models: readonly MediaModelInfo[],
  current: string,
): Promise<string | undefined> {
  const items: ModelPickItem[] = models.map((model) => ({
    id: model.id,
    label: `${KIND_ICONS[model.kind]} ${plain(model.name ?? model.id)}`,
    description: plain([model.id, model.kind, model.price].filter(Boolean).join(' · ')),
    detail: model.options
      ? plain(
          Object.entries(model.options)
            .map(([key, values]) => `${key}: ${values.map(String).join(', ')}`)
            .join(' · '),
          200,
        )
      : undefined,
  }));
  if (current && !models.some((model) => model.id === current))
    items.unshift({
      id: current,
      label: plain(current),
      description: 'current model (not in the media catalogs)',
    });
  items.push({ label: '$(edit) Another model…', other: true, alwaysShow: true });
  const pick = vscode.window.createQuickPick<ModelPickItem>();
  pick.title = 'Generate Media (2/3): model';
  pick.placeholder = `${models.length} media models from the gateway; type to filter`;
  pick.matchOnDescription = true;
  pick.ignoreFocusOut = true;
  pick.items = items;
  const chosen = items.find((item) => item.id === current);
  if (chosen) pick.activeItems = [chosen];
  const picked = await new Promise<ModelPickItem | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0] ?? pick.activeItems[0]));
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  if (!picked) return undefined;
  if (!picked.other) return picked.id;
  return vscode.window.showInputBox({
    title: 'Generate Media (2/3): model',
    prompt: 'Media model id, as the gateway names it (gpt-image-1, openai/gpt-image-1)',
    value: current,
    ignoreFocusOut: true,
    validateInput: (v) => modelIdProblem(v.trim()),
  });
}
