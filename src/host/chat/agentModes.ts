/**
 * The chat's modes (Agent, Plan, Ask) and the workspace's custom agents, in the picker beside the
 * model: each chat keeps its own. A mode only narrows a turn (the pure rules in
 * `core/agent/modes` and `core/agent/agentFiles`): fewer tools, a lower step cap, and a model of
 * the agent file's only once the user accepted it here and only one the catalog has.
 *
 * Agent files are workspace text and follow the instruction files' trust boundary: in Restricted
 * Mode none is read unless the user opted in (`gateway.agent.instructionsInRestrictedMode`, or the
 * switch in *Gateway AI: Instruction Files…*). What a file gets wrong is shown in the picker and
 * logged once, never fatal.
 */
import * as vscode from 'vscode';
import {
  AGENT_FILE_SUFFIX,
  AGENT_FOLDERS,
  MAX_AGENT_FILES,
  MAX_AGENT_FILE_CHARS,
  parseAgentFiles,
  shownText,
} from '../../core/agent/agentFiles';
import type { AgentFile } from '../../core/agent/agentFiles';
import {
  BUILTIN_MODES,
  DEFAULT_MODE,
  handOffPrompt,
  isBuiltinMode,
  modePrompt,
  modeTools,
  narrowedSteps,
} from '../../core/agent/modes';
import type { BuiltinMode } from '../../core/agent/modes';
import type { Conversation } from '../../core/chat/conversation';
import type { GatewaySettings } from '../../core/config/settingsModel';
import { StorageKey } from '../../core/ids';
import type { HostMessage } from '../../core/protocol/chatProtocol';
import type { ModeOption, ModesState } from '../../core/protocol/modeProtocol';
import { Disposable } from '../../core/util/lifecycle';
import type { TurnTools } from '../agent/agentTools';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import type { InstructionFiles } from './instructionFiles';

/** Accepted agent models kept at most (newest last). */
const MAX_ACCEPTED = 200;

/** What a mode changes in one turn (absent for plain Agent mode: nothing). */
export interface TurnMode {
  /** The settings with the agent's accepted model (the user's own otherwise). */
  settings: GatewaySettings;
  /** The turn's tools, narrowed to what the mode keeps (undefined: none). */
  narrow(tools: TurnTools | undefined): TurnTools | undefined;
  /** What the model is told of the mode, below our own rules. */
  prompt: string;
  /** What the agent file's instructions took of the turn's instruction budget, in tokens. */
  instructionTokens: number;
  /** A Plan answer: the view offers to hand it to Agent. */
  plan: boolean;
  /** The step cap, when the agent's is lower than the user's. */
  maxSteps?: number;
}

export interface ChatModesDeps {
  /** The workspace's memento: accepted agent models are kept per workspace. */
  state: vscode.Memento;
  settings: Settings;
  logger: Logger;
  instructions: InstructionFiles;
  catalog?: CatalogFeature;
  /** Every tool name the user has now (any source, on or off), to report unknown ones. */
  toolNames(): string[];
  /** Fires when tools come or go. */
  onToolsChange?: vscode.Event<void>;
  save(conversation: Conversation): Promise<void>;
}

export class ChatModes extends Disposable {
  /** Problems already logged, so each is said once per file. */
  private readonly logged = new Set<string>();
  /** Models already asked about in this window. */
  private readonly asked = new Set<string>();
  private shown: { conversation: Conversation; post: (m: HostMessage) => void } | undefined;
  private watchers: vscode.Disposable[] | undefined;

  constructor(private readonly deps: ChatModesDeps) {
    super();
    const again = () => void this.repost();
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(again));
    if (deps.onToolsChange) this.register(deps.onToolsChange(again));
    this.register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.unwatch();
        again();
      }),
    );
    this.register({ dispose: () => this.unwatch() });
  }

  /** The workspace's agents, or none where agent files may not be read. */
  async agents(): Promise<{ agents: AgentFile[]; warnings: string[] }> {
    if (!this.deps.instructions.allowed()) {
      this.logOnce('', ['Restricted Mode: the workspace’s agent files are not read.']);
      return { agents: [], warnings: [] };
    }
    let files: Array<{ path: string; text: string }> = [];
    try {
      files = await this.deps.instructions.readFiles(
        'Agent file',
        AGENT_FOLDERS.map((folder) => `${folder}/*${AGENT_FILE_SUFFIX}`),
        MAX_AGENT_FILES + 1,
        MAX_AGENT_FILE_CHARS,
      );
    } catch (error) {
      this.deps.logger.warn(`Agent files could not be read: ${String(error)}`);
      return { agents: [], warnings: ['The workspace’s agent files could not be read (see the log).'] };
    }
    const { agents, problems } = parseAgentFiles(files);
    for (const agent of agents) this.logOnce(agent.path, agent.problems);
    if (problems.length) this.logOnce('', problems);
    return { agents, warnings: problems };
  }

  private logOnce(path: string, problems: readonly string[]): void {
    const key = `${path}\u0000${problems.join()}`;
    if (!problems.length || this.logged.has(key)) return;
    this.logged.add(key);
    this.deps.logger.warn(
      path
        ? `Agent file ${shownText(path, 300)}: ${problems.join('; ')}. The rest of it is used.`
        : problems.join(' '),
    );
  }

  modeOf(conversation: Conversation): string {
    return conversation.mode ?? DEFAULT_MODE;
  }

  /** The picker's state for a chat. */
  async state(conversation: Conversation): Promise<ModesState> {
    const { agents, warnings } = await this.agents();
    const names = this.deps.toolNames().map((name) => ({ name, readOnly: false }));
    const options: ModeOption[] = BUILTIN_MODES.map((m) => ({ ...m, custom: false }));
    for (const agent of agents) {
      const problems = [...agent.problems];
      const { unknown } = modeTools('agent', agent, names);
      if (unknown.length) {
        const listed = unknown.slice(0, 8).map((n) => shownText(n, 64));
        problems.push(`tools not available now: ${listed.join(', ')}`);
        this.logOnce(`${agent.path} tools`, [`tools not available now: ${listed.join(', ')}`]);
      }
      const model = agent.model;
      const modelNote = !model
        ? ''
        : this.accepted(agent)
          ? `model ${model}`
          : `asks for model ${model} (your own is used until you accept it)`;
      const option: ModeOption = {
        id: agent.id,
        label: agent.name,
        description: [agent.description, agent.path, modelNote].filter(Boolean).join(' · '),
        custom: true,
      };
      if (problems.length) option.warning = problems.join('; ');
      options.push(option);
    }
    let current = this.modeOf(conversation);
    if (!options.some((o) => o.id === current)) current = DEFAULT_MODE;
    return { current, options, warnings };
  }

  /** Posts the picker's state for the chat (and keeps posting it when agents or tools change). */
  async show(conversation: Conversation, post: (m: HostMessage) => void): Promise<void> {
    this.shown = { conversation, post };
    this.watch();
    const state = await this.state(conversation);
    if (this.shown?.conversation === conversation) post({ type: 'modes', ...state });
  }

  private async repost(): Promise<void> {
    if (this.shown && !this.isDisposed) await this.show(this.shown.conversation, this.shown.post);
  }

  /** The picker's choice for a chat; a custom agent that asks for a model asks the user first. */
  async setMode(conversation: Conversation, mode: string): Promise<void> {
    let agent: AgentFile | undefined;
    if (!isBuiltinMode(mode)) {
      agent = (await this.agents()).agents.find((a) => a.id === mode);
      if (!agent) {
        this.deps.logger.warn(
          `The chosen agent is not (or no longer) in the workspace: ${shownText(mode, 200)}.`,
        );
        return this.repost();
      }
    }
    if (mode === DEFAULT_MODE) delete conversation.mode;
    else conversation.mode = mode;
    await this.deps
      .save(conversation)
      .catch((error: unknown) => this.deps.logger.error('Saving the chat’s mode failed', error));
    await this.repost();
    if (agent?.model && agent.model !== this.deps.settings.current.chat.model) {
      await this.askModel(agent);
      await this.repost();
    }
  }

  /** *Run in Agent* on a Plan answer: the chat goes to Agent mode; returns the prompt to send. */
  async handOff(conversation: Conversation, turnId: string): Promise<string | undefined> {
    const turn = conversation.turns.find((t) => t.id === turnId);
    if (turn?.role !== 'assistant' || !turn.plan || !turn.content.trim() || turn.status === 'streaming')
      return undefined;
    await this.setMode(conversation, 'agent');
    return handOffPrompt(turn.content);
  }

  private acceptedKeys(): string[] {
    const raw = this.deps.state.get<unknown>(StorageKey.acceptedAgentModels);
    return Array.isArray(raw) ? raw.filter((k): k is string => typeof k === 'string') : [];
  }

  private accepted(agent: AgentFile): boolean {
    return !!agent.model && this.acceptedKeys().includes(`${agent.path}\n${agent.model}`);
  }

  /**
   * Asks once per window whether the agent's model may be used here (it is paid with the user's
   * key), as a workspace's chat model is asked about; only a model the catalog has is offered.
   */
  private async askModel(agent: AgentFile): Promise<void> {
    const model = agent.model;
    const key = `${agent.path}\n${model}`;
    if (!model || this.accepted(agent) || this.asked.has(key)) return;
    this.asked.add(key);
    if (!(await this.inCatalog(model))) {
      this.deps.logger.warn(
        `Agent file ${shownText(agent.path, 300)} asks for the model ${shownText(model, 200)}, which the gateway's catalog does not list; your own model is used.`,
      );
      return;
    }
    const mine = this.deps.settings.current.chat.model;
    const use = `Use ${shownText(model, 60)}`;
    const choice = await notify.info(
      `Gateway AI: the workspace agent "${agent.name}" (${agent.path}) chooses the model "${shownText(model, 60)}", which your API key pays for. ` +
        `It is not used until you accept it for this agent here; until then your own${mine ? ` "${shownText(mine, 60)}"` : ''} is.`,
      use,
      'Keep Mine',
    );
    if (choice !== use) return;
    const keys = this.acceptedKeys().filter((k) => k !== key);
    await this.deps.state.update(StorageKey.acceptedAgentModels, [...keys, key].slice(-MAX_ACCEPTED));
    this.deps.logger.info(
      `The model ${shownText(model, 200)} of agent file ${shownText(agent.path, 300)} was accepted for this workspace.`,
    );
  }

  private async inCatalog(model: string): Promise<boolean> {
    const catalog = this.deps.catalog?.catalog;
    if (!catalog) return false;
    return !!(catalog.peek(model) ?? (await catalog.get(model).catch(() => undefined)));
  }

  /**
   * What the chat's mode changes in a turn, or undefined for plain Agent mode. A custom agent that
   * is gone (its file removed, or not read in Restricted Mode) gives an Ask turn, never a wider one.
   * Never throws: a turn must not fail for its mode.
   */
  async forTurn(conversation: Conversation): Promise<TurnMode | undefined> {
    const mode = this.modeOf(conversation);
    if (mode === DEFAULT_MODE) return undefined;
    const current = this.deps.settings.current;
    let base: BuiltinMode = isBuiltinMode(mode) ? mode : 'agent';
    let agent: AgentFile | undefined;
    if (!isBuiltinMode(mode)) {
      agent = (await this.agents().catch(() => ({ agents: [] as AgentFile[] }))).agents.find(
        (a) => a.id === mode,
      );
      if (!agent) {
        base = 'ask';
        const note = `The chosen agent is not available (its file is gone, or not read in Restricted Mode): this turn ran in Ask mode.`;
        this.deps.logger.warn(note);
        this.shown?.post({ type: 'composerNotice', message: note });
      }
    }
    let settings = current;
    const model = agent?.model;
    if (agent && model && model !== current.chat.model) {
      if (this.accepted(agent) && (await this.inCatalog(model).catch(() => false)))
        settings = { ...current, chat: { ...current.chat, model } };
      else void this.askModel(agent).then(() => this.repost());
    }
    const maxSteps = narrowedSteps(current.agent.maxSteps, agent?.maxSteps);
    const told = modePrompt(base, agent);
    const turnMode: TurnMode = {
      settings,
      prompt: told.prompt,
      instructionTokens: told.tokens,
      plan: base === 'plan',
      narrow: (tools) => {
        if (!tools) return undefined;
        const { keep, unknown } = modeTools(base, agent, tools.specs());
        if (unknown.length)
          this.deps.logger.info(
            `Agent file ${shownText(agent?.path ?? '', 300)}: tools not available in this turn: ${unknown
              .slice(0, 8)
              .map((n) => shownText(n, 64))
              .join(', ')}.`,
          );
        tools.narrow(new Set(keep));
        return tools.specs().length ? tools : undefined;
      },
    };
    if (maxSteps < current.agent.maxSteps) turnMode.maxSteps = maxSteps;
    return turnMode;
  }

  /** Each folder's agent folders, watched (not recursively) once the picker was first shown. */
  private watch(): void {
    if (this.watchers) return;
    const watchers: vscode.Disposable[] = [];
    const again = () => void this.repost();
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      for (const dir of AGENT_FOLDERS) {
        const watcher = vscode.workspace.createFileSystemWatcher(
          new vscode.RelativePattern(
            vscode.Uri.joinPath(folder.uri, ...dir.split('/')),
            `*${AGENT_FILE_SUFFIX}`,
          ),
        );
        watchers.push(
          watcher,
          watcher.onDidCreate(again),
          watcher.onDidChange(again),
          watcher.onDidDelete(again),
        );
      }
    this.watchers = watchers;
  }

  private unwatch(): void {
    for (const watcher of this.watchers ?? []) watcher.dispose();
    this.watchers = undefined;
  }
}
