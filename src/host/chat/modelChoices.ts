import type * as vscode from 'vscode';
import {
  MAX_CHATS_WITH_TOOLS,
  MAX_MODELS_WITH_CHOICES,
  isDefaultRouting,
  parseChoicesByModel,
  parseToolsByChat,
} from '../../core/catalog/modelOptions';
import type { ChatTools, ModelChoices, Routing } from '../../core/catalog/modelOptions';
import { StorageKey } from '../../core/ids';

/**
 * The model menu's choices, kept in global state (ids and options only, nothing secret): the
 * reasoning effort and routing per model, and the tools per chat. What is read back is parsed:
 * storage is outside data too.
 */
export class ModelChoicesStore {
  constructor(private readonly state: vscode.Memento) {}

  forModel(model: string): ModelChoices {
    return parseChoicesByModel(this.state.get<unknown>(StorageKey.modelChoices))[model] ?? {};
  }

  setEffort(model: string, effort: string | undefined): Thenable<void> {
    return this.updateModel(model, (choices) => {
      if (effort) choices.effort = effort;
      else delete choices.effort;
    });
  }

  setRouting(model: string, routing: Routing): Thenable<void> {
    return this.updateModel(model, (choices) => {
      if (isDefaultRouting(routing)) delete choices.routing;
      else choices.routing = routing;
    });
  }

  /** The chat's tools; a chat never toggled takes web search from `gateway.chat.webSearch`. */
  toolsFor(chatId: string, webSearchSetting: boolean): ChatTools {
    return (
      parseToolsByChat(this.state.get<unknown>(StorageKey.chatTools))[chatId] ?? {
        webSearch: webSearchSetting,
        pdf: false,
        compress: false,
      }
    );
  }

  setTools(chatId: string, tools: ChatTools): Thenable<void> {
    const all = parseToolsByChat(this.state.get<unknown>(StorageKey.chatTools));
    delete all[chatId];
    // The newest last; the oldest go first beyond the bound.
    const entries = [...Object.entries(all), [chatId, tools] as const].slice(-MAX_CHATS_WITH_TOOLS);
    return this.state.update(StorageKey.chatTools, Object.fromEntries(entries));
  }

  private updateModel(model: string, change: (choices: ModelChoices) => void): Thenable<void> {
    const all = parseChoicesByModel(this.state.get<unknown>(StorageKey.modelChoices));
    const choices = { ...(all[model] ?? {}) };
    change(choices);
    delete all[model];
    const entries = Object.entries(all);
    if (choices.effort !== undefined || choices.routing !== undefined) entries.push([model, choices]);
    return this.state.update(
      StorageKey.modelChoices,
      Object.fromEntries(entries.slice(-MAX_MODELS_WITH_CHOICES)),
    );
  }
}
