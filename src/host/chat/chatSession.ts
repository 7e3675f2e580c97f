import * as vscode from 'vscode';
import { forView } from '../../core/chat/viewTurns';
import { Disposable } from '../../core/util/lifecycle';
import type { AssistantTurn, HostMessage, QueuedPrompt, Turn } from '../../core/protocol/chatProtocol';
import type { AgentWebviewMessage } from '../../core/protocol/agentProtocol';
import { newConversation, titleFrom, toMarkdown, toView, userTurn } from '../../core/chat/conversation';
import type { Conversation } from '../../core/chat/conversation';
import { MAX_QUEUED, TurnQueue } from '../../core/chat/turnQueue';
import { mediaCommandKind } from '../../core/mediaStudio/mediaCommand';
import type { MediaCardAction } from '../../core/protocol/mediaCardProtocol';
import { notify } from '../notify';
import type { ChatModelMenu } from './modelMenu';
import type { TurnRunner } from './turnRunner';
import type { ContextMeter } from './contextMeter';
import type { AgentPanel } from './agentPanel';
import { followForView } from './viewFollow';
import type { MediaTurns } from './mediaTurns';
import type { TurnHost } from './turn/turnHost';
import type { ModelGate } from './turn/modelGate';
import { sessionParts } from './sessionParts';
import type { ChatSessionDeps } from './sessionParts';

const COMPACT_WAIT = 'Wait for the reply (and the queued prompts) to end, then /compact.';

/** Where the controller's messages go: the chat view while it is open, nowhere otherwise. */
export type Post = (message: HostMessage) => void;

/**
 * The conversation session: the current conversation, sending and streaming, stop, retry,
 * edit-and-resend, switching and deleting chats. It knows nothing of HTML or of the view's other
 * intents (clipboard, editors, links): ChatViewRouter hands it the conversation's messages.
 *
 * One turn runs at a time. A prompt sent while a turn runs (from the chat, Explain Selection or
 * `gateway.ask`) waits in the queue, which the view shows, and goes out when the turn ends,
 * however it ends (complete, failed or stopped). Retry, edit-and-resend and switching chats
 * stop the running reply first and take the next turn themselves; the queue waits for them.
 */
export class ChatSession extends Disposable {
  private conversation: Conversation | undefined;
  private loading: Promise<Conversation> | undefined;
  /** One turn at a time; prompts sent meanwhile wait (the pure state machine in core). */
  private readonly turns = new TurnQueue({
    start: (text) => this.startTurn(text),
    changed: () => this.postQueue(),
    failed: (error) => this.deps.logger.error('Sending a queued prompt failed', error),
  });
  private post: Post = () => undefined;
  private viewAttached = false;
  private readonly turnFinished = this.register(new vscode.EventEmitter<AssistantTurn>());
  /** `/image …` and the other media commands, where the media feature is wired in. */
  private readonly media: MediaTurns | undefined;
  private readonly meter: ContextMeter;
  private readonly agentPanel: AgentPanel | undefined;
  /** The model menu (effort, routing, the chat's tools), where its store is wired in. */
  readonly menu: ChatModelMenu | undefined;
  /** Fires when a reply ends (completed, stopped or failed); tests and the status bar listen. */
  readonly onDidFinishTurn = this.turnFinished.event;
  /** What the catalog says each model takes. */
  private readonly models: ModelGate;
  /** Runs each reply turn (the request, the agent loop, its cost). */
  private readonly runner: TurnRunner;

  constructor(private readonly deps: ChatSessionDeps) {
    super();
    const host: TurnHost = {
      current: () => this.current(),
      post: (message) => this.post(message),
      append: (conversation, turn) => this.append(conversation, turn),
      save: (conversation, makeCurrent) => this.saveInBackground(conversation, makeCurrent),
      postHistory: () => this.postHistory(),
      postContext: () => this.postContext(),
      isCurrent: (conversation) => this.conversation === conversation,
      busy: () => this.turns.isBusy,
      disposed: () => this.isDisposed,
      finished: (turn) => this.turnFinished.fire(turn),
      drain: () => this.drainQueue(),
    };
    const parts = sessionParts(deps, host, this.turns, {
      open: () => this.conversation,
      removeFrom: (conversation, index) => this.removeFrom(conversation, index),
    });
    ({ models: this.models, meter: this.meter, agentPanel: this.agentPanel, menu: this.menu } = parts);
    ({ runner: this.runner, media: this.media } = parts);
    if (parts.chatMedia) this.register(parts.chatMedia);
    for (const subscription of followForView(deps, {
      post: (message) => this.post(message),
      context: () => void this.postContext(),
      menu: () => this.postMenu(),
      agentTools: () => void this.postAgentTools(),
    }))
      this.register(subscription);
    this.register({ dispose: () => this.turns.close() });
    this.register(deps.store.onDidChange((change) => void this.followOtherWindows(change.ids)));
  }

  /**
   * Another window changed stored chats: the history list follows, and the open chat reloads
   * if it changed there and nothing is streaming here.
   */
  private async followOtherWindows(ids: string[]): Promise<void> {
    await this.postHistory();
    const open = this.conversation;
    if (!open || this.turns.isBusy || !ids.includes(open.id)) return;
    const loaded = await this.deps.store.load(open.id);
    if (!loaded || this.turns.isBusy || this.conversation !== open) return;
    if (loaded.updatedAt <= open.updatedAt && loaded.turns.length === open.turns.length) return;
    this.conversation = loaded;
    await this.sendState();
  }

  /** Connects the view; returns a function that disconnects it. */
  attach(post: Post): vscode.Disposable {
    // The view gets a card's worth of each tool result, not the model's whole copy.
    const send: Post = (message) => post(forView(message));
    this.post = send;
    this.viewAttached = true;
    return new vscode.Disposable(() => {
      if (this.post !== send) return;
      this.post = () => undefined;
      this.viewAttached = false;
    });
  }

  /** The model menu follows the model, the catalog and the settings while the view is there to show it. */
  private postMenu(): void {
    if (this.viewAttached) void this.menu?.post();
  }

  /** The tool cards' and the tool picker's intents (approvals, diffs, undo, tool choices). */
  async agentMessage(message: AgentWebviewMessage): Promise<void> {
    await this.agentPanel?.message(message);
  }

  /** The tool picker follows the model, the chat, the sources and trust. */
  private async postAgentTools(): Promise<void> {
    if (this.viewAttached) await this.agentPanel?.postTools();
  }

  /** Posts to the view, if one is attached (for intents the router answers itself). */
  postToView(message: HostMessage): void {
    this.post(message);
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
      model: this.deps.settings.current.chat.model,
      hasApiKey: !!(await this.deps.apiKey.get().catch(() => undefined)),
      history: await this.deps.store.list(),
    });
    this.runner.showCompaction(conversation);
    this.post({ type: 'workspaceTrust', restricted: !vscode.workspace.isTrusted });
    this.postQueue();
    await this.postContext();
    void this.menu?.post();
    void this.postAgentTools();
    void this.deps.modes?.show(conversation, (m) => this.post(m));
    this.media?.show(
      conversation.turns.flatMap((t) => (t.role === 'assistant' && t.media ? [t.media.jobId] : [])),
    );
  }

  /** The prompts waiting for the running turn, oldest first. */
  queued(): readonly QueuedPrompt[] {
    return this.turns.queued();
  }

  /** Replaces the text of a queued prompt (an empty text removes it). */
  editQueued(id: string, text: string): void {
    this.turns.edit(id, text);
  }

  removeQueued(id: string): void {
    this.turns.remove(id);
  }

  private postQueue(): void {
    this.post({ type: 'queue', items: this.queued().slice() });
  }

  /** Whether the current model takes images (per the catalog and the override setting). */
  imagesAllowed(): Promise<{ ok: true } | { ok: false; reason: string }> {
    return this.models.imagesAllowed();
  }

  /** The context meter: the conversation and pending attachments against the model's context. */
  postContext(): Promise<void> {
    return this.meter.post();
  }

  private async postHistory(): Promise<void> {
    this.post({ type: 'history', items: await this.deps.store.list() });
  }

  /**
   * Sends a prompt in the current conversation. While a turn runs, the prompt is queued and this
   * resolves at once; it is sent when the running turn ends. Otherwise this resolves when the
   * reply has ended.
   */
  async send(text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    // A media job runs beside the chat: it neither waits for a reply nor holds one up.
    if (this.media && mediaCommandKind(prompt)) return this.media.start(prompt);
    if (/^\/compact$/i.test(prompt)) return this.compact();
    if (this.turns.mustWait()) {
      if (!this.turns.enqueue(prompt))
        void notify.warn(`Gateway AI: ${MAX_QUEUED} prompts are already waiting; this one was not queued.`);
      return;
    }
    await this.startTurn(prompt);
  }

  /** `/compact`: the oldest turns are summarised now (between turns: it waits for none). */
  private async compact(): Promise<void> {
    if (this.turns.mustWait()) return this.post({ type: 'composerNotice', message: COMPACT_WAIT });
    await this.runner.compactNow(await this.current());
  }

  /** A button on a media card; Re-run and Variation get a card of their own. */
  async mediaAction(action: MediaCardAction, jobId: string): Promise<void> {
    await this.media?.act(action, jobId);
  }

  private async startTurn(prompt: string): Promise<void> {
    this.turns.reserve();
    let conversation: Conversation;
    try {
      conversation = await this.current();
    } catch (error) {
      this.turns.release();
      throw error;
    }
    const turn = userTurn(prompt);
    const attachments = this.deps.tray?.take() ?? [];
    if (attachments.length) turn.attachments = attachments;
    if (conversation.turns.length === 0) conversation.title = titleFrom(prompt);
    this.append(conversation, turn);
    await this.runner.reply(conversation);
  }

  /** Sends the oldest queued prompt when no turn runs and nothing else is about to start one. */
  private drainQueue(): void {
    if (!this.isDisposed) this.turns.drain();
  }

  /**
   * Stops the running reply for an operation that then starts the next turn itself (retry,
   * edit, switching chats): queued prompts wait until that turn has ended.
   */
  private stopAndClaim<T>(then: () => Promise<T>): Promise<T> {
    return this.turns.claim(then);
  }

  /** Aborts the streaming reply at once; what was written stays, marked as stopped. */
  stop(): Promise<void> {
    return this.turns.stop();
  }

  async retry(turnId: string): Promise<void> {
    // From the end of the claim to reply() starting nothing awaits, so no queued prompt slips in.
    const conversation = await this.stopAndClaim(() => this.current());
    const index = conversation.turns.findIndex((t) => t.id === turnId && t.role === 'assistant');
    if (index < 0) return this.drainQueue();
    this.removeFrom(conversation, index);
    await this.runner.reply(conversation);
  }

  async editAndResend(turnId: string, text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    const media = this.media;
    if (media && mediaCommandKind(prompt)) {
      // Like any edit, it stops the running reply first. The turns go only once the job has
      // started: a refused command leaves everything as it was.
      await this.stopAndClaim(() =>
        media.start(prompt, (conversation) => {
          const index = conversation.turns.findIndex((t) => t.id === turnId && t.role === 'user');
          if (index >= 0) this.removeFrom(conversation, index);
        }),
      );
      return this.drainQueue();
    }
    const conversation = await this.stopAndClaim(() => this.current());
    const index = conversation.turns.findIndex((t) => t.id === turnId && t.role === 'user');
    if (index < 0) return this.drainQueue();
    const edited = conversation.turns[index];
    this.removeFrom(conversation, index);
    if (conversation.turns.length === 0) conversation.title = titleFrom(prompt);
    const turn = userTurn(prompt);
    // The edited prompt keeps what it carried: the user attached it and did not remove it.
    if (edited.role === 'user' && edited.attachments?.length) turn.attachments = edited.attachments;
    this.append(conversation, turn);
    await this.runner.reply(conversation);
  }

  /** The context meter's "Drop oldest turns" (see ContextMeter); returns the ids left out. */
  leaveOutOldestTurns(promptTokens: number): Promise<string[]> {
    return this.meter.leaveOutOldest(promptTokens);
  }

  /** Sends the turns that were left out again. */
  includeLeftOutTurns(): Promise<void> {
    return this.meter.includeLeftOut();
  }

  async newChat(): Promise<void> {
    await this.stopAndClaim(() => this.switchTo(newConversation()));
    this.drainQueue();
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
    await this.stopAndClaim(() => this.switchTo(loaded));
    this.drainQueue();
  }

  async delete(id: string): Promise<void> {
    if (this.conversation?.id === id) {
      await this.stopAndClaim(async () => {
        await this.deps.store.delete(id);
        await this.switchTo(newConversation());
      });
      this.drainQueue();
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
    // A summary of turns that are gone no longer stands for them.
    if (conversation.compaction) this.runner.showCompaction(conversation);
  }

  /**
   * Saves without making the caller wait: Stop and the next turn must never hang on storage.
   * A failed save is logged; the conversation stays in memory and the next save writes it all.
   */
  private saveInBackground(conversation: Conversation, makeCurrent?: boolean): Promise<void> {
    return Promise.resolve()
      .then(() => this.deps.store.save(conversation, makeCurrent))
      .catch((error: unknown) => this.deps.logger.error('Saving the chat failed', error));
  }
}
