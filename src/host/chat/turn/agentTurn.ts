import type { ChatDelta, ChatMessage } from '../../../api/types';
import { runAgentLoop } from '../../../core/agent/agentLoop';
import type { AgentLoopDeps, AgentResult, AgentTally } from '../../../core/agent/agentLoop';
import type { AgentStep, ToolSpec } from '../../../core/agent/types';
import { estimateMessages } from '../../../core/chat/compaction';
import type { SpendHolds } from '../../../core/cost/spendHolds';
import type { Conversation } from '../../../core/chat/conversation';
import type { AssistantTurn, HostMessage } from '../../../core/protocol/chatProtocol';
import type { TurnTools } from '../../agent/agentTools';
import type { ChatAgent } from '../../agent/chatAgent';
import type { WorkspaceCheckpoints } from '../../agent/checkpoints/workspaceCheckpoints';
import type { Settings } from '../../config/settings';
import type { Logger } from '../../log/logger';
import { checkpointGuard } from './checkpointGuard';

/** One agent turn's wiring from the runner: how to ask the gateway, and where the turn shows. */
export interface AgentTurnRun {
  conversation: Conversation;
  turn: AssistantTurn;
  history: ChatMessage[];
  tools: TurnTools;
  /** The turn's step cap, when its mode lowers the user's. */
  maxSteps?: number;
  contextLength?: number;
  /** Summarises the oldest turns when a request would fill too much of the context. */
  compact?: AgentLoopDeps['compact'];
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
  /** What today cost so far (every window and feature) and what is held, for the daily cap. */
  spentToday?(): number;
  /** The window's holds for paid calls, which `spentToday` counts. */
  holds?: SpendHolds;
  /** A reply's cost from tokens × the catalog's price, where the gateway reported none. */
  estimate?: NonNullable<AgentLoopDeps['budget']>['estimate'];
}

/**
 * Runs the core loop for one turn, keeping the turn, the view and the stored changes in step:
 * the agent's approvals and pauses, a checkpoint before each step's first change.
 */
export function runAgentTurn(
  agent: ChatAgent,
  deps: { settings: Settings; logger: Logger; checkpoints?: WorkspaceCheckpoints },
  run: AgentTurnRun,
): Promise<AgentResult> {
  const { turn, conversation } = run;
  const settings = deps.settings.current.agent;
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
  const guard = checkpointGuard(deps.checkpoints, deps.logger, run);
  return runAgentLoop(
    run.history,
    {
      usedIds,
      request: (messages, tools, signal) => run.request(messages, tools, signal),
      tools: guard.tools,
      needsApproval: (spec, call, prepared) =>
        agent.approvals.needsApproval(conversation.id, spec, call, prepared),
      approve: (call, prepared, signal, spec) =>
        agent.approvals.ask(conversation.id, turn.id, spec, call, prepared, signal),
      events: {
        delta: (delta) => run.apply(delta),
        stepAdded: (index, step, progress) => {
          // The step's text streamed as the turn's; it now belongs to the step, and the next
          // step's text starts afresh.
          run.flush();
          guard.step = index;
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
        changed: (changes) => agent.recordChanges(conversation, turn, changes),
      },
      now: () => Date.now(),
      maxSteps: run.maxSteps ?? settings.maxSteps,
      prepare: run.prepare,
      budget: {
        maxTurnCost: settings.maxTurnCost,
        maxDailyCost: settings.maxDailyCost,
        spentToday: () => run.spentToday?.() ?? 0,
        ...(run.holds ? { holds: run.holds } : {}),
        estimate: run.estimate,
      },
      askToContinue: (progress, signal) => agent.askToContinue(turn, (m) => run.post(m), progress, signal),
      contextLength: run.contextLength,
      compact: run.compact,
      estimateTokens: estimateMessages,
    },
    run.signal,
    run.tally,
  );
}
