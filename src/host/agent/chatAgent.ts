import * as vscode from 'vscode';
import type { ChatDelta, ChatMessage } from '../../api/types';
import { runAgentLoop } from '../../core/agent/agentLoop';
import type { AgentResult, AgentTally } from '../../core/agent/agentLoop';
import type { ToolSupport } from '../../core/agent/agentRequest';
import type {
  AgentProgress,
  AgentStep,
  AgentToolChoices,
  FileChange,
  ToolSpec,
} from '../../core/agent/types';
import { estimateTokens } from '../../core/chat/attachments';
import type { Conversation } from '../../core/chat/conversation';
import { StorageKey } from '../../core/ids';
import { parseAgentToolChoices } from '../../core/protocol/agentProtocol';
import type { AgentToolsState, AgentWebviewMessage } from '../../core/protocol/agentProtocol';
import type { AssistantTurn, HostMessage } from '../../core/protocol/chatProtocol';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import type { AgentToolProvider } from './agentTools';
import { TurnTools, sourceViews } from './agentTools';
import { Approvals } from './approvals';
import { mergeChanges } from '../../core/agent/changes';
import { undoTurnChanges } from './turnUndo';
import { toolSettings } from './builtinTools';
import type { WorkspaceCheckpoints } from './checkpoints/workspaceCheckpoints';
import type { PreparedCall, ToolSet } from '../../core/agent/types';
import type { UserTurn } from '../../core/protocol/chatProtocol';

/** Most chats whose tool-picker choices are kept; the oldest go first. */
const MAX_CHATS_WITH_CHOICES = 200;

export interface ChatAgentDeps {
  /** Our own tools first, then MCP servers', then other extensions'. */
  providers: readonly AgentToolProvider[];
  state: vscode.Memento;
  settings: Settings;
  logger: Logger;
  /** Brings the chat view into sight (a call is waiting for the user). */
  reveal: () => void;
  /** Snapshots of the workspace before each step's first change (absent: no checkpoints). */
  checkpoints?: WorkspaceCheckpoints;
}

/** One agent turn's wiring from the session: how to ask the gateway, and where the turn shows. */
export interface AgentTurnRun {
  conversation: Conversation;
  turn: AssistantTurn;
  history: ChatMessage[];
  tools: TurnTools;
  /** The turn's step cap, when its mode lowers the user's. */
  maxSteps?: number;
  contextLength?: number;
  signal: AbortSignal;
  /** Where the loop keeps the turn's usage and generations, read however the turn ends. */
  tally: AgentTally;
  request(messages: ChatMessage[], tools: readonly ToolSpec[], signal: AbortSignal): AsyncIterable<ChatDelta>;
  /** A delta of the step streaming now (text, reasoning, meta…), as a plain reply applies it. */
  apply(delta: ChatDelta): void;
  /** Posts what is batched, before a step's cards. */
  flush(): void;
  post(message: HostMessage): void;
  /** Saves the conversation in the background. */
  save(): void;
  /** A last look at each request (the project instructions the touched files bring in). */
  prepare?(this: void, messages: ChatMessage[], steps: readonly AgentStep[]): ChatMessage[];
  /** What today cost so far (every window and feature), for the daily cap. */
  spentToday?(): number;
}

/**
 * The panel's agent: which tools a chat has, the picker, the approvals, and undo. The loop
 * itself is the pure core's (`core/agent/agentLoop`); this maps its events onto the turn and the
 * view, and answers the view's agent intents.
 */
export class ChatAgent extends Disposable {
  readonly approvals: Approvals;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** The picker's state changed (tools came or went, trust changed, a server started). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: ChatAgentDeps) {
    super();
    this.approvals = this.register(new Approvals(deps.reveal, deps.logger, deps.state, deps.settings));
    for (const provider of deps.providers)
      if (provider.onDidChange) this.register(provider.onDidChange(() => this.changed.fire()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()));
  }

  choices(chatId: string): AgentToolChoices {
    return this.allChoices()[chatId] ?? {};
  }

  async setChoices(chatId: string, choices: AgentToolChoices): Promise<void> {
    const all = this.allChoices();
    delete all[chatId];
    const entries = [...Object.entries(all), [chatId, choices] as const].slice(-MAX_CHATS_WITH_CHOICES);
    await this.deps.state.update(StorageKey.agentToolChoices, Object.fromEntries(entries));
    this.changed.fire();
  }

  private allChoices(): Record<string, AgentToolChoices> {
    const raw = this.deps.state.get<unknown>(StorageKey.agentToolChoices);
    const out: Record<string, AgentToolChoices> = {};
    if (raw && typeof raw === 'object' && !Array.isArray(raw))
      for (const [id, value] of Object.entries(raw as Record<string, unknown>))
        if (id.length <= 200 && id !== '__proto__') out[id] = parseAgentToolChoices(value);
    return out;
  }

  /** Turns an MCP server on (it starts: the user saw its command line in the picker) or off. */
  async setSourceEnabled(sourceId: string, enabled: boolean): Promise<void> {
    for (const provider of this.deps.providers) {
      if (!provider.setEnabled || !provider.sources().some((s) => s.source.id === sourceId)) continue;
      try {
        await provider.setEnabled(sourceId, enabled);
      } catch (error) {
        this.deps.logger.warn(
          `Tool source ${sourceId} could not be ${enabled ? 'started' : 'stopped'}: ${String(error)}`,
        );
      }
    }
    this.changed.fire();
  }

  /** The picker's state for a chat and the model's tool support. */
  pickerState(chatId: string, support: ToolSupport): AgentToolsState {
    const choices = this.choices(chatId);
    const enabled = this.deps.settings.current.agent.enabled;
    const state: AgentToolsState = {
      available: support.available && enabled,
      off: choices.off === true,
      restricted: !vscode.workspace.isTrusted,
      sources: sourceViews(this.deps.providers, choices),
    };
    const reason = enabled ? support.reason : 'Tools are turned off (gateway.agent.enabled).';
    if (!state.available && reason) state.reason = reason;
    return state;
  }

  /** The tools a turn of this chat may use, or undefined for a plain reply. */
  toolsFor(chatId: string, support: ToolSupport): TurnTools | undefined {
    if (!support.available || !this.deps.settings.current.agent.enabled) return undefined;
    const choices = this.choices(chatId);
    if (choices.off) return undefined;
    const tools = new TurnTools(this.deps.providers, choices, !vscode.workspace.isTrusted);
    return tools.specs().length ? tools : undefined;
  }

  /** Runs the loop for one turn, keeping the turn, the view and the stored changes in step. */
  async run(run: AgentTurnRun): Promise<AgentResult> {
    const { turn, conversation } = run;
    turn.steps = [];
    const postStep = (index: number) => {
      const step = turn.steps?.[index];
      if (step && turn.agent)
        run.post({ type: 'agentStep', turnId: turn.id, index, step, progress: turn.agent });
    };
    const usedIds = new Set(
      conversation.turns.flatMap((t) =>
        t.role === 'assistant' ? (t.steps ?? []).flatMap((step) => step.calls.map((c) => c.id)) : [],
      ),
    );
    const guard = this.checkpointGuard(run);
    return runAgentLoop(
      run.history,
      {
        usedIds,
        request: (messages, tools, signal) => run.request(messages, tools, signal),
        tools: guard.tools,
        needsApproval: (spec, call, prepared) =>
          this.approvals.needsApproval(conversation.id, spec, call, prepared),
        approve: (call, prepared, signal, spec) =>
          this.approvals.ask(conversation.id, turn.id, spec, call, prepared, signal),
        events: {
          delta: (delta) => run.apply(delta),
          stepAdded: (_index, step, progress) => {
            // The step's text streamed as the turn's; it now belongs to the step, and the next
            // step's text starts afresh.
            run.flush();
            guard.step = _index;
            turn.steps = [...(turn.steps ?? []), step];
            turn.content = '';
            turn.reasoning = '';
            turn.agent = progress;
            run.post({ type: 'turnUpdated', turn });
            run.save();
          },
          stepChanged: (index, _step, progress) => {
            turn.agent = progress;
            postStep(index);
            run.save();
          },
          changed: (changes) => this.recordChanges(conversation, turn, changes),
        },
        now: () => Date.now(),
        maxSteps: run.maxSteps ?? this.deps.settings.current.agent.maxSteps,
        prepare: run.prepare,
        budget: {
          maxTurnCost: this.deps.settings.current.agent.maxTurnCost,
          maxDailyCost: this.deps.settings.current.agent.maxDailyCost,
          spentToday: () => run.spentToday?.() ?? 0,
        },
        askToContinue: (progress, signal) => this.askToContinue(turn, run, progress, signal),
        contextLength: run.contextLength,
        estimateTokens: (messages) =>
          messages.reduce(
            (sum, m) =>
              sum +
              estimateTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')) +
              (m.tool_calls ? estimateTokens(JSON.stringify(m.tool_calls)) : 0),
            0,
          ),
      },
      run.signal,
      run.tally,
    );
  }

  /**
   * The turn's tools, with a snapshot of the workspace before the first change of each step: a
   * call that is not read-only waits for it (never longer than the time budget) before it runs.
   * The turn's first snapshot starts at once, beside the first request, and becomes the
   * prompt's checkpoint (*Restore to here*); a snapshot that cannot finish says so on the prompt.
   */
  private checkpointGuard(run: AgentTurnRun): { tools: ToolSet; step: number } {
    const checkpoints = this.deps.checkpoints;
    const tools = run.tools;
    const state = { tools: tools as ToolSet, step: 0 };
    if (!checkpoints || !vscode.workspace.isTrusted || tools.specs().every((s) => s.readOnly)) return state;
    const index = run.conversation.turns.indexOf(run.turn);
    const prompt = run.conversation.turns
      .slice(0, index < 0 ? undefined : index)
      .reverse()
      .find((t): t is UserTurn => t.role === 'user');
    const record = (update: (p: UserTurn) => void) => {
      if (!prompt) return;
      update(prompt);
      run.post({ type: 'turnUpdated', turn: prompt });
      run.save();
    };
    let first: Promise<void> | undefined = checkpoints
      .take(`before the reply to ${prompt?.id ?? 'a prompt'}`)
      .then((outcome) =>
        record((p) => {
          if (outcome.ok) {
            p.checkpoint = outcome.id;
            delete p.checkpointNote;
            delete p.redoCheckpoint;
          } else p.checkpointNote = outcome.reason;
        }),
      );
    let guarded = -1;
    let pending: Promise<void> = Promise.resolve();
    const beforeChange = (): Promise<void> => {
      if (guarded === state.step) return pending;
      guarded = state.step;
      const step = state.step;
      const waitFor = first;
      first = undefined;
      pending = waitFor
        ? waitFor
        : checkpoints.take(`before step ${step + 1} of ${run.turn.id}`).then((outcome) => {
            if (!outcome.ok)
              this.deps.logger.warn(`No checkpoint before step ${step + 1}: ${outcome.reason}`);
          });
      return pending;
    };
    state.tools = {
      specs: () => tools.specs(),
      prepare: async (name, args, signal): Promise<PreparedCall> => {
        const prepared = await tools.prepare(name, args, signal);
        if (tools.specs().find((s) => s.name === name)?.readOnly !== false) return prepared;
        return {
          ...prepared,
          run: async (runSignal) => {
            await beforeChange();
            // Stopped while the snapshot ran: the change does not start.
            if (runSignal.aborted) throw new Error('The turn was stopped.');
            return prepared.run(runSignal);
          },
        };
      },
    };
    return state;
  }

  private recordChanges(
    conversation: Conversation,
    turn: AssistantTurn,
    changes: readonly FileChange[],
  ): void {
    const all = conversation.changes ?? (Object.create(null) as Record<string, FileChange[]>);
    const folders = vscode.workspace.workspaceFolders ?? [];
    // Each change names its folder's URI: undo writes there or nowhere (chats outlive workspaces).
    const located = changes.map((c) => ({
      ...c,
      folderUri: c.folderUri ?? folders[c.folder]?.uri.toString(),
    }));
    all[turn.id] = mergeChanges(changesOf(conversation, turn.id) ?? [], located);
    conversation.changes = all;
    turn.edited = all[turn.id].map((c) => c.path);
  }

  /** A restore (or redo) under way: a second click does nothing until it ends. */
  private restoring = false;

  /**
   * *Restore to here* on a prompt: the workspace's files go back to the prompt's checkpoint
   * (after a confirmation listing them), and with "files and conversation" the turns after the
   * prompt go too. *Redo* puts the files forward to the snapshot taken just before.
   */
  private async restore(
    redo: boolean,
    turnId: string,
    conversation: Conversation,
    post: (message: HostMessage) => void,
    save: () => void,
    removeAfter: (turnId: string) => void,
  ): Promise<void> {
    const checkpoints = this.deps.checkpoints;
    const turn = conversation.turns.find((t) => t.id === turnId);
    if (!checkpoints || turn?.role !== 'user' || this.restoring) return;
    const id = redo ? turn.redoCheckpoint : turn.checkpoint;
    if (!id) return;
    if (!vscode.workspace.isTrusted) {
      void notify.info('Gateway AI: this workspace is in Restricted Mode, where no files are restored.');
      return;
    }
    if (conversation.turns.some((t) => t.role === 'assistant' && t.status === 'streaming')) {
      void notify.info('Gateway AI: wait for the reply to end (or stop it), then restore.');
      return;
    }
    this.restoring = true;
    try {
      const outcome = await checkpoints.restore(id, { offerConversation: !redo, redo });
      if (!outcome.done) {
        if (outcome.reason) void notify.warn(`Gateway AI: nothing was restored. ${outcome.reason}`);
        return;
      }
      if (redo) delete turn.redoCheckpoint;
      else turn.redoCheckpoint = outcome.redoId;
      post({ type: 'turnUpdated', turn });
      if (outcome.conversation) removeAfter(turn.id);
      save();
    } catch (error) {
      this.deps.logger.warn(`Restoring a checkpoint failed: ${String(error)}`);
      void notify.warn(
        `Gateway AI: the restore failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.restoring = false;
    }
  }

  /** Turns paused at a cap, waiting for the user's answer. */
  private readonly pauses = new Map<string, (goOn: boolean) => void>();

  /** Shows the pause on the turn's counter and waits for Continue or Stop (or the turn's Stop). */
  private askToContinue(
    turn: AssistantTurn,
    run: AgentTurnRun,
    progress: AgentProgress,
    signal: AbortSignal,
  ): Promise<boolean> {
    turn.agent = progress;
    run.post({ type: 'turnUpdated', turn });
    this.deps.reveal();
    return new Promise<boolean>((resolve, reject) => {
      const done = (goOn: boolean) => {
        signal.removeEventListener('abort', onAbort);
        this.pauses.delete(turn.id);
        const { pause: _answered, ...rest } = progress;
        turn.agent = rest;
        run.post({ type: 'turnUpdated', turn });
        resolve(goOn);
      };
      const onAbort = () => {
        this.pauses.delete(turn.id);
        reject(new Error('The turn was stopped.'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pauses.set(turn.id, done);
    });
  }

  /** Turns whose undo is under way: a second click does nothing. */
  private readonly undoing = new Set<string>();

  /** The view's agent intents that need the conversation. */
  async handle(
    message: AgentWebviewMessage,
    conversation: Conversation,
    post: (message: HostMessage) => void,
    save: () => void,
    /** Removes the turns after this one (a restore of the files and the conversation). */
    removeAfter: (turnId: string) => void = () => undefined,
  ): Promise<void> {
    switch (message.type) {
      case 'restoreCheckpoint':
      case 'redoCheckpoint':
        return this.restore(
          message.type === 'redoCheckpoint',
          message.turnId,
          conversation,
          post,
          save,
          removeAfter,
        );
      case 'toolDecision':
        if (
          !this.approvals.decide(message.turnId, message.callId, {
            choice: message.choice,
            ...(message.reason ? { reason: message.reason } : {}),
          })
        )
          this.deps.logger.info('A tool decision arrived for a call that is not waiting; it was ignored.');
        return;
      case 'openToolDiff': {
        const turn = conversation.turns.find((t) => t.id === message.turnId);
        const call =
          turn?.role === 'assistant'
            ? turn.steps?.flatMap((s) => s.calls).find((c) => c.id === message.callId)
            : undefined;
        const path = call?.confirmation?.kind === 'edit' ? call.confirmation.path : undefined;
        const change = changesOf(conversation, message.turnId)?.find((c) => c.path === path);
        this.approvals.openDiff(
          message.callId,
          change && {
            path: change.path,
            folder: change.folder,
            before: change.before ?? '',
            after: change.after,
          },
        );
        return;
      }
      case 'undoTurn': {
        const turn = conversation.turns.find((t) => t.id === message.turnId);
        const changes = changesOf(conversation, message.turnId);
        if (turn?.role !== 'assistant' || !changes?.length || turn.undone || this.undoing.has(turn.id))
          return;
        if (turn.status === 'streaming') {
          void notify.info('Gateway AI: wait for the turn to end (or stop it), then undo it.');
          return;
        }
        this.undoing.add(turn.id);
        const outcome = await undoTurnChanges(
          changes,
          () => toolSettings(this.deps.settings).secretPatterns,
        ).finally(() => this.undoing.delete(turn.id));
        if (!outcome.undone) {
          if (outcome.reason !== 'Cancelled.')
            void notify.warn(`Gateway AI: the turn was not undone. ${outcome.reason}`);
          return;
        }
        turn.undone = true;
        post({ type: 'turnUpdated', turn });
        save();
        return;
      }
      case 'setAgentTools':
        return this.setChoices(conversation.id, message.choices);
      case 'setToolSource':
        return this.setSourceEnabled(message.sourceId, message.enabled);
      case 'agentPauseDecision': {
        const answer = this.pauses.get(message.turnId);
        if (answer) answer(message.choice === 'continue');
        else this.deps.logger.info('A pause decision arrived for a turn that is not paused; it was ignored.');
        return;
      }
    }
  }
}

/** A turn's stored changes (own keys only: a turn id like `constructor` is not an inherited field). */
function changesOf(conversation: Conversation, turnId: string): FileChange[] | undefined {
  const all = conversation.changes;
  return all && Object.hasOwn(all, turnId) ? all[turnId] : undefined;
}
