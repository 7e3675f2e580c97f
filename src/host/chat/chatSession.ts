import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import type { ChatDelta, Usage } from '../../api/types';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import { Disposable } from '../../core/util/lifecycle';
import { readSettings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import type { AssistantTurn, HostMessage, Turn, TurnUsage } from '../../core/protocol/chatProtocol';
import {
  assistantTurn,
  newConversation,
  titleFrom,
  toApiMessages,
  toMarkdown,
  toView,
  userTurn,
} from '../../core/chat/conversation';
import type { Conversation } from '../../core/chat/conversation';
import type { ConversationStore } from '../../core/chat/conversationStore';
import { DeltaBatcher } from '../../core/chat/deltaBatcher';
import { buildChatRequest } from '../../core/chat/requestBuilder';
import { isAbort, toTurnError } from '../../core/chat/turnError';
import { Setting } from '../../core/ids';
import { notify } from '../notify';

const SAVE_WHILE_STREAMING_MS = 3000;

/** Where the controller's messages go: the chat view while it is open, nowhere otherwise. */
export type Post = (message: HostMessage) => void;

function toUsage(usage: Usage): TurnUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    totalTokens: usage.total_tokens,
    cost: typeof usage.cost === 'number' ? usage.cost : undefined,
  };
}

/**
 * The conversation session: the current conversation, sending and streaming, stop, retry,
 * edit-and-resend, switching and deleting chats. It knows nothing of HTML or of the view's other
 * intents (clipboard, editors, links): ChatViewRouter hands it the conversation's messages.
 */
export class ChatSession extends Disposable {
  private conversation: Conversation | undefined;
  private loading: Promise<Conversation> | undefined;
  private active: { turnId: string; abort: AbortController; done: Promise<void> } | undefined;
  private post: Post = () => undefined;
  private readonly turnFinished = this.register(new vscode.EventEmitter<AssistantTurn>());
  /** Fires when a reply ends (completed, stopped or failed); tests and the status bar listen. */
  readonly onDidFinishTurn = this.turnFinished.event;

  constructor(
    private readonly deps: {
      gateway: GatewayService;
      store: ConversationStore;
      apiKey: ApiKeyStore;
      logger: Logger;
    },
  ) {
    super();
    this.register(deps.apiKey.onDidChange((key) => this.post({ type: 'apiKey', hasApiKey: !!key })));
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(Setting.chatModel))
          this.post({ type: 'model', model: readSettings().chat.model });
      }),
    );
    this.register({ dispose: () => this.active?.abort.abort() });
    this.register(deps.store.onDidChange((change) => void this.followOtherWindows(change.ids)));
  }

  /**
   * Another window changed stored chats: the history list follows, and the open chat reloads
   * if it changed there and nothing is streaming here.
   */
  private async followOtherWindows(ids: string[]): Promise<void> {
    await this.postHistory();
    const open = this.conversation;
    if (!open || this.active || !ids.includes(open.id)) return;
    const loaded = await this.deps.store.load(open.id);
    if (!loaded || this.active || this.conversation !== open) return;
    if (loaded.updatedAt <= open.updatedAt && loaded.turns.length === open.turns.length) return;
    this.conversation = loaded;
    await this.sendState();
  }

  /** Connects the view; returns a function that disconnects it. */
  attach(post: Post): vscode.Disposable {
    this.post = post;
    return new vscode.Disposable(() => {
      if (this.post === post) this.post = () => undefined;
    });
  }

  /** The current conversation (loaded from storage on first use). */
  current(): Promise<Conversation> {
    if (this.conversation) return Promise.resolve(this.conversation);
    this.loading ??= (async () => {
      const id = await this.deps.store.currentId();
      const loaded = id ? await this.deps.store.load(id) : undefined;
      this.conversation ??= loaded ?? newConversation();
      return this.conversation;
    })();
    return this.loading;
  }

  /** Sends the whole state to the view: on `ready`, and when the conversation is switched. */
  async sendState(): Promise<void> {
    const conversation = await this.current();
    this.post({
      type: 'init',
      conversation: toView(conversation),
      model: readSettings().chat.model,
      hasApiKey: !!(await this.deps.apiKey.get().catch(() => undefined)),
      history: await this.deps.store.list(),
    });
  }

  private async postHistory(): Promise<void> {
    this.post({ type: 'history', items: await this.deps.store.list() });
  }

  /** Sends a prompt in the current conversation; a reply still streaming is stopped first. */
  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    await this.stop();
    const conversation = await this.current();
    const turn = userTurn(prompt);
    if (conversation.turns.length === 0) conversation.title = titleFrom(prompt);
    this.append(conversation, turn);
    await this.reply(conversation);
  }

  /** Aborts the streaming reply at once; what was written stays, marked as stopped. */
  async stop(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.abort.abort();
    await active.done;
  }

  async retry(turnId: string): Promise<void> {
    await this.stop();
    const conversation = await this.current();
    const index = conversation.turns.findIndex((t) => t.id === turnId && t.role === 'assistant');
    if (index < 0) return;
    this.removeFrom(conversation, index);
    await this.reply(conversation);
  }

  async editAndResend(turnId: string, text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    await this.stop();
    const conversation = await this.current();
    const index = conversation.turns.findIndex((t) => t.id === turnId && t.role === 'user');
    if (index < 0) return;
    this.removeFrom(conversation, index);
    if (conversation.turns.length === 0) conversation.title = titleFrom(prompt);
    this.append(conversation, userTurn(prompt));
    await this.reply(conversation);
  }

  async newChat(): Promise<void> {
    await this.stop();
    await this.switchTo(newConversation());
  }

  async open(id: string): Promise<void> {
    if (this.conversation?.id === id) return;
    const loaded = await this.deps.store.load(id);
    if (!loaded) {
      // The store took it off the list. An unreadable file was kept aside and reported already.
      if (!this.deps.store.wasKeptAside(id))
        void notify.warn(
          'Gateway AI: that chat could not be opened; it may have been deleted in another window.',
        );
      await this.postHistory();
      return;
    }
    await this.stop();
    await this.switchTo(loaded);
  }

  async delete(id: string): Promise<void> {
    if (this.conversation?.id === id) {
      await this.stop();
      await this.deps.store.delete(id);
      await this.switchTo(newConversation());
      return;
    }
    await this.deps.store.delete(id);
    await this.postHistory();
  }

  async exportMarkdown(): Promise<vscode.TextDocument | undefined> {
    const conversation = await this.current();
    if (conversation.turns.length === 0) {
      void notify.info('Gateway AI: this chat is empty; there is nothing to export yet.');
      return undefined;
    }
    const doc = await vscode.workspace.openTextDocument({
      content: toMarkdown(conversation),
      language: 'markdown',
    });
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc;
  }

  private async switchTo(conversation: Conversation): Promise<void> {
    this.conversation = conversation;
    await this.deps.store.save(conversation);
    await this.sendState();
  }

  private append(conversation: Conversation, turn: Turn): void {
    conversation.turns.push(turn);
    conversation.updatedAt = Date.now();
    this.post({ type: 'turnAdded', turn });
  }

  private removeFrom(conversation: Conversation, index: number): void {
    const removed = conversation.turns.splice(index);
    if (removed.length) this.post({ type: 'turnsRemoved', ids: removed.map((t) => t.id) });
  }

  /** Streams the assistant's reply to the conversation as it stands. */
  private async reply(conversation: Conversation): Promise<void> {
    const settings = readSettings();
    const turn = assistantTurn(settings.chat.model);
    const messages = toApiMessages(conversation.turns, settings.chat.systemPrompt);
    this.append(conversation, turn);
    void this.deps.store.save(conversation).then(() => this.postHistory());

    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.active = { turnId: turn.id, abort, done };
    const batcher = new DeltaBatcher(turn.id, (m) => this.post(m));
    try {
      if (!(await this.deps.apiKey.get())) {
        throw new GatewayError({
          kind: 'config',
          message: "No API key is set. Set one with 'Gateway AI: Set API Key', then retry.",
        });
      }
      const stream = this.deps.gateway
        .client()
        .streamChat(buildChatRequest(settings.chat, turn.model, messages), { signal: abort.signal });
      let savedAt = Date.now();
      for await (const delta of stream) {
        this.apply(turn, delta, batcher);
        // A long reply is saved now and then, so a window closed mid-stream keeps most of it.
        if (Date.now() - savedAt > SAVE_WHILE_STREAMING_MS) {
          savedAt = Date.now();
          void this.deps.store.save(conversation, false);
        }
      }
      turn.status = 'complete';
    } catch (error) {
      if (abort.signal.aborted || isAbort(error)) {
        turn.status = 'stopped';
      } else {
        turn.status = 'error';
        turn.error = toTurnError(error);
        this.deps.logger.warn(`Chat request failed: ${turn.error.message}`);
      }
    } finally {
      batcher.flush();
      conversation.updatedAt = Date.now();
      this.active = undefined;
      this.post({ type: 'turnUpdated', turn });
      // Stop and the next turn wait for this, never for the disk: a save that fails is
      // reported and retried by the store, in order, without holding anyone up.
      finish();
      const saved = this.deps.store.save(conversation);
      this.turnFinished.fire(turn);
      await saved;
      void this.postHistory();
    }
  }

  private apply(turn: AssistantTurn, delta: ChatDelta, batcher: DeltaBatcher): void {
    switch (delta.type) {
      case 'content':
        turn.content += delta.text;
        batcher.add({ content: delta.text });
        break;
      case 'reasoning':
        turn.reasoning += delta.text;
        batcher.add({ reasoning: delta.text });
        break;
      case 'meta':
        if (delta.provider) turn.provider = delta.provider;
        if (delta.model) turn.model = delta.model;
        break;
      case 'tool_calls':
        turn.toolCalls = delta.toolCalls.map((c) => ({
          id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        }));
        batcher.flush();
        this.post({ type: 'turnUpdated', turn });
        break;
      case 'finish':
        turn.finishReason = delta.reason;
        break;
      case 'usage':
        turn.usage = toUsage(delta.usage);
        break;
      case 'annotations': {
        const citations = delta.annotations
          .map((a) => a.url_citation)
          .filter((c): c is NonNullable<typeof c> => !!c && typeof c.url === 'string')
          .map((c) => ({ url: c.url, title: c.title }));
        turn.citations = [...(turn.citations ?? []), ...citations].filter(
          (c, i, all) => all.findIndex((o) => o.url === c.url) === i,
        );
        break;
      }
      case 'reasoning_details':
        break;
    }
  }
}
