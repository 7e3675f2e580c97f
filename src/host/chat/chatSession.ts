import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import type { ChatImage } from '../../api/chatImages';
import type { ChatDelta, ChatMessage, ChatRequest } from '../../api/types';
import { toGatewayTool } from '../agent/agentTools';
import { forView } from '../../core/chat/viewTurns';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import { acceptsImages, capabilitiesOf, gateRequest } from '../../core/catalog/capabilities';
import { attachToMessages, estimateContext, turnsToLeaveOut } from '../../core/chat/attachments';
import type { AttachmentTray } from './attachments';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import type { AssistantTurn, HostMessage, QueuedPrompt, Turn } from '../../core/protocol/chatProtocol';
import type { AgentWebviewMessage } from '../../core/protocol/agentProtocol';
import { AgentStopped, newTally } from '../../core/agent/agentLoop';
import type { AgentTally } from '../../core/agent/agentLoop';
import { agentRequest, agentSystemPrompt, endTurn, toolSupport } from '../../core/agent/agentRequest';
import type { ChatAgent } from '../agent/chatAgent';
import type { ToolSupport } from '../../core/agent/agentRequest';
import { chatTotals, toTurnUsage, withGeneration, withSavings } from '../../core/cost/replyCost';
import type { CostTracker } from '../cost/costTracker';
import {
  assistantTurn,
  chatTurns,
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
import { MAX_QUEUED, TurnQueue } from '../../core/chat/turnQueue';
import { buildChatRequest } from '../../core/chat/requestBuilder';
import { isAbort, toTurnError } from '../../core/chat/turnError';
import { Setting } from '../../core/ids';
import { mediaCommandKind } from '../../core/mediaStudio/mediaCommand';
import type { MediaCardAction } from '../../core/protocol/mediaCardProtocol';
import { notify } from '../notify';
import { ChatMedia } from './chatMedia';
import type { ChatMediaJobs } from './chatMedia';
import type { ModelChoicesStore } from './modelChoices';
import { ChatModelMenu } from './modelMenu';
import type { InstructionFiles } from './instructionFiles';
import type { ChatModes } from './agentModes';
import {
  cleanPath,
  instructionsText,
  selectInstructions,
  touchedPaths,
} from '../../core/instructions/instructionFiles';
import type { CarriedInstruction, InstructionFile } from '../../core/instructions/instructionFiles';

const SAVE_WHILE_STREAMING_MS = 3000;
/** How long a first request waits for the model catalog before it is sent ungated. */
const CATALOG_WAIT_MS = 2000;

/** The catalog's entry for a model, when the catalog knows it (in time). */
type CatalogEntry = Parameters<typeof capabilitiesOf>[0];

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
  private readonly media: ChatMedia | undefined;
  /** Pictures each running reply drew so far (streamed `delta.images`). */
  private readonly drawn = new WeakMap<AssistantTurn, ChatImage[]>();
  /** The model menu (effort, routing, the chat's tools), where its store is wired in. */
  readonly menu: ChatModelMenu | undefined;
  /** Fires when a reply ends (completed, stopped or failed); tests and the status bar listen. */
  readonly onDidFinishTurn = this.turnFinished.event;

  constructor(
    private readonly deps: {
      gateway: GatewayService;
      store: ConversationStore;
      apiKey: ApiKeyStore;
      settings: Settings;
      logger: Logger;
      catalog?: CatalogFeature;
      tray?: AttachmentTray;
      /** Today's cost: each reply's is recorded there. */
      costs?: CostTracker;
      /** The media-jobs feature (loaded on first call), for media commands and their cards. */
      media?: () => ChatMediaJobs;
      /** The chat view's webview while it is open. */
      webview?: () => vscode.Webview | undefined;
      /** Whether the chat view is in sight. */
      visible?: () => boolean;
      /** The model menu's choices (effort and routing per model, tools per chat). */
      choices?: ModelChoicesStore;
      /** The agent: tools, approvals and undo (absent: plain replies only). */
      agent?: ChatAgent;
      /** The workspace's instruction files (AGENTS.md, rules folders). */
      instructions?: InstructionFiles;
      /** The chat's mode (Agent, Plan, Ask, a workspace agent): it only narrows a turn. */
      modes?: ChatModes;
    },
  ) {
    super();
    this.menu =
      deps.choices &&
      new ChatModelMenu({
        store: deps.choices,
        settings: deps.settings,
        catalog: deps.catalog,
        post: (message) => this.post(message),
        chatId: async () => (await this.current()).id,
        entry: (model) => this.catalogEntry(model),
      });
    const media = deps.media;
    this.media =
      media &&
      this.register(
        new ChatMedia({
          media,
          webview: () => deps.webview?.(),
          visible: () => deps.visible?.() ?? false,
          catalogEntry: (model) => this.catalogEntry(model),
          post: (message) => this.post(message),
          settings: deps.settings,
          logger: deps.logger,
        }),
      );
    if (deps.tray) this.register(deps.tray.onDidChange(() => void this.postContext()));
    if (deps.catalog)
      this.register(
        deps.catalog.catalog.onDidChange(() => {
          void this.postContext();
          this.postMenu();
        }),
      );
    this.register(deps.apiKey.onDidChange((key) => this.post({ type: 'apiKey', hasApiKey: !!key })));
    if (deps.agent) this.register(deps.agent.onDidChange(() => void this.postAgentTools()));
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() =>
        this.post({ type: 'workspaceTrust', restricted: false }),
      ),
    );
    this.register(
      deps.settings.onDidChange((change) => {
        if (change.affects(Setting.chatModel)) {
          this.post({ type: 'model', model: deps.settings.current.chat.model });
          void this.postContext();
        }
        if (
          [Setting.chatModel, Setting.agentEnabled, Setting.chatForceParameters].some((s) =>
            change.affects(s),
          )
        )
          void this.postAgentTools();
        if (
          [Setting.chatModel, Setting.chatProvider, Setting.chatPlugins, Setting.chatWebSearch].some((s) =>
            change.affects(s),
          )
        )
          this.postMenu();
      }),
    );
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
    const agent = this.deps.agent;
    if (!agent) return;
    // A decision is for the running turn: it must not wait for anything else.
    if (message.type === 'toolDecision' || message.type === 'agentPauseDecision') {
      if (this.conversation) return agent.handle(message, this.conversation, this.post, () => undefined);
      return;
    }
    const conversation = await this.current();
    await agent.handle(
      message,
      conversation,
      (m) => this.post(m),
      () => void this.saveInBackground(conversation, false),
      (turnId) => {
        const index = conversation.turns.findIndex((t) => t.id === turnId);
        if (index >= 0 && !this.turns.isBusy) this.removeFrom(conversation, index + 1);
      },
    );
  }

  /** Whether the current model may be offered tools, and why not. */
  private async toolSupport(model: string, entry?: CatalogEntry): Promise<ToolSupport> {
    const forced = this.deps.settings.current.chat.forceParameters;
    const known = entry ?? (await this.catalogEntry(model));
    return toolSupport(model, forced || capabilitiesOf(known).tools, forced);
  }

  /** The tool picker follows the model, the chat, the sources and trust. */
  private async postAgentTools(): Promise<void> {
    const agent = this.deps.agent;
    if (!agent || !this.viewAttached) return;
    const conversation = await this.current();
    const support = await this.toolSupport(this.deps.settings.current.chat.model);
    this.post({ type: 'agentTools', ...agent.pickerState(conversation.id, support) });
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
  async imagesAllowed(): Promise<{ ok: true } | { ok: false; reason: string }> {
    const settings = this.deps.settings.current.chat;
    const model = await this.catalogEntry(settings.model);
    if (acceptsImages(capabilitiesOf(model), settings.imageInput)) return { ok: true };
    return {
      ok: false,
      reason:
        settings.imageInput === 'never'
          ? 'Image attachments are turned off (gateway.chat.imageInput).'
          : `${settings.model} does not take images, according to the gateway's model catalog. Choose a model with vision, or set gateway.chat.imageInput to "always".`,
    };
  }

  /** The context meter: the conversation and pending attachments against the model's context. */
  async postContext(): Promise<void> {
    const conversation = await this.current();
    const settings = this.deps.settings.current.chat;
    const model = this.deps.catalog?.catalog.peek(settings.model);
    const pending = this.deps.tray?.list() ?? [];
    const totals = chatTotals(conversation.turns.map((t) => (t.role === 'assistant' ? t.usage : undefined)));
    this.post({
      type: 'context',
      attachments: this.deps.tray?.chips() ?? [],
      usedTokens: estimateContext(conversation.turns, settings.systemPrompt, pending),
      contextLength: model?.contextLength,
      acceptsImages: acceptsImages(capabilitiesOf(model), settings.imageInput),
      cost: totals.cost,
      saved: totals.saved,
    });
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
    if (this.media && mediaCommandKind(prompt)) return this.startMedia(this.media, prompt);
    if (this.turns.mustWait()) {
      if (!this.turns.enqueue(prompt))
        void notify.warn(`Gateway AI: ${MAX_QUEUED} prompts are already waiting; this one was not queued.`);
      return;
    }
    await this.startTurn(prompt);
  }

  /**
   * Starts a media job from a media command and shows the command and the job's card. A command
   * that cannot run (a bad flag, a model that makes no video) or a job the gateway refuses adds
   * nothing: the view is told why, and what was typed stays in the composer.
   */
  private async startMedia(
    media: ChatMedia,
    text: string,
    beforeAppend?: (conversation: Conversation) => void,
  ): Promise<void> {
    const planned = await media.plan(text);
    if (!planned) return;
    if (!planned.ok) {
      this.post({ type: 'composerNotice', message: planned.error });
      return;
    }
    let jobId: string;
    try {
      jobId = await media.start(planned.plan);
    } catch (error) {
      this.deps.logger.warn(`A media job from the chat was not started: ${(error as Error).message}`);
      this.post({
        type: 'composerNotice',
        message: `The media job was not started. ${toTurnError(error).message}`,
      });
      return;
    }
    const conversation = await this.current();
    beforeAppend?.(conversation);
    if (conversation.turns.length === 0) conversation.title = titleFrom(planned.plan.prompt);
    this.append(conversation, userTurn(text));
    this.addCard(conversation, media, jobId, planned.plan);
  }

  /** A reply turn that shows the media job's card. */
  private addCard(
    conversation: Conversation,
    media: ChatMedia,
    jobId: string,
    job: { kind: NonNullable<AssistantTurn['media']>['kind']; prompt: string; model: string },
  ): void {
    const card = assistantTurn(job.model);
    card.status = 'complete';
    card.media = { jobId, kind: job.kind, prompt: job.prompt };
    this.append(conversation, card);
    media.add(jobId);
    void this.saveInBackground(conversation).then(() => this.postHistory());
  }

  /** A button on a media card; Re-run and Variation get a card of their own. */
  async mediaAction(action: MediaCardAction, jobId: string): Promise<void> {
    if (!this.media) return;
    const started = await this.media.act(action, jobId);
    if (!started) return;
    const conversation = await this.current();
    const from = conversation.turns.find((t) => t.role === 'assistant' && t.media?.jobId === jobId);
    if (from?.role !== 'assistant' || !from.media) return;
    this.addCard(conversation, this.media, started, { ...from.media, model: from.model });
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
    await this.reply(conversation);
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
    await this.reply(conversation);
  }

  async editAndResend(turnId: string, text: string): Promise<void> {
    const prompt = text.trim();
    if (!prompt) return;
    const media = this.media;
    if (media && mediaCommandKind(prompt)) {
      // Like any edit, it stops the running reply first. The turns go only once the job has
      // started: a refused command leaves everything as it was.
      await this.stopAndClaim(() =>
        this.startMedia(media, prompt, (conversation) => {
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
    await this.reply(conversation);
  }

  /**
   * The context meter's "Drop oldest turns": leaves just enough of the oldest exchanges out of
   * what is sent that the conversation, the pending attachments and a prompt of `promptTokens`
   * fit the model's context. They stay in the chat, marked, and can be included again; nothing
   * is deleted. Returns the ids left out.
   */
  async leaveOutOldestTurns(promptTokens: number): Promise<string[]> {
    const conversation = await this.current();
    const settings = this.deps.settings.current.chat;
    const contextLength = this.deps.catalog?.catalog.peek(settings.model)?.contextLength;
    if (!contextLength) {
      void notify.info(
        `Gateway AI: the model catalog does not give ${settings.model}'s context length, so nothing was left out.`,
      );
      return [];
    }
    if (this.turns.isBusy) {
      void notify.info('Gateway AI: wait for the reply to finish, then drop the oldest turns.');
      return [];
    }
    const pending = this.deps.tray?.list() ?? [];
    const ids = new Set(
      turnsToLeaveOut(conversation.turns, settings.systemPrompt, pending, promptTokens, contextLength),
    );
    for (const turn of conversation.turns) {
      if (!ids.has(turn.id)) continue;
      turn.leftOut = true;
      this.post({ type: 'turnUpdated', turn });
    }
    const still = estimateContext(conversation.turns, settings.systemPrompt, pending) + promptTokens;
    if (still > contextLength)
      void notify.warn(
        `Gateway AI: even without the earlier turns, the prompt and attachments are about ${still} tokens, more than ${settings.model}'s ${contextLength}. Remove attachments or shorten the prompt.`,
      );
    if (ids.size) {
      conversation.updatedAt = Date.now();
      void this.saveInBackground(conversation);
    }
    await this.postContext();
    return [...ids];
  }

  /** Sends the turns that were left out again. */
  async includeLeftOutTurns(): Promise<void> {
    const conversation = await this.current();
    let changed = false;
    for (const turn of conversation.turns) {
      if (!turn.leftOut) continue;
      delete turn.leftOut;
      changed = true;
      this.post({ type: 'turnUpdated', turn });
    }
    if (!changed) return;
    conversation.updatedAt = Date.now();
    void this.saveInBackground(conversation);
    await this.postContext();
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

  /** Streams the assistant's reply to the conversation as it stands. */
  private async reply(conversation: Conversation): Promise<void> {
    this.turns.reserve();
    const mode = await this.deps.modes?.forTurn(conversation);
    const settings = mode?.settings ?? this.deps.settings.current;
    const turn = assistantTurn(settings.chat.model);
    if (mode?.plan) turn.plan = true;
    const images =
      (await this.deps.tray?.readImages(
        conversation.turns.flatMap((t) => (t.role === 'user' ? (t.attachments ?? []) : [])),
      )) ?? new Map<string, string>();
    const turns = chatTurns(conversation.turns);
    this.append(conversation, turn);
    void this.saveInBackground(conversation).then(() => this.postHistory());

    const running = this.turns.begin(turn.id);
    const abort = { signal: running.signal };
    const batcher = new DeltaBatcher(turn.id, (m) => this.post(m));
    let saved: Promise<void> = Promise.resolve();
    /** The reply's id (the X-Generation-Id header or the chunks' id), to find its cost if it has none. */
    let generationId: string | undefined;
    /** An agent turn's usage and generations, however it ends. */
    let tally: AgentTally | undefined;
    const requested = turn.model;
    try {
      if (!(await this.deps.apiKey.get())) {
        throw new GatewayError({
          kind: 'config',
          message: "No API key is set. Set one with 'Gateway AI: Set API Key', then retry.",
        });
      }
      // The catalog is waited for once per turn (up to CATALOG_WAIT_MS), not once per step.
      const entry = await this.catalogEntry(settings.chat.model);
      const support = this.deps.agent ? await this.toolSupport(settings.chat.model, entry) : undefined;
      const offered = support && this.deps.agent?.toolsFor(conversation.id, support);
      const tools = mode ? mode.narrow(offered) : offered;
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.name);
      const systemPrompt = joinPrompt(
        tools ? agentSystemPrompt(settings.chat.systemPrompt, folders) : settings.chat.systemPrompt,
        mode?.prompt ?? '',
      );
      // The project's instruction files go after our own prompt, never above it: the always-on
      // ones, and those the prompt's attachments match; the agent adds those its reads and
      // edits match, step by step.
      const instructions = await this.instructionsFor(conversation, turn);
      const messages = attachToMessages(
        toApiMessages(turns, joinPrompt(systemPrompt, instructionsText(instructions.carried))),
        turns,
        (a) => (a.file ? images.get(a.file) : undefined),
      );
      let savedAt = Date.now();
      const saveNowAndThen = () => {
        // A long reply is saved now and then, so a window closed mid-stream keeps most of it.
        if (Date.now() - savedAt <= SAVE_WHILE_STREAMING_MS) return;
        savedAt = Date.now();
        void this.saveInBackground(conversation, false);
      };
      const stream = async (sent: ChatMessage[], offered?: ChatRequest['tools'], signal = abort.signal) => {
        const built = buildChatRequest(settings.chat, turn.model, sent);
        const applied = this.menu ? await this.menu.apply(built, conversation.id) : built;
        const gated = await this.gatedRequest(offered ? agentRequest(applied, offered) : applied, entry);
        // A model that draws sends its pictures only when asked to (OpenRouter: `delta.images`).
        const request = drawsImages(entry) ? { ...gated, modalities: ['image', 'text'] } : gated;
        return this.deps.gateway.client().streamChat(request, { signal });
      };
      if (tools && this.deps.agent) {
        tally = newTally();
        const result = await this.deps.agent.run({
          tally,
          conversation,
          turn,
          history: messages,
          tools,
          maxSteps: mode?.maxSteps,
          contextLength: this.deps.catalog?.catalog.peek(turn.model)?.contextLength,
          signal: abort.signal,
          request: (sent, specs, signal) => lazyStream(() => stream(sent, specs.map(toGatewayTool), signal)),
          apply: (delta) => {
            if (delta.type === 'usage' || delta.type === 'tool_calls') return;
            if (delta.type === 'meta') generationId = delta.id ?? generationId;
            this.apply(turn, delta, batcher);
            saveNowAndThen();
          },
          flush: () => batcher.flush(),
          post: (m) => this.post(m),
          save: saveNowAndThen,
          prepare: (sent, steps) => {
            const touched = touchedPaths(
              steps.flatMap((step) => step.calls.filter((call) => call.state === 'done')),
            );
            const carried = instructions.carry(touched);
            if (!carried) return sent;
            const system = joinPrompt(systemPrompt, instructionsText(carried));
            return sent[0]?.role === 'system'
              ? [{ ...sent[0], content: system }, ...sent.slice(1)]
              : [{ role: 'system', content: system }, ...sent];
          },
          spentToday: () => this.deps.costs?.today().total ?? 0,
        });
        endTurn(turn, result);
      } else {
        for await (const delta of await stream(messages)) {
          if (delta.type === 'meta') generationId ??= delta.id;
          this.apply(turn, delta, batcher);
          saveNowAndThen();
        }
        turn.status = 'complete';
      }
    } catch (error) {
      if (abort.signal.aborted || isAbort(error) || error instanceof AgentStopped) {
        turn.status = 'stopped';
      } else {
        turn.status = 'error';
        turn.error = toTurnError(error);
        if (turn.error.status === 402) await this.addCredit(turn);
        this.deps.logger.warn(`Chat request failed: ${turn.error.message}`);
      }
    } finally {
      batcher.flush();
      // An agent turn's usage is every request's, however the turn ended.
      if (tally?.usage) turn.usage = toTurnUsage(tally.usage);
      if (turn.usage) turn.usage = withSavings(turn.usage, this.pricing(requested));
      conversation.updatedAt = Date.now();
      this.post({ type: 'turnUpdated', turn });
      // Stop and the next turn wait for this, never for the disk: a save that fails is
      // reported and retried by the store, in order, without holding anyone up.
      saved = this.saveInBackground(conversation);
      running.end();
      void this.showDrawn(conversation, turn);
      this.turnFinished.fire(turn);
      void saved.then(() => this.postHistory());
      if (turn.usage?.cost !== undefined) {
        this.deps.costs?.record('panel', turn.usage.cost);
        void this.deps.catalog?.credits.update();
      }
      // Requests whose stream carried no cost are priced from their generation records.
      const unpriced = tally
        ? tally.generations.filter((g) => !g.priced).map((g) => g.id)
        : turn.usage?.cost === undefined && generationId
          ? [generationId]
          : [];
      if (unpriced.length) void this.costFromGeneration(conversation, turn, unpriced, requested);
      void this.postContext();
      this.drainQueue();
    }
    // The caller (a command, a test) hears of the reply once it is stored, if storage allows.
    await saved;
  }

  /**
   * The instruction files of a turn: those that go with its first request (set on the turn as
   * chips), and `carry`, which gives the set for the paths touched so far when it grew (and
   * updates the chips), or undefined when it did not.
   */
  private async instructionsFor(
    conversation: Conversation,
    turn: AssistantTurn,
  ): Promise<{ carried: CarriedInstruction[]; carry(touched: string[]): CarriedInstruction[] | undefined }> {
    const source = this.deps.instructions;
    let files: InstructionFile[] = [];
    try {
      files = (await source?.load()) ?? [];
    } catch (error) {
      this.deps.logger.warn(`Instruction files could not be read: ${String(error)}`);
    }
    const off = source?.off() ?? new Set<string>();
    const prompt = [...conversation.turns].reverse().find((t) => t.role === 'user');
    const attached = (prompt?.role === 'user' ? (prompt.attachments ?? []) : []).flatMap((a) =>
      a.path && (a.kind === 'file' || a.kind === 'selection')
        ? [cleanPath(a.path.replace(/:\d+-\d+$/, ''))]
        : [],
    );
    const show = (carried: CarriedInstruction[]) => {
      if (!carried.length) return;
      turn.instructions = carried.map(({ path, reason, tokens, cut, dropped }) => ({
        path,
        reason,
        tokens,
        ...(cut ? { cut } : {}),
        ...(dropped ? { dropped } : {}),
      }));
    };
    let carried = selectInstructions(files, attached, off);
    show(carried);
    const key = (list: CarriedInstruction[]) => list.map((c) => c.path).join('\u0000');
    return {
      carried,
      carry: (touched) => {
        if (!files.length || !touched.length) return undefined;
        const next = selectInstructions(files, [...attached, ...touched], off);
        if (key(next) === key(carried)) return undefined;
        carried = next;
        show(carried);
        this.post({ type: 'turnUpdated', turn });
        return carried;
      },
    };
  }

  /**
   * Leaves out what the model cannot take (per the catalog), unless the user forces it. The
   * catalog is waited for briefly: a slow gateway catalog must not hold up the chat.
   */
  private async gatedRequest(request: ChatRequest, known?: CatalogEntry): Promise<ChatRequest> {
    const catalog = this.deps.catalog?.catalog;
    if (!catalog) return request;
    const model = known ?? (await this.catalogEntry(request.model));
    const { request: gated, dropped } = gateRequest(
      request,
      capabilitiesOf(model),
      this.deps.settings.current.chat.forceParameters,
    );
    if (dropped.length)
      this.deps.logger.info(
        `Not sent to ${request.model}, which does not support them: ${dropped.join(', ')}.`,
      );
    return gated;
  }

  private async catalogEntry(id: string): Promise<CatalogEntry> {
    const catalog = this.deps.catalog?.catalog;
    if (!catalog) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    return (
      catalog.peek(id) ??
      (await Promise.race([
        catalog.get(id),
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CATALOG_WAIT_MS))),
      ]).finally(() => clearTimeout(timer)))
    );
  }

  private pricing(model: string) {
    return this.deps.catalog?.catalog.peek(model)?.pricing;
  }

  /**
   * A reply whose stream carried no cost: its generation record says, a few seconds later. The
   * turn shows it then, and today's total counts it, even if the turn was removed meanwhile.
   */
  private async costFromGeneration(
    conversation: Conversation,
    turn: AssistantTurn,
    ids: readonly string[],
    model: string,
  ): Promise<void> {
    const costs = this.deps.costs;
    if (!costs) return;
    const found = (await Promise.all(ids.map((id) => costs.generation(id)))).filter(
      (g): g is NonNullable<typeof g> => g !== undefined,
    );
    if (!found.length || this.isDisposed) return;
    const before = turn.usage?.cost ?? 0;
    if (ids.length === 1 && turn.usage?.cost === undefined)
      turn.usage = withSavings(withGeneration(turn.usage, found[0]), this.pricing(model));
    else {
      const extra = found.reduce((sum, g) => sum + (g.totalCost ?? 0), 0);
      turn.usage = { ...turn.usage, cost: before + extra };
    }
    const added = (turn.usage.cost ?? 0) - before;
    if (added > 0) costs.record('panel', added);
    if (!conversation.turns.includes(turn)) return;
    if (this.conversation === conversation) this.post({ type: 'turnUpdated', turn });
    void this.saveInBackground(conversation, false);
    void this.postContext();
  }

  /** A 402 says how much credit is left, where the gateway tells. */
  private async addCredit(turn: AssistantTurn): Promise<void> {
    const credit = await this.deps.catalog?.credits.update(true).catch(() => undefined);
    const line = credit && this.deps.catalog?.credits.describe();
    if (line && turn.error) turn.error.message += ` Remaining: ${line}.`;
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
        turn.usage = toTurnUsage(delta.usage);
        break;
      case 'annotations': {
        // Parsed at the client's boundary: every annotation is a URL citation with a string url.
        const citations = delta.annotations.map(({ url_citation: c }) => ({ url: c.url, title: c.title }));
        turn.citations = [...(turn.citations ?? []), ...citations].filter(
          (c, i, all) => all.findIndex((o) => o.url === c.url) === i,
        );
        break;
      }
      case 'images': {
        // Kept beside the turn, never in it: the pictures become a media job when the turn ends.
        const drawn = this.drawn.get(turn) ?? [];
        this.drawn.set(turn, [...drawn, ...delta.images]);
        break;
      }
      case 'reasoning_details':
        break;
    }
  }

  /**
   * The pictures a reply drew become a completed media job, shown as a card after the reply (and
   * in the gallery). The prompt is the user's turn before the reply.
   */
  private async showDrawn(conversation: Conversation, turn: AssistantTurn): Promise<void> {
    const images = this.drawn.get(turn);
    this.drawn.delete(turn);
    const media = this.media;
    if (!images?.length || !media) return;
    const index = conversation.turns.indexOf(turn);
    const asked = conversation.turns
      .slice(0, index)
      .reverse()
      .find((t) => t.role === 'user');
    const prompt = asked?.role === 'user' ? asked.content : '';
    try {
      const jobId = await media.adoptImages(images, prompt, turn.model);
      if (conversation.turns.includes(turn))
        this.addCard(conversation, media, jobId, { kind: 'image', prompt, model: turn.model });
    } catch (error) {
      this.deps.logger.warn(`The pictures of a reply could not be kept: ${(error as Error).message}`);
    }
  }
}

/** Whether the catalog says the model draws pictures as well as writing. */
function drawsImages(entry: CatalogEntry): boolean {
  return !!entry?.outputModalities.includes('image');
}

/** Our system prompt, then the project's instructions below it. */
function joinPrompt(system: string, instructions: string): string {
  return [system.trim() ? system : '', instructions].filter(Boolean).join('\n\n');
}

/** A stream that is made when it is first read: the request goes out when the loop reads it. */
async function* lazyStream(make: () => Promise<AsyncIterable<ChatDelta>>): AsyncGenerator<ChatDelta> {
  yield* await make();
}
