import type { ChatRequest } from '../../api/types';
import type { CatalogModel } from '../../core/catalog/catalogCodec';
import { providerNames } from '../../core/catalog/endpointsCodec';
import {
  DEFAULT_ROUTING,
  applyModelChoices,
  effortChoices,
  providerField,
} from '../../core/catalog/modelOptions';
import type { ChatTools, Routing } from '../../core/catalog/modelOptions';
import type { HostMessage, ModelOptionsState } from '../../core/protocol/chatProtocol';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { ModelChoicesStore } from './modelChoices';

/**
 * The chat's model menu: the reasoning effort beside the model, routing per model, and the open
 * chat's tools. It tells the view what to offer (only the catalog's efforts, the providers from
 * the gateway's endpoints list), keeps what the user picks, and applies it to each request.
 */
export class ChatModelMenu {
  /** Bumped on each post, so a late provider list never overwrites a newer model's menu. */
  private posted = 0;

  constructor(
    private readonly deps: {
      store: ModelChoicesStore;
      settings: Settings;
      catalog?: CatalogFeature;
      post: (message: HostMessage) => void;
      /** The open chat's id. */
      chatId: () => Promise<string>;
      /** The catalog entry, waited for briefly. */
      entry: (model: string) => Promise<CatalogModel | undefined>;
    },
  ) {}

  /** Posts the menu for the current model and chat; again once the model's providers are known. */
  async post(): Promise<void> {
    const serial = ++this.posted;
    const state = await this.current();
    if (serial !== this.posted) return;
    this.deps.post({ type: 'modelOptions', ...state });
    const providers = await this.providers(state.model);
    if (!providers.length || serial !== this.posted) return;
    this.deps.post({ type: 'modelOptions', ...state, providers });
  }

  /** The providers that serve a model (none when the gateway has no endpoints list). */
  async providers(model: string): Promise<string[]> {
    const endpoints = model ? await this.deps.catalog?.catalog.endpoints(model) : undefined;
    return endpoints ? providerNames(endpoints) : [];
  }

  async setEffort(model: string, effort: string | undefined): Promise<void> {
    await this.deps.store.setEffort(model, effort);
    await this.post();
  }

  async setRouting(model: string, routing: Routing): Promise<void> {
    await this.deps.store.setRouting(model, routing);
    await this.post();
  }

  async setTools(tools: ChatTools): Promise<void> {
    await this.deps.store.setTools(await this.deps.chatId(), tools);
    await this.post();
  }

  /** The request with the menu's choices for its model and the open chat. */
  async apply(request: ChatRequest, chatId: string): Promise<ChatRequest> {
    const chat = this.deps.settings.current.chat;
    return applyModelChoices(request, {
      choices: this.deps.store.forModel(request.model),
      tools: this.deps.store.toolsFor(chatId, chat.webSearch),
      model: await this.deps.entry(request.model),
      settings: chat,
    });
  }

  /**
   * The upstream routing the user chose for `model` (data collection, zero retention, order,
   * price), for a request made beside a chat turn (the summary of its oldest turns).
   */
  routing(model: string): ChatRequest['provider'] {
    const chat = this.deps.settings.current.chat;
    return chat.provider ?? providerField(this.deps.store.forModel(model).routing, false);
  }

  /** What the menu offers for the current model and chat (without the provider list). */
  async current(): Promise<ModelOptionsState> {
    const chat = this.deps.settings.current.chat;
    const model = chat.model;
    const entry = model ? await this.deps.entry(model) : undefined;
    const { efforts, defaultEffort } = effortChoices(entry);
    const choices = model ? this.deps.store.forModel(model) : {};
    const routing: Routing = choices.routing ?? DEFAULT_ROUTING;
    const state: ModelOptionsState = {
      model,
      efforts,
      routing,
      providers: [],
      providerSetting: chat.provider !== undefined,
      tools: this.deps.store.toolsFor(await this.deps.chatId(), chat.webSearch),
      pluginsSetting: chat.plugins.length > 0,
    };
    if (defaultEffort) state.defaultEffort = defaultEffort;
    if (choices.effort && efforts.includes(choices.effort)) state.effort = choices.effort;
    return state;
  }
}
