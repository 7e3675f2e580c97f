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
 * - a step cap, and the same call three times in a row pauses for the user;
 * - Stop aborts the request and the running tool at once, and answers the rest "not run".
 */
import type { ChatDelta, ChatMessage, ToolCall, Usage } from '../../api/types';
import { notRunResult, stepMessages } from '../chat/conversation';
import type {
  AgentProgress,
  AgentStep,
  ApprovalDecision,
  FileChange,
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
  /** One streamed request to the gateway with these messages, offering these tools. */
  request(
    this: void,
    messages: ChatMessage[],
    tools: readonly ToolSpec[],
    signal: AbortSignal,
  ): AsyncIterable<ChatDelta>;
  tools: ToolSet;
  /** Whether this call must be approved first (the host's policy: reads run, the rest ask). */
  needsApproval(spec: ToolSpec, call: ToolCallRecord): boolean;
  /** Asks the user. Settles when they answer, or rejects when `signal` aborts. */
  approve(call: ToolCallRecord, prepared: PreparedCall, signal: AbortSignal): Promise<ApprovalDecision>;
  events: AgentEvents;
  now(): number;
  maxSteps: number;
  /** The model's context in tokens, when known: old tool results are trimmed as it nears. */
  contextLength?: number;
  estimateTokens(messages: readonly ChatMessage[]): number;
}

export type AgentEnd =
  /** The model answered without tool calls; its answer streamed through `delta`. */
  | { kind: 'answered' }
  /** The step cap was reached with the model still calling tools. */
  | { kind: 'stepCap'; steps: number };

export interface AgentResult {
  end: AgentEnd;
  steps: AgentStep[];
  progress: AgentProgress;
  /** The last step's finish reason and every step's generation id (for cost lookups). */
  finishReason?: string;
  generationIds: string[];
  /** Usage of every request, summed; absent when no request reported any. */
  usage?: Usage;
}

/** Share of the model's context at which old tool results start being trimmed. */
export const TRIM_AT = 0.8;
/** Tool results always kept whole, newest first. */
export const KEEP_NEWEST_RESULTS = 2;

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
): Promise<AgentResult> {
  const steps: AgentStep[] = [];
  const progress: AgentProgress = { steps: 0, promptTokens: 0, completionTokens: 0 };
  const generationIds: string[] = [];
  const repeats = new RepeatTracker();
  let usage: Usage | undefined;
  for (;;) {
    if (signal.aborted) throw new AgentStopped(steps);
    const specs = deps.tools.specs();
    const messages = trimToolResults(
      [...history, ...steps.flatMap(stepMessages)],
      deps.contextLength,
      (list) => deps.estimateTokens(list),
    );
    let reply: StepReply;
    try {
      reply = await readReply(deps.request(messages, specs, signal), deps.events);
    } catch (error) {
      if (signal.aborted) throw new AgentStopped(steps);
      throw error;
    }
    if (reply.generationId) generationIds.push(reply.generationId);
    if (reply.usage) {
      usage = addUsage(usage, reply.usage);
      progress.promptTokens += reply.usage.prompt_tokens ?? 0;
      progress.completionTokens += reply.usage.completion_tokens ?? 0;
      if (reply.usage.cost !== undefined) progress.cost = (progress.cost ?? 0) + reply.usage.cost;
    }
    progress.steps++;
    if (reply.calls.length === 0)
      return {
        end: { kind: 'answered' },
        steps,
        progress,
        finishReason: reply.finishReason,
        generationIds,
        usage,
      };
    const step: AgentStep = {
      content: reply.content,
      calls: callRecords(reply.calls, steps.length),
    };
    if (reply.reasoning) step.reasoning = reply.reasoning;
    if (reply.reasoningDetails.length) step.reasoningDetails = reply.reasoningDetails;
    const index = steps.push(step) - 1;
    deps.events.stepAdded(index, step, { ...progress });
    await runCalls(step, index, specs, deps, progress, repeats, signal);
    if (signal.aborted) throw new AgentStopped(steps);
    if (steps.length >= deps.maxSteps)
      return { end: { kind: 'stepCap', steps: steps.length }, steps, progress, generationIds, usage };
  }
}

async function readReply(stream: AsyncIterable<ChatDelta>, events: AgentEvents): Promise<StepReply> {
  const reply: StepReply = { content: '', reasoning: '', calls: [], reasoningDetails: [] };
  for await (const delta of stream) {
    switch (delta.type) {
      case 'content':
        reply.content += delta.text;
        break;
      case 'reasoning':
        reply.reasoning += delta.text;
        break;
      case 'tool_calls':
        // A snapshot of every call so far, merged by index by the client.
        reply.calls = delta.toolCalls;
        break;
      case 'reasoning_details':
        reply.reasoningDetails.push(...delta.details);
        break;
      case 'finish':
        reply.finishReason = delta.reason;
        break;
      case 'usage':
        reply.usage = delta.usage;
        break;
      case 'meta':
        reply.generationId ??= delta.id;
        break;
      case 'annotations':
        break;
    }
    events.delta(delta);
  }
  return reply;
}

/** The step's calls as records, each with an id no other call of the turn has. */
function callRecords(calls: readonly ToolCall[], stepIndex: number): ToolCallRecord[] {
  const seen = new Set<string>();
  return calls.map((call, i) => {
    let id = call.id && call.id.length <= 200 ? call.id : '';
    if (!id || seen.has(id)) id = `call_${stepIndex}_${i}`;
    seen.add(id);
    return { id, name: call.function.name, arguments: call.function.arguments, state: 'running' };
  });
}

/** A call checked and ready to run, or already answered (bad arguments, unknown tool…). */
type Planned = { call: ToolCallRecord; spec: ToolSpec; prepared: PreparedCall; ask: boolean } | undefined;

async function runCalls(
  step: AgentStep,
  index: number,
  specs: readonly ToolSpec[],
  deps: AgentLoopDeps,
  progress: AgentProgress,
  repeats: RepeatTracker,
  signal: AbortSignal,
): Promise<void> {
  const changed = () => deps.events.stepChanged(index, step, { ...progress });
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  let batch: Exclude<Planned, undefined>[] = [];
  let denied = false;
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
    const planned = await plan(call, byName, deps, repeats, signal);
    if (!planned) {
      changed();
      continue;
    }
    if (!planned.ask) {
      batch.push(planned);
      continue;
    }
    // A call that asks runs alone: the reads before it have finished first.
    await runBatch();
    if (signal.aborted) break;
    call.state = 'awaitingApproval';
    changed();
    let decision: ApprovalDecision;
    try {
      decision = await deps.approve(call, planned.prepared, signal);
    } catch (error) {
      if (signal.aborted) break;
      throw error;
    }
    if (decision.choice === 'deny') {
      call.state = 'denied';
      if (decision.reason) call.reason = decision.reason;
      call.result = notRunResult(call);
      denied = true;
      changed();
      continue;
    }
    await execute(call, planned.prepared, deps, changed, signal);
  }
  await runBatch();
  // Stopped: whatever did not finish is answered "not run".
  for (const call of step.calls)
    if (call.result === undefined) {
      call.state = 'cancelled';
      call.result = notRunResult(call);
    }
  changed();
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
    prepared = await deps.tools.prepare(call.name, args.value, signal);
  } catch (error) {
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
  return { call, spec, prepared, ask: repeated || deps.needsApproval(spec, call) };
}

async function execute(
  call: ToolCallRecord,
  prepared: PreparedCall,
  deps: AgentLoopDeps,
  changed: () => void,
  signal: AbortSignal,
): Promise<void> {
  call.state = 'running';
  call.startedAt = deps.now();
  changed();
  try {
    const output = await prepared.run(signal);
    if (signal.aborted) {
      call.state = 'cancelled';
      call.result = notRunResult(call);
    } else {
      call.state = output.isError ? 'failed' : 'done';
      call.result = capResult(output.isError ? `Error: ${output.text}` : output.text);
    }
    if (output.changes?.length) deps.events.changed(output.changes);
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

function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
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

function addUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return { ...next };
  const sum = (a?: number, b?: number) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const out: Usage = { ...total, ...next };
  for (const key of ['prompt_tokens', 'completion_tokens', 'total_tokens', 'cost'] as const) {
    const value = sum(total[key], next[key]);
    if (value !== undefined) out[key] = value;
  }
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
