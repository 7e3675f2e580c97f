import * as vscode from 'vscode';
import type { ChatSession } from './chatSession';
import type { ChatViewProvider } from './chatViewProvider';
import { setChatModel } from './modelPicker';
import { pickCatalogModel } from '../catalog/catalogPicker';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { RecentModels } from './modelPicker';
import { explainPrompt } from '../../core/chat/explainPrompt';
import { notify } from '../notify';

export interface ChatCommandDeps {
  session: ChatSession;
  view: ChatViewProvider;
  recentModels: RecentModels;
  catalog: CatalogFeature;
  settings: Settings;
}

/** `gateway.ask [prompt]`: sends the argument, or what the user types, in the chat. */
export async function ask(deps: ChatCommandDeps, prompt?: unknown): Promise<void> {
  let text = typeof prompt === 'string' ? prompt : undefined;
  if (text === undefined) {
    text = await vscode.window.showInputBox({
      title: 'Gateway AI: Ask',
      prompt: 'Ask the chat model',
      ignoreFocusOut: true,
    });
  }
  if (!text?.trim()) return;
  await deps.view.reveal();
  await deps.session.send(text);
}

/** `gateway.explainSelection`: the selection, with its language and file name, to the chat. */
export async function explainSelection(deps: ChatCommandDeps): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const code = editor ? editor.selections.map((s) => editor.document.getText(s)).join('\n') : '';
  if (!editor || !code.trim()) {
    void notify.info('Gateway AI: select some code first, then run Explain Selection.');
    return;
  }
  const fileName = vscode.workspace.asRelativePath(editor.document.uri, false);
  await deps.view.reveal();
  await deps.session.send(explainPrompt({ code, languageId: editor.document.languageId, fileName }));
}

/** `gateway.selectModel [id]`: sets the chat model from the argument or a quick pick. */
export async function selectModel(deps: ChatCommandDeps, model?: unknown): Promise<string | undefined> {
  const chosen =
    typeof model === 'string'
      ? model
      : await pickCatalogModel(deps.catalog.catalog, {
          title: 'Select Chat Model',
          current: deps.settings.current.chat.model,
          recent: deps.recentModels.list(),
          favourites: deps.catalog.favourites,
        });
  if (!chosen) return undefined;
  try {
    await setChatModel(chosen, deps.recentModels);
    return chosen.trim();
  } catch (error) {
    void notify.error(`Gateway AI: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
