import * as vscode from 'vscode';
import { NO_COMMANDS_NOTE } from '../../core/agent/agentRequest';
import type { ToolSupport } from '../../core/agent/agentRequest';
import type { AgentProgress, AgentToolChoices, FileChange } from '../../core/agent/types';
import type { Conversation } from '../../core/chat/conversation';
import { StorageKey } from '../../core/ids';
import { parseAgentToolChoices } from '../../core/protocol/agentProtocol';
import type { AgentToolsState, AgentWebviewMessage } from '../../core/protocol/agentProtocol';
import type { AssistantTurn, HostMessage } from '../../core/protocol/chatProtocol';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { HOST_PLATFORM } from '../platform';
import type { AgentToolProvider } from './agentTools';
import { TurnTools, sourceViews } from './agentTools';
import { Approvals } from './approvals';
import { mergeChanges } from '../../core/agent/changes';
import { undoTurnChanges } from './turnUndo';
import { toolSettings } from './builtinTools';
import type { WorkspaceCheckpoints } from './checkpoints/workspaceCheckpoints';

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

/**
 * The panel's agent: which tools a chat has, the picker, the approvals, the pauses, restore and
 * undo. The loop is the pure core's (`core/agent/agentLoop`), wired to a turn by the chat's turn
 * runner; this answers the view's agent intents.
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
    if (!HOST_PLATFORM.commands) state.platformNote = NO_COMMANDS_NOTE;
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

  /** Records what a call changed, by turn: what *Undo this turn* restores. */
  recordChanges(conversation: Conversation, turn: AssistantTurn, changes: readonly FileChange[]): void {
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
  askToContinue(
    turn: AssistantTurn,
    post: (message: HostMessage) => void,
    progress: AgentProgress,
    signal: AbortSignal,
  ): Promise<boolean> {
    turn.agent = progress;
    post({ type: 'turnUpdated', turn });
    this.deps.reveal();
    return new Promise<boolean>((resolve, reject) => {
      const done = (goOn: boolean) => {
        signal.removeEventListener('abort', onAbort);
        this.pauses.delete(turn.id);
        const { pause: _answered, ...rest } = progress;
        turn.agent = rest;
        post({ type: 'turnUpdated', turn });
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
