import { keyIsOptional } from '../../core/config/keyOrigin';
import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import type { ChatImage } from '../../api/chatImages';
import type { ChatMessage, ChatRequest } from '../../api/types';
import { AgentStopped, newTally } from '../../core/agent/agentLoop';
import type { AgentTally } from '../../core/agent/agentLoop';
import { agentRequest, agentSystemPrompt, endTurn } from '../../core/agent/agentRequest';
import { attachToMessages } from '../../core/chat/attachments';
import { assistantTurn, chatTurns, newId, stepMessages, toApiMessages } from '../../core/chat/conversation';
import {
  activeCompaction,
  estimateMessages,
  needsCompaction,
  turnsAfter,
  withSummary,
} from '../../core/chat/compaction';
import type { AgentStep } from '../../core/agent/types';
import type { AssistantTurn, Compaction, Turn } from '../../core/protocol/chatProtocol';
import type { Conversation } from '../../core/chat/conversation';
import { DeltaBatcher } from '../../core/chat/deltaBatcher';
import { buildChatRequest } from '../../core/chat/requestBuilder';
import { isAbort, toTurnError } from '../../core/chat/turnError';
import type { TurnQueue } from '../../core/chat/turnQueue';
import { estimateCost, toTurnUsage, withEstimate, withSavings } from '../../core/cost/replyCost';
import {
  INSTRUCTION_TOKEN_BUDGET,
  instructionsText,
  touchedPaths,
} from '../../core/instructions/instructionFiles';
import { toGatewayTool } from '../agent/agentTools';
import type { TurnTools } from '../agent/agentTools';
import type { ChatAgent } from '../agent/chatAgent';
import type { WorkspaceCheckpoints } from '../agent/checkpoints/workspaceCheckpoints';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { CatalogFeature } from '../catalog/catalogFeature';
import type { Settings } from '../config/settings';
import type { CostTracker } from '../cost/costTracker';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import type { AttachmentTray } from './attachments';
import type { ChatModelMenu } from './modelMenu';
import { runAgentTurn } from './turn/agentTurn';
import { Compactor } from './turn/compactor';
import type { CatalogEntry, ModelGate } from './turn/modelGate';
import { applyDelta, lazyStream } from './turn/replyDelta';
import { addCredit, costFromGeneration } from './turn/turnCost';
import { joinPrompt, turnInstructions } from './turn/turnInstructions';
import type { InstructionSource } from './turn/turnInstructions';
import type { TurnHost } from './turn/turnHost';
import type { ChatModes, TurnMode } from './agentModes';
import { HOST_PLATFORM } from '../platform';

const SAVE_WHILE_STREAMING_MS = 3000;

export interface TurnRunnerDeps {
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  settings: Settings;
  logger: Logger;
  models: ModelGate;
  queue: TurnQueue;
  host: TurnHost;
  catalog?: CatalogFeature;
  tray?: AttachmentTray;
  costs?: CostTracker;
  menu?: ChatModelMenu;
  agent?: ChatAgent;
  checkpoints?: WorkspaceCheckpoints;
  instructions?: InstructionSource;
  /** The chat's mode (Agent, Plan, Ask, a workspace agent): it only narrows a turn. */
  modes?: ChatModes;
  /** Keeps the pictures a reply drew (as a media job with its card), where media is wired in. */
  drawn?: (conversation: Conversation, turn: AssistantTurn, images: readonly ChatImage[]) => void;
}

/**
 * Runs one reply turn on the core's turn machine: the queue's running turn (Stop), the request
 * built from the conversation and the settings, the catalog's gate, the project's instructions,
 * and, when the model may use tools, the agent loop with its approvals and checkpoints. The
 * reply streams into the turn; its cost is recorded however it ends.
 */
export class TurnRunner {
  private readonly compactor: Compactor;

  constructor(private readonly deps: TurnRunnerDeps) {
    this.compactor = new Compactor(deps);
  }

  /**
   * The tools a turn of this chat may use with this model, or undefined for a plain reply: the
   * one place a turn's tools are chosen.
   */
  async selectTools(
    conversation: Conversation,
    model: string,
    entry: CatalogEntry,
    mode?: TurnMode,
  ): Promise<TurnTools | undefined> {
    const agent = this.deps.agent;
    if (!agent) return undefined;
    const offered = agent.toolsFor(conversation.id, await this.deps.models.toolSupport(model, entry));
    // The chat's mode (Plan, Ask, a workspace agent) only ever narrows what the user enabled.
    return mode ? mode.narrow(offered) : offered;
  }

  /**
   * Before a request that would fill too much of the model's context, once per turn: the oldest
   * turns are summarised, and the summary and the newest turns are sent instead (the turn's own
   * steps as they are). When the summary cannot be had, the turn goes on as before (old tool
   * results trimmed) and the composer says so.
   */
  private compactWhenFull(
    conversation: Conversation,
    turns: readonly Turn[],
    contextLength: number | undefined,
    build: (compaction: Compaction) => ChatMessage[],
  ): (
    history: readonly ChatMessage[],
    steps: readonly AgentStep[],
    signal: AbortSignal,
  ) => Promise<{ history?: ChatMessage[]; cost?: number } | undefined> {
    let tried = false;
    return async (history, steps, signal) => {
      if (
        tried ||
        !needsCompaction(estimateMessages([...history, ...steps.flatMap(stepMessages)]), contextLength)
      )
        return undefined;
      tried = true;
      const outcome = await this.compactor.compact(turns, conversation.compaction, contextLength, signal);
      const { cost } = outcome;
      if (outcome.ok) {
        this.keep(conversation, outcome.compaction);
        return { history: build(outcome.compaction), cost };
      }
      if (!signal.aborted && !outcome.nothing)
        this.deps.host.post({
          type: 'composerNotice',
          message: `The earlier turns could not be summarised (${outcome.reason}). Older tool results are trimmed to fit instead.`,
        });
      return { cost };
    };
  }

  /** `/compact`: summarises all but the last exchange now, between turns. */
  async compactNow(conversation: Conversation): Promise<void> {
    const { queue, host } = this.deps;
    queue.reserve();
    const running = queue.begin(newId('compact'));
    try {
      const outcome = await this.compactor.compact(
        chatTurns(conversation.turns),
        conversation.compaction,
        undefined,
        running.signal,
      );
      if (outcome.cost !== undefined) this.deps.costs?.record('panel', outcome.cost);
      if (outcome.ok) {
        this.keep(conversation, outcome.compaction);
        await host.save(conversation);
      } else if (!running.signal.aborted)
        host.post({
          type: 'composerNotice',
          message: outcome.nothing
            ? outcome.reason
            : `The earlier turns were not summarised: ${outcome.reason}`,
        });
    } finally {
      running.end();
      host.drain();
    }
  }

  /** Tells the view the chat's summary; one whose turns are gone no longer stands, and goes. */
  showCompaction(conversation: Conversation): void {
    const compaction = activeCompaction(conversation.turns, conversation.compaction);
    if (!compaction) delete conversation.compaction;
    this.deps.host.post({ type: 'compaction', ...(compaction ? { compaction } : {}) });
  }

  /** The chat keeps every turn, and the summary beside them; the view shows what it covers. */
  private keep(conversation: Conversation, compaction: Compaction): void {
    conversation.compaction = compaction;
    conversation.updatedAt = Date.now();
    this.deps.host.post({ type: 'compaction', compaction });
    void this.deps.host.postContext();
  }

  /** Streams the assistant's reply to the conversation as it stands. */
  async reply(conversation: Conversation): Promise<void> {
    const { queue, host } = this.deps;
    queue.reserve();
    const mode = await this.deps.modes?.forTurn(conversation);
    const settings = mode?.settings ?? this.deps.settings.current;
    const turn = assistantTurn(settings.chat.model);
    if (mode?.plan) turn.plan = true;
    const images =
      (await this.deps.tray?.readImages(
        conversation.turns.flatMap((t) => (t.role === 'user' ? (t.attachments ?? []) : [])),
      )) ?? new Map<string, string>();
    const turns = chatTurns(conversation.turns);
    host.append(conversation, turn);
    void host.save(conversation).then(() => host.postHistory());

    const running = queue.begin(turn.id);
    const abort = { signal: running.signal };
    const batcher = new DeltaBatcher(turn.id, (m) => host.post(m));
    let saved: Promise<void> = Promise.resolve();
    /** The reply's id (the X-Generation-Id header or the chunks' id), to find its cost if it has none. */
    let generationId: string | undefined;
    /** An agent turn's usage and generations, however it ends. */
    let tally: AgentTally | undefined;
    const requested = turn.model;
    /** Pictures the reply drew (streamed `delta.images`), kept beside the turn. */
    const drawn: ChatImage[] = [];
    const drew = (images: readonly ChatImage[]) => void drawn.push(...images);
    try {
      if (!keyIsOptional(settings) && !(await this.deps.apiKey.get())) {
        throw new GatewayError({
          kind: 'config',
          message: "No API key is set. Set one with 'Gateway AI: Set API Key', then retry.",
        });
      }
      // The catalog is waited for once per turn (up to its wait), not once per step.
      const entry = await this.deps.models.entry(settings.chat.model);
      const tools = await this.selectTools(conversation, settings.chat.model, entry, mode);
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.name);
      const systemPrompt = joinPrompt(
        tools
          ? agentSystemPrompt(settings.chat.systemPrompt, folders, { commands: HOST_PLATFORM.commands })
          : settings.chat.systemPrompt,
        mode?.prompt ?? '',
      );
      // The project's instruction files go after our own prompt, never above it: the always-on
      // ones, and those the prompt's attachments match; the agent adds those its reads and
      // edits match, step by step. They have what the chat's agent file left of the budget.
      const instructions = await turnInstructions(
        this.deps.instructions,
        this.deps.logger,
        conversation,
        turn,
        (m) => host.post(m),
        Math.max(0, INSTRUCTION_TOKEN_BUDGET - (mode?.instructionTokens ?? 0)),
      );
      const system = joinPrompt(systemPrompt, instructionsText(instructions.carried));
      // Under a summary of the oldest turns, the summary and the newest turns go.
      const build = (compaction: Compaction | undefined) => {
        const sent = turnsAfter(turns, compaction);
        // Without tools this turn, earlier tool rounds go as text: a provider refuses tool
        // calls in a request that declares no tools.
        const history = toApiMessages(sent, system, { toolsDeclared: tools !== undefined });
        const messages = attachToMessages(history, sent, (a) => (a.file ? images.get(a.file) : undefined));
        return withSummary(messages, compaction);
      };
      let messages = build(activeCompaction(turns, conversation.compaction));
      const contextLength = this.deps.models.contextLength(turn.model);
      const compact = this.compactWhenFull(conversation, turns, contextLength, build);
      let savedAt = Date.now();
      const saveNowAndThen = () => {
        // A long reply is saved now and then, so a window closed mid-stream keeps most of it.
        if (Date.now() - savedAt <= SAVE_WHILE_STREAMING_MS) return;
        savedAt = Date.now();
        void host.save(conversation, false);
      };
      const stream = async (sent: ChatMessage[], offered?: ChatRequest['tools'], signal = abort.signal) => {
        const built = buildChatRequest(settings.chat, turn.model, sent);
        const applied = this.deps.menu ? await this.deps.menu.apply(built, conversation.id) : built;
        const gated = await this.deps.models.gated(offered ? agentRequest(applied, offered) : applied, entry);
        // A model that draws sends its pictures only when asked to (OpenRouter: `delta.images`);
        // an agent's steps are not asked (each would draw, and bill for, pictures nobody wanted).
        const request = !offered && drawsImages(entry) ? { ...gated, modalities: ['image', 'text'] } : gated;
        return this.deps.gateway.client().streamChat(request, { signal });
      };
      if (tools && this.deps.agent) {
        tally = newTally();
        const result = await runAgentTurn(this.deps.agent, this.deps, {
          tally,
          conversation,
          turn,
          history: messages,
          tools,
          maxSteps: mode?.maxSteps,
          contextLength,
          compact,
          signal: abort.signal,
          request: (sent, specs, signal) => lazyStream(() => stream(sent, specs.map(toGatewayTool), signal)),
          apply: (delta) => {
            if (delta.type === 'usage' || delta.type === 'tool_calls') return;
            if (delta.type === 'meta') generationId = delta.id ?? generationId;
            applyDelta(turn, delta, batcher, (m) => host.post(m), drew);
            saveNowAndThen();
          },
          flush: () => batcher.flush(),
          post: (m) => host.post(m),
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
          spentToday: () => this.deps.costs?.spentForCaps() ?? 0,
          holds: this.deps.costs?.holds,
          estimate: (usage) =>
            estimateCost(
              { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens },
              this.deps.models.pricing(requested),
            ),
        });
        endTurn(turn, result);
      } else {
        // A plain reply has no cap of its own: the summary counts in today's cost at once.
        const compacted = await compact(messages, [], abort.signal);
        if (compacted?.cost !== undefined) this.deps.costs?.record('panel', compacted.cost);
        messages = compacted?.history ?? messages;
        for await (const delta of await stream(messages)) {
          if (delta.type === 'meta') generationId ??= delta.id;
          applyDelta(turn, delta, batcher, (m) => host.post(m), drew);
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
        if (turn.error.status === 402) await addCredit(this.deps.catalog, turn);
        this.deps.logger.warn(`Chat request failed: ${turn.error.message}`);
      }
    } finally {
      batcher.flush();
      // An agent turn's usage is every request's, however the turn ended.
      if (tally?.usage) turn.usage = toTurnUsage(tally.usage);
      if (turn.usage) {
        const pricing = this.deps.models.pricing(requested);
        // No cost from the gateway: tokens × the catalog's price, said as estimated.
        turn.usage = withEstimate(withSavings(turn.usage, pricing), pricing);
      }
      conversation.updatedAt = Date.now();
      host.post({ type: 'turnUpdated', turn });
      // Stop and the next turn wait for this, never for the disk: a save that fails is
      // reported and retried by the store, in order, without holding anyone up.
      saved = host.save(conversation);
      running.end();
      if (drawn.length) this.deps.drawn?.(conversation, turn, drawn);
      host.finished(turn);
      void saved.then(() => host.postHistory());
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
      if (!unpriced.length && turn.usage?.estimatedCost !== undefined)
        this.deps.costs?.record('panel', turn.usage.estimatedCost, { estimated: true });
      if (unpriced.length)
        void costFromGeneration(
          this.deps.costs,
          this.deps.models,
          {
            isCurrent: (c) => host.isCurrent(c),
            updated: (t) => host.post({ type: 'turnUpdated', turn: t }),
            save: (c) => void host.save(c, false),
            postContext: () => void host.postContext(),
            disposed: () => host.disposed(),
          },
          conversation,
          turn,
          unpriced,
          requested,
        );
      void host.postContext();
      host.drain();
    }
    // The caller (a command, a test) hears of the reply once it is stored, if storage allows.
    await saved;
  }
}

/** Whether the catalog says the model draws pictures as well as writing. */
function drawsImages(entry: CatalogEntry): boolean {
  return !!entry?.outputModalities.includes('image');
}
