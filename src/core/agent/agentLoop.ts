/**
 * The agent loop, pure: the model calls tools, the tools run, their results go back, until the
 * model answers without calling any. It knows nothing of VS Code, the gateway's transport or the
 * view: the host hands it a way to ask the gateway, the turn's tools, the user's approval, and a
 * clock, and hears of every change through `events`.
 *
 * Rules it keeps:
 * - every call the model made is answered (a result, an error it can act on, or "not run"), so
 *   the history stays valid for the gateway whatever happens;
 * - read-only calls that need no approval run together; anything else runs alone, in order,
 *   after the user approved it (the host decides; nothing the model writes can approve);
 * - a step cap, a spend cap per turn and per day (judged before each request by the last reply's
 *   cost, and before each paid call by its estimate), and the same call three times in a row
 *   pause for the user;
 * - a paid call (a media job) runs alone, with its estimate held against both caps until its cost
 *   is known; past a cap it pauses and asks as a request does, and what the user stops is
 *   answered "not run";
 * - Stop aborts the request and the running tool at once, and answers the rest "not run".
 */
import type { ChatDelta, ChatMessage, ToolCall, Usage } from '../../api/types';
import { applyChatDelta, emptyCompletion } from '../../api/fold';
import { notRunResult, stepMessages } from '../chat/conversation';
import { SpendHolds } from '../cost/spendHolds';
import type { SpendHold } from '../cost/spendHolds';
import { formatCost } from '../util/text';
import { mayAlwaysAllow } from './approvalPolicy';
import type {
  AgentPause,
  AgentProgress,
  AgentStep,
  ApprovalDecision,
  FileChange,
  PaidCall,
  PreparedCall,
  ToolCallRecord,
  ToolSet,
  ToolSpec,
} from './types';
import { AGENT_REPEAT_LIMIT, MAX_CALLS_PER_STEP, MAX_TOOL_RESULT_CHARS, ToolInputError } from './types';

export interface AgentEvents {
  /** A piece of the streaming step (content, reasoning, meta, usage…), as the client parsed it. */
  delta(delta: ChatDelta): void;
  /** A step's reply ended with tool calls: the step, with its text, is now part of the turn. */
  stepAdded(index: number, step: AgentStep, progress: AgentProgress): void;
  /** A call of step `index` changed state (awaiting approval, running, done…). */
  stepChanged(index: number, step: AgentStep, progress: AgentProgress): void;
  /** A call changed files (for *Undo this turn*). */
  changed(changes: readonly FileChange[]): void;
}

export interface AgentLoopDeps {
  /** Call ids already used in the conversation: a model's id that repeats one is replaced. */
  usedIds?: ReadonlySet<string>;
  /** One streamed request to the gateway with these messages, offering these tools. */
  request(
    this: void,
    messages: ChatMessage[],
    tools: readonly ToolSpec[],
    signal: AbortSignal,
  ): AsyncIterable<ChatDelta>;
  tools: ToolSet;
  /** Whether this call must be approved first (the host's policy: reads run, the rest ask). */
  needsApproval(spec: ToolSpec, call: ToolCallRecord, prepared: PreparedCall): boolean;
  /** Asks the user. Settles when they answer, or rejects when `signal` aborts. */
  approve(
    call: ToolCallRecord,
    prepared: PreparedCall,
    signal: AbortSignal,
    spec: ToolSpec,
  ): Promise<ApprovalDecision>;
  events: AgentEvents;
  now(): number;
  maxSteps: number;
  /** The model's context in tokens, when known: old tool results are trimmed as it nears. */
  contextLength?: number;
  estimateTokens(messages: readonly ChatMessage[]): number;
  /**
   * A last look at each request's messages before it goes, with the steps so far: the host adds
   * the project instructions that the files touched so far bring in.
   */
  prepare?(this: void, messages: ChatMessage[], steps: readonly AgentStep[]): ChatMessage[];
  /**
   * Before each request, a chance to send a shorter history (the messages before this turn's
   * steps): the host summarises the oldest turns when the request would fill too much of the
   * context. No `history` keeps the history; the steps so far are always sent as they are. The
   * summary's `cost` is the turn's, against its cap.
   */
  compact?(
    this: void,
    history: readonly ChatMessage[],
    steps: readonly AgentStep[],
    signal: AbortSignal,
  ): Promise<{ history?: ChatMessage[]; cost?: number } | undefined>;
  /**
   * Spend caps in USD (absent or 0: none), and what today cost so far outside this turn's
   * requests. `holds` is where paid calls hold their estimates: the window's, whose held total
   * `spentToday` must include (paid calls' reported costs are in it too, by the jobs' own
   * records). Without one, the loop keeps its own and counts its calls itself.
   * `estimate`: a reply's cost from its tokens × the catalog's price, for a gateway that reports
   * no cost (the caps then count that, and the counter says it is estimated).
   */
  budget?: {
    maxTurnCost?: number;
    maxDailyCost?: number;
    spentToday(): number;
    holds?: SpendHolds;
    estimate?(usage: Usage): number | undefined;
  };
  /**
   * Asks the user whether to go on past a cap (`progress.pause` says which); true to go on.
   * Rejects when `signal` aborts. Absent: a cap ends the turn.
   */
  askToContinue?(progress: AgentProgress, signal: AbortSignal): Promise<boolean>;
}

export type AgentEnd =
  /** The model answered without tool calls; its answer streamed through `delta`. */
  | { kind: 'answered' }
  /** The user denied a call the model kept repeating: the loop ends there. */
  | { kind: 'repeatDenied' }
  /** The step cap was reached with the model still calling tools. */
  | { kind: 'stepCap'; steps: number }
  /** The next request or paid call would have passed a spend cap, and the user chose to stop there. */
  | { kind: 'budget'; pause: AgentPause };

/** What the turn's requests used and where they are recorded, kept up to date as the loop runs. */
export interface AgentTally {
  progress: AgentProgress;
  /** Usage of every request, summed; absent when no request reported any. */
  usage?: Usage;
  /** Each request's generation id, with whether its stream carried a cost. */
  generations: { id: string; priced: boolean }[];
}

export interface AgentResult {
  end: AgentEnd;
  steps: AgentStep[];
  /** The last step's finish reason. */
  finishReason?: string;
}

/** Share of the model's context at which old tool results start being trimmed. */
export const TRIM_AT = 0.8;
/** Tool results always kept whole, newest first. */
export const KEEP_NEWEST_RESULTS = 2;

/** Longest arguments a call may have (characters), and deepest nesting: more is refused. */
export const MAX_ARGUMENT_CHARS = 1_000_000;
export const MAX_ARGUMENT_DEPTH = 64;
/** Tool names as providers take them. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Thrown (after every call was answered) when the turn was stopped. */
export class AgentStopped extends Error {
  override readonly name = 'AbortError';
  constructor(readonly steps: AgentStep[]) {
    super('The agent turn was stopped.');
  }
}

interface StepReply {
  content: string;
  reasoning: string;
  calls: ToolCall[];
  reasoningDetails: unknown[];
  finishReason?: string;
  generationId?: string;
  usage?: Usage;
}

/**
 * Runs the loop on top of `history` (the conversation as the gateway sees it, ending with the
 * user's prompt). Resolves when the model answers or the step cap is reached; rejects with
 * `AgentStopped` when `signal` aborts, and with the gateway's error when a request fails (in
 * both cases every step so far is complete and answered).
 */
export async function runAgentLoop(
  history: readonly ChatMessage[],
  deps: AgentLoopDeps,
  signal: AbortSignal,
  tally: AgentTally = newTally(),
): Promise<AgentResult> {
  const steps: AgentStep[] = [];
  const { progress } = tally;
  const repeats = new RepeatTracker();
  const usedIds = new Set(deps.usedIds);
  const caps = new Caps(deps, progress);
  for (;;) {
    if (signal.aborted) throw new AgentStopped(steps);
    const over = await caps.beforeRequest(signal);
    if (signal.aborted) throw new AgentStopped(steps);
    if (over) return { end: { kind: 'budget', pause: over }, steps };
    const specs = deps.tools.specs();
    if (deps.compact) {
      const compacted = await deps.compact(history, steps, signal);
      if (compacted?.cost !== undefined) {
        caps.addRequestCost(compacted.cost);
        tally.usage = addUsage(tally.usage, { cost: compacted.cost });
      }
      if (signal.aborted) throw new AgentStopped(steps);
      if (compacted?.history) history = compacted.history;
      // The summary was paid for: the caps are checked again before the request it makes room for.
      if (compacted?.cost) {
        const overNow = await caps.beforeRequest(signal);
        if (signal.aborted) throw new AgentStopped(steps);
        if (overNow) return { end: { kind: 'budget', pause: overNow }, steps };
      }
    }
    const trimmed = trimToolResults(
      [...history, ...steps.flatMap(stepMessages)],
      deps.contextLength,
      (list) => deps.estimateTokens(list),
    );
    const messages = deps.prepare ? deps.prepare(trimmed, steps) : trimmed;
    let reply: StepReply;
    try {
      reply = await readReply(deps.request(messages, specs, signal), deps.events);
    } catch (error) {
      if (signal.aborted) throw new AgentStopped(steps);
      throw error;
    }
    if (reply.generationId)
      tally.generations.push({ id: reply.generationId, priced: reply.usage?.cost !== undefined });
    if (reply.usage) {
      tally.usage = addUsage(tally.usage, reply.usage);
      progress.promptTokens += reply.usage.prompt_tokens ?? 0;
      progress.completionTokens += reply.usage.completion_tokens ?? 0;
      const cost = reply.usage.cost ?? deps.budget?.estimate?.(reply.usage);
      if (cost !== undefined) {
        caps.addRequestCost(cost);
        caps.lastCost = cost;
        if (reply.usage.cost === undefined) progress.costEstimated = true;
      } else progress.costUnreported = true;
    }
    progress.steps++;
    if (reply.calls.length === 0)
      return { end: { kind: 'answered' }, steps, finishReason: reply.finishReason };
    const step: AgentStep = {
      content: reply.content,
      calls: callRecords(reply.calls, usedIds),
    };
    if (reply.reasoning) step.reasoning = reply.reasoning;
    if (reply.reasoningDetails.length) step.reasoningDetails = reply.reasoningDetails;
    const index = steps.push(step) - 1;
    deps.events.stepAdded(index, step, { ...progress });
    const ran = await runCalls(step, index, specs, deps, progress, repeats, caps, signal);
    if (signal.aborted) throw new AgentStopped(steps);
    if (ran.repeatDenied) return { end: { kind: 'repeatDenied' }, steps };
    if (ran.budget) return { end: { kind: 'budget', pause: ran.budget }, steps };
    if (steps.length >= caps.stepLimit && !(await caps.moreSteps(steps.length, signal))) {
      if (signal.aborted) throw new AgentStopped(steps);
      return { end: { kind: 'stepCap', steps: steps.length }, steps };
    }
  }
}

/**
 * The turn's caps: steps, and dollars for the turn and the day. Before each request, the cost of
 * the last reply stands for the next one's: when spent + that would pass a cap, the loop pauses
 * and asks. Before each paid call, its estimate stands for it the same way, and is then held
 * until the call's cost is known (a call with no known price asks whenever a cap is set). Going
 * on past the turn's cap allows one more cap's worth; past the day's, the rest of the turn (the
 * turn's cap still holds); past the step cap, as many steps again.
 *
 * What the turn spent (`progress.cost`) is its requests' cost plus what its paid calls count:
 * their reported cost, else their estimate.
 */
class Caps {
  lastCost = 0;
  stepLimit: number;
  private turnCap: number | undefined;
  private dayCap: number | undefined;
  private requestCost: number | undefined;
  private readonly calls: SpendHold[] = [];
  private readonly holds: SpendHolds;
  /** The window's holds are in `spentToday`; the loop's own are not, so it adds them. */
  private readonly ownHolds: boolean;

  constructor(
    private readonly deps: AgentLoopDeps,
    private readonly progress: AgentProgress,
  ) {
    this.stepLimit = deps.maxSteps;
    this.turnCap = positive(deps.budget?.maxTurnCost);
    this.dayCap = positive(deps.budget?.maxDailyCost);
    if (this.turnCap !== undefined) progress.costCap = this.turnCap;
    this.requestCost = progress.cost;
    this.ownHolds = !deps.budget?.holds;
    this.holds = deps.budget?.holds ?? new SpendHolds();
  }

  addRequestCost(cost: number): void {
    this.requestCost = (this.requestCost ?? 0) + cost;
    this.update();
  }

  /** The turn's cost now: a paid call's hold may have ended since the last look. */
  update(): number {
    const calls = this.calls.reduce((sum, hold) => sum + hold.counted, 0);
    if (this.requestCost !== undefined || this.calls.length > 0)
      this.progress.cost = (this.requestCost ?? 0) + calls;
    return this.progress.cost ?? 0;
  }

  /** Today's spending as the daily cap sees it, this turn's included. */
  private today(): number {
    const own = this.ownHolds ? this.calls.reduce((sum, hold) => sum + hold.counted, 0) : 0;
    return (this.deps.budget?.spentToday() ?? 0) + (this.requestCost ?? 0) + own;
  }

  /** The pause the user answered "stop" to, or undefined to send the request. */
  async beforeRequest(signal: AbortSignal): Promise<AgentPause | undefined> {
    const spent = this.update();
    return this.judge(spent > 0 ? this.lastCost : undefined, signal);
  }

  /**
   * Before a paid call: the pause the user answered "stop" to, or the hold of its estimate (on
   * the turn and on the day) to run it with.
   */
  async beforePaidCall(
    name: string,
    paid: PaidCall,
    signal: AbortSignal,
  ): Promise<{ pause: AgentPause } | { hold: SpendHold }> {
    this.update();
    const call = { name, ...(paid.estimate !== undefined ? { estimate: paid.estimate } : {}) };
    const pause = await this.judge(paid.estimate ?? Infinity, signal, call);
    if (pause) return { pause };
    const hold = this.holds.hold(paid.estimate, this.deps.now());
    this.calls.push(hold);
    this.update();
    return { hold };
  }

  /**
   * Whether `next` more would pass a cap (undefined: the turn's cap is not judged, as before a
   * turn's first request); asks at each cap it would pass.
   */
  private async judge(
    next: number | undefined,
    signal: AbortSignal,
    call?: AgentPause['call'],
  ): Promise<AgentPause | undefined> {
    const about = call ? { call } : {};
    const spent = this.progress.cost ?? 0;
    if (this.turnCap !== undefined && next !== undefined && spent + next > this.turnCap) {
      const pause: AgentPause = { kind: 'turnCost', spent, cap: this.turnCap, ...about };
      if (!(await this.ask(pause, signal))) return pause;
      this.turnCap = spent + (positive(this.deps.budget?.maxTurnCost) ?? 0);
      this.progress.costCap = this.turnCap;
    }
    if (this.dayCap !== undefined) {
      const today = this.today();
      if (today + (next ?? this.lastCost) > this.dayCap) {
        const pause: AgentPause = { kind: 'dayCost', spent: today, cap: this.dayCap, ...about };
        if (!(await this.ask(pause, signal))) return pause;
        this.dayCap = undefined;
      }
    }
    return undefined;
  }

  /** At the step cap: true when the user lets the turn take as many steps again. */
  async moreSteps(steps: number, signal: AbortSignal): Promise<boolean> {
    if (!(await this.ask({ kind: 'steps', spent: steps, cap: this.stepLimit }, signal))) return false;
    this.stepLimit += this.deps.maxSteps;
    return true;
  }

  private async ask(pause: AgentPause, signal: AbortSignal): Promise<boolean> {
    if (!this.deps.askToContinue || signal.aborted) return false;
    this.progress.pause = pause;
    try {
      return await this.deps.askToContinue({ ...this.progress }, signal);
    } catch (error) {
      if (signal.aborted) return false;
      throw error;
    } finally {
      delete this.progress.pause;
    }
  }
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

export function newTally(): AgentTally {
  return { progress: { steps: 0, promptTokens: 0, completionTokens: 0 }, generations: [] };
}

async function readReply(stream: AsyncIterable<ChatDelta>, events: AgentEvents): Promise<StepReply> {
  const completion = emptyCompletion();
  for await (const delta of stream) {
    // Tool calls arrive as snapshots, merged by index by the client.
    applyChatDelta(completion, delta);
    events.delta(delta);
  }
  return {
    content: completion.content,
    reasoning: completion.reasoning,
    calls: completion.toolCalls,
    reasoningDetails: completion.reasoningDetails,
    finishReason: completion.finishReason,
    generationId: completion.id,
    usage: completion.usage,
  };
}

/**
 * The step's calls as records. Each gets an id no other call of the conversation has (the
 * model's own where it is new: a repeated or missing one is replaced, or the gateway would see
 * two calls with one id), and a name providers take (an odd one is answered "no such tool").
 */
function callRecords(calls: readonly ToolCall[], used: Set<string>): ToolCallRecord[] {
  return calls.map((call) => {
    let id = call.id && call.id.length <= 200 ? call.id : '';
    while (!id || used.has(id)) id = `call_${Math.random().toString(36).slice(2, 12)}`;
    used.add(id);
    const name = TOOL_NAME.test(call.function.name)
      ? call.function.name
      : call.function.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'unnamed_tool';
    return { id, name, arguments: call.function.arguments, state: 'running' };
  });
}

/** A call checked and ready to run, or already answered (bad arguments, unknown tool…). */
type Planned = { call: ToolCallRecord; spec: ToolSpec; prepared: PreparedCall; ask: boolean } | undefined;

/** How a step's calls ended: normally, at a denied repeat, or at a spend cap the user stopped at. */
interface CallsEnd {
  repeatDenied?: true;
  budget?: AgentPause;
}

async function runCalls(
  step: AgentStep,
  index: number,
  specs: readonly ToolSpec[],
  deps: AgentLoopDeps,
  progress: AgentProgress,
  repeats: RepeatTracker,
  caps: Caps,
  signal: AbortSignal,
): Promise<CallsEnd> {
  const changed = () => deps.events.stepChanged(index, step, { ...progress });
  try {
    return await runEach(step, specs, deps, repeats, caps, signal, changed);
  } finally {
    // Stopped or failed: whatever did not finish is answered "not run", so the history stays valid.
    for (const call of step.calls)
      if (call.result === undefined) {
        call.state = 'cancelled';
        call.result = notRunResult(call);
      }
    changed();
  }
}

async function runEach(
  step: AgentStep,
  specs: readonly ToolSpec[],
  deps: AgentLoopDeps,
  repeats: RepeatTracker,
  caps: Caps,
  signal: AbortSignal,
  changed: () => void,
): Promise<CallsEnd> {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  let batch: Exclude<Planned, undefined>[] = [];
  let denied = false;
  let repeatDenied = false;
  let capped: AgentPause | undefined;
  const runBatch = async () => {
    const now = batch;
    batch = [];
    await Promise.all(now.map((p) => execute(p.call, p.prepared, deps, changed, signal)));
  };
  for (const [i, call] of step.calls.entries()) {
    if (signal.aborted) break;
    if (i >= MAX_CALLS_PER_STEP) {
      answer(call, 'failed', `Not run: a reply may make at most ${MAX_CALLS_PER_STEP} calls.`);
      continue;
    }
    if (denied) {
      answer(call, 'cancelled', 'Not run: the user denied an earlier call of this reply.');
      continue;
    }
    if (capped) {
      answer(call, 'cancelled', notRunAtCap(capped));
      continue;
    }
    const planned = await plan(call, byName, deps, repeats, signal);
    if (!planned) {
      changed();
      continue;
    }
    const { paid } = planned.prepared;
    if (!planned.ask && !paid) {
      batch.push(planned);
      continue;
    }
    // A call that asks, or costs, runs alone: the reads before it have finished first.
    await runBatch();
    if (signal.aborted) break;
    if (!planned.ask && paid) {
      capped = await runPaid(planned, paid, deps, caps, changed, signal);
      continue;
    }
    call.state = 'awaitingApproval';
    changed();
    let decision: ApprovalDecision;
    try {
      decision = await deps.approve(call, planned.prepared, signal, planned.spec);
    } catch (error) {
      if (signal.aborted) break;
      throw error;
    }
    if (decision.choice === 'deny') {
      call.state = 'denied';
      if (decision.reason) call.reason = decision.reason;
      call.result = notRunResult(call);
      denied = true;
      if (call.note) repeatDenied = true;
      changed();
      continue;
    }
    if (paid) capped = await runPaid(planned, paid, deps, caps, changed, signal);
    else await execute(call, planned.prepared, deps, changed, signal);
  }
  await runBatch();
  return { ...(repeatDenied ? { repeatDenied: true } : {}), ...(capped ? { budget: capped } : {}) };
}

/**
 * A paid call: judged against the caps by its estimate (pausing to ask past one), then run with
 * its hold. The pause the user stopped at, with the call answered "not run", or undefined.
 */
async function runPaid(
  planned: Exclude<Planned, undefined>,
  paid: PaidCall,
  deps: AgentLoopDeps,
  caps: Caps,
  changed: () => void,
  signal: AbortSignal,
): Promise<AgentPause | undefined> {
  const { call } = planned;
  const judged = await caps.beforePaidCall(call.name, paid, signal);
  if (signal.aborted) return undefined;
  if ('pause' in judged) {
    answer(call, 'cancelled', notRunAtCap(judged.pause));
    changed();
    return judged.pause;
  }
  await execute(call, planned.prepared, deps, changed, signal, judged.hold, paid);
  // Its reported cost (or kept estimate) shows in the turn's cost at once.
  caps.update();
  changed();
  return undefined;
}

/** The result of a call left unrun when the user stopped at a spend cap. */
function notRunAtCap(pause: AgentPause): string {
  const cap =
    pause.kind === 'dayCost'
      ? `the daily spend cap of ${formatCost(pause.cap)} (today: ${formatCost(pause.spent)})`
      : `this turn's spend cap of ${formatCost(pause.cap)} (spent: ${formatCost(pause.spent)})`;
  return `Not run: spend cap. It would have passed ${cap}, and the user stopped the turn there.`;
}

/** What a paid call's result says of its cost: the reported figure, else the estimate counted. */
function costLine(hold: SpendHold, paid: PaidCall): string {
  const end = hold.end;
  if (end?.kind === 'reported') return `Cost: ${formatCost(end.cost)}, as the gateway reported.`;
  if (end?.kind === 'notSent') return 'Cost: none, nothing was sent.';
  const estimate =
    paid.estimate !== undefined
      ? `the estimate of ${formatCost(paid.estimate)} (${paid.basis})`
      : `no estimate: ${paid.basis}`;
  return end
    ? `Cost: not reported by the gateway; ${paid.estimate !== undefined ? `${estimate} counts against the spend caps` : estimate}.`
    : `Cost: not known yet; ${paid.estimate !== undefined ? `${estimate} is held against the spend caps until the job ends` : estimate}.`;
}

function answer(call: ToolCallRecord, state: ToolCallRecord['state'], text: string): void {
  call.state = state;
  call.result = capResult(text);
}

async function plan(
  call: ToolCallRecord,
  byName: ReadonlyMap<string, ToolSpec>,
  deps: AgentLoopDeps,
  repeats: RepeatTracker,
  signal: AbortSignal,
): Promise<Planned> {
  const spec = byName.get(call.name);
  if (!spec) {
    const names = [...byName.keys()].slice(0, 50).join(', ');
    answer(
      call,
      'failed',
      `Error: there is no tool named "${call.name.slice(0, 100)}". Tools: ${names || 'none'}.`,
    );
    return undefined;
  }
  call.source = spec.source.label;
  const args = parseArguments(call.arguments);
  if (!args.ok) {
    answer(
      call,
      'failed',
      `Error: the arguments are not a JSON object (${args.error}). Call ${call.name} again with valid JSON.`,
    );
    return undefined;
  }
  let prepared: PreparedCall;
  try {
    prepared = await untilAborted(deps.tools.prepare(call.name, args.value, signal), signal);
  } catch (error) {
    if (signal.aborted) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    answer(
      call,
      'failed',
      `Error: ${error instanceof ToolInputError ? message : `${call.name} could not run: ${message}`}`,
    );
    return undefined;
  }
  if (prepared.confirmation) call.confirmation = prepared.confirmation;
  const repeated = repeats.see(call.name, args.value) >= AGENT_REPEAT_LIMIT;
  if (repeated) {
    call.note = `The model made this same call ${AGENT_REPEAT_LIMIT} times in a row. Allow it to go on, or deny to stop the loop.`;
    call.confirmation ??= {
      kind: 'tool',
      name: call.name,
      source: spec.source.label,
      arguments: prettyArguments(args.value),
    };
  }
  // The card offers only what the host will keep: a repeated call, and an edit that asks every
  // time, are allowed once.
  if (call.confirmation?.kind === 'tool' && !mayAlwaysAllow(spec))
    call.confirmation = { ...call.confirmation, noAlways: true };
  if (call.confirmation && (repeated || prepared.alwaysAsk))
    call.confirmation = { ...call.confirmation, onceOnly: true };
  return { call, spec, prepared, ask: repeated || deps.needsApproval(spec, call, prepared) };
}

async function execute(
  call: ToolCallRecord,
  prepared: PreparedCall,
  deps: AgentLoopDeps,
  changed: () => void,
  signal: AbortSignal,
  hold?: SpendHold,
  paid?: PaidCall,
): Promise<void> {
  call.state = 'running';
  call.startedAt = deps.now();
  changed();
  const running = prepared.run(signal, hold);
  // A tool that finishes after Stop still changed what it changed: undo must know.
  running.then(
    (output) => {
      if (output.changes?.length) deps.events.changed(output.changes);
    },
    () => undefined,
  );
  try {
    // Stop does not wait for a tool that ignores it: the call is answered "not run" at once.
    const output = await untilAborted(running, signal);
    call.state = output.isError ? 'failed' : 'done';
    const said = output.isError ? `Error: ${output.text}` : output.text;
    const text = hold && paid ? `${said}\n${costLine(hold, paid)}` : said;
    call.result = capResult(signal.aborted ? `${text}\n(The user then stopped the turn.)` : text);
  } catch (error) {
    if (signal.aborted) {
      call.state = 'cancelled';
      call.result = notRunResult(call);
    } else {
      const message = error instanceof Error ? error.message : String(error);
      answer(call, 'failed', `Error: ${call.name} failed: ${message}`);
    }
  }
  call.durationMs = Math.max(0, deps.now() - call.startedAt);
  changed();
}

/** One promise per signal that rejects when it aborts: every wait races it, with no listener each. */
const stops = new WeakMap<AbortSignal, Promise<never>>();

function stopped(signal: AbortSignal): Promise<never> {
  let stop = stops.get(signal);
  if (!stop) {
    stop = new Promise<never>((_resolve, reject) => {
      const fail = () => reject(new Error('The turn was stopped.'));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    stop.catch(() => undefined);
    stops.set(signal, stop);
  }
  return stop;
}

/** Settles with `work`, or rejects as soon as `signal` aborts (the work is left to finish alone). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  return Promise.race([work, stopped(signal)]);
}

/** How deep brackets nest in JSON text, outside strings (stops counting past `limit`). */
function nesting(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      deepest = Math.max(deepest, depth);
      if (deepest > limit) return deepest;
    } else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
  if (text.length > MAX_ARGUMENT_CHARS)
    return { ok: false, error: `${text.length} characters, more than ${MAX_ARGUMENT_CHARS}` };
  if (nesting(text, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH)
    return { ok: false, error: `nested more than ${MAX_ARGUMENT_DEPTH} deep` };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, error: `got ${Array.isArray(value) ? 'an array' : typeof value}` };
  } catch (error) {
    return { ok: false, error: (error as Error).message.slice(0, 200) };
  }
}

function prettyArguments(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A result as the model gets it: whole up to the cap, else its start and a note. */
export function capResult(text: string): string {
  if (text.length <= MAX_TOOL_RESULT_CHARS) return text;
  const note = `\n[… cut: the result was ${text.length} characters; ask for less, e.g. a line range.]`;
  return text.slice(0, MAX_TOOL_RESULT_CHARS - note.length) + note;
}

/** Counts the same call (name and arguments) made again and again, in a row, across steps. */
class RepeatTracker {
  private last = '';
  private count = 0;

  see(name: string, args: unknown): number {
    const key = `${name}\u0000${canonical(args)}`;
    this.count = key === this.last ? this.count + 1 : 1;
    this.last = key;
    return this.count;
  }
}

/** JSON with keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const sum = (a?: number, b?: number) =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

/** Sums two requests' usage, the nested details too (each figure absent only if absent in both). */
export function addUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return structuredClone(next);
  const out: Usage = {};
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens', 'cost'] as const) {
    const value = sum(total[key], next[key]);
    if (value !== undefined) out[key] = value;
  }
  const upstream = sum(
    total.cost_details?.upstream_inference_cost,
    next.cost_details?.upstream_inference_cost,
  );
  if (upstream !== undefined) out.cost_details = { upstream_inference_cost: upstream };
  const reasoning = sum(
    total.completion_tokens_details?.reasoning_tokens,
    next.completion_tokens_details?.reasoning_tokens,
  );
  if (reasoning !== undefined) out.completion_tokens_details = { reasoning_tokens: reasoning };
  const cached = sum(total.prompt_tokens_details?.cached_tokens, next.prompt_tokens_details?.cached_tokens);
  const written = sum(
    total.prompt_tokens_details?.cache_write_tokens,
    next.prompt_tokens_details?.cache_write_tokens,
  );
  if (cached !== undefined || written !== undefined)
    out.prompt_tokens_details = {
      ...(cached !== undefined ? { cached_tokens: cached } : {}),
      ...(written !== undefined ? { cache_write_tokens: written } : {}),
    };
  return out;
}

/**
 * The messages with the oldest tool results replaced by a short note, as few as it takes to fit
 * under `TRIM_AT` of the context; the newest results are always kept. Returns the input when it
 * fits or the context is unknown.
 */
export function trimToolResults(
  messages: ChatMessage[],
  contextLength: number | undefined,
  estimate: (messages: readonly ChatMessage[]) => number,
): ChatMessage[] {
  if (!contextLength) return messages;
  const budget = contextLength * TRIM_AT;
  let tokens = estimate(messages);
  if (tokens <= budget) return messages;
  const toolIndexes = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const trimmable = toolIndexes.slice(0, Math.max(0, toolIndexes.length - KEEP_NEWEST_RESULTS));
  const out = messages.slice();
  for (const i of trimmable) {
    const content = out[i].content;
    const length = typeof content === 'string' ? content.length : 0;
    if (length < 200) continue;
    const before = estimate([out[i]]);
    out[i] = {
      ...out[i],
      content: `[Trimmed to fit the model's context: this result was ${length} characters. Call the tool again if it is still needed.]`,
    };
    tokens -= before - estimate([out[i]]);
    if (tokens <= budget) break;
  }
  return out;
}
