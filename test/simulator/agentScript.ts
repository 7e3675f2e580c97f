/**
 * A scripted tool-calling model. A prompt carries its script in a fenced block:
 *
 *     ```sim-agent
 *     [{"calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
 *      {"text": "I'll edit it.", "calls": [{"name": "edit_file", "arguments": {...}}]},
 *      {"text": "Done: {{results}}"}]
 *     ```
 *
 * (or `{"steps": [...]}`). The answer to a request is the step whose index is the number of
 * assistant messages with `tool_calls` since the prompt: a step's calls go out as streamed
 * `tool_calls` deltas (`call_<n>`, numbered across the conversation), its text before them. A step
 * without calls ends the turn. Fields of a step:
 * - `reasoning`: streamed first, as reasoning (none by default).
 * - `text`: streamed next. `{{results}}` is replaced by the `tool` messages answering the
 *   previous step (one line each: `[call_3 read_file] <content>`), `{{result:N}}` by the content
 *   of the answer to `call_N`, `{{step}}` by the step's number (1-based).
 * - `calls`: `{name, arguments}`; `arguments` as an object (sent as JSON, `{{step}}` replaced in
 *   it) or as a string (sent exactly, so it can be invalid JSON). Several calls: parallel calls.
 * - `hang: true`: after its text the reply stalls until the client goes away (Stop tests).
 * - `repeat: true`: this step answers every request from here on, for ever (step caps, repeats).
 *
 * Pure functions over the request body: no I/O, unit-tested in `test/unit/api/simulatorAgent.test.ts`.
 */
import { isRecord } from './respond';

export interface AgentScriptCall {
  name: string;
  /** Exactly what goes out as the call's `arguments` (before `{{step}}` is replaced). */
  arguments: string;
}

export interface AgentScriptStep {
  text: string;
  /** Streamed as reasoning first (none by default). */
  reasoning: string;
  calls: AgentScriptCall[];
  hang: boolean;
  repeat: boolean;
}

export interface AgentScript {
  steps: AgentScriptStep[];
}

/** A call the reply makes, with its id. */
export interface PlannedCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the scripted model answers to one request. */
export interface AgentReply {
  /** 1-based. */
  step: number;
  text: string;
  reasoning: string;
  calls: PlannedCall[];
  hang: boolean;
}

/** A `tool` message the request carried, with the name of the call it answers. */
export interface ArrivedToolMessage {
  callId: string;
  name: string;
  content: string;
}

const FENCE = /```sim-agent[^\n]*\n([\s\S]*?)```/;

/** The script in `text`, `undefined` when it has none, or why the one it has is not valid. */
export function parseAgentScript(text: string): AgentScript | { error: string } | undefined {
  const match = FENCE.exec(text);
  if (!match) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(match[1]);
  } catch (error) {
    return { error: `The sim-agent block is not JSON: ${error instanceof Error ? error.message : ''}` };
  }
  const list = Array.isArray(value) ? value : isRecord(value) ? value.steps : undefined;
  if (!Array.isArray(list) || list.length === 0)
    return { error: 'The sim-agent block must be a non-empty array of steps (or {"steps": [...]}).' };
  const steps: AgentScriptStep[] = [];
  for (const [index, item] of list.entries()) {
    const step = parseStep(item);
    if (typeof step === 'string') return { error: `Step ${index + 1}: ${step}` };
    steps.push(step);
  }
  return { steps };
}

function parseStep(item: unknown): AgentScriptStep | string {
  if (!isRecord(item)) return 'a step is an object with text and/or calls.';
  if (item.text !== undefined && typeof item.text !== 'string') return '"text" must be a string.';
  if (item.reasoning !== undefined && typeof item.reasoning !== 'string')
    return '"reasoning" must be a string.';
  if (item.calls !== undefined && !Array.isArray(item.calls)) return '"calls" must be an array.';
  const calls: AgentScriptCall[] = [];
  for (const call of (item.calls as unknown[] | undefined) ?? []) {
    if (!isRecord(call) || typeof call.name !== 'string') return 'every call needs a "name".';
    const args = call.arguments;
    calls.push({
      name: call.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args === undefined ? {} : args),
    });
  }
  return {
    text: item.text ?? '',
    reasoning: item.reasoning ?? '',
    calls,
    hang: item.hang === true,
    repeat: item.repeat === true,
  };
}

/** The last user message's text (string content, or its text parts joined). */
export function lastUserText(messages: unknown[]): { text: string; index: number } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isRecord(message) || message.role !== 'user') continue;
    if (typeof message.content === 'string') return { text: message.content, index: i };
    const parts: unknown[] = Array.isArray(message.content) ? message.content : [];
    return {
      text: parts.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join(''),
      index: i,
    };
  }
  return undefined;
}

function toolCallsOf(message: unknown): unknown[] {
  return isRecord(message) && message.role === 'assistant' && Array.isArray(message.tool_calls)
    ? message.tool_calls
    : [];
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return JSON.stringify(content ?? null);
}

/** Every `tool` message of the conversation, in order, with the name of the call it answers. */
export function toolMessages(messages: unknown[], from = 0): ArrivedToolMessage[] {
  const names = new Map<string, string>();
  const arrived: ArrivedToolMessage[] = [];
  for (const message of messages) {
    for (const call of toolCallsOf(message)) {
      if (isRecord(call) && typeof call.id === 'string' && isRecord(call.function))
        names.set(call.id, typeof call.function.name === 'string' ? call.function.name : '?');
    }
  }
  messages.slice(from).forEach((message) => {
    if (!isRecord(message) || message.role !== 'tool') return;
    const callId = typeof message.tool_call_id === 'string' ? message.tool_call_id : '?';
    arrived.push({ callId, name: names.get(callId) ?? '?', content: contentText(message.content) });
  });
  return arrived;
}

/** The `tool` messages after the last assistant message: what the request brings back. */
export function trailingToolMessages(messages: unknown[]): ArrivedToolMessage[] {
  let start = messages.length;
  while (
    start > 0 &&
    isRecord(messages[start - 1]) &&
    (messages[start - 1] as { role?: unknown }).role === 'tool'
  )
    start--;
  return toolMessages(messages, start);
}

/** The names of the functions the request's `tools` declares. */
export function offeredTools(body: Record<string, unknown>): string[] {
  if (!Array.isArray(body.tools)) return [];
  return body.tools.flatMap((tool) =>
    isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string'
      ? [tool.function.name]
      : [],
  );
}

/** What the scripted model answers to `messages`, where the last user message carries `script`. */
export function agentReply(script: AgentScript, messages: unknown[], promptIndex: number): AgentReply {
  const since = messages.slice(promptIndex + 1);
  const stepIndex = since.filter((message) => toolCallsOf(message).length > 0).length;
  const step = stepAt(script, stepIndex);
  const number = stepIndex + 1;
  const callsSoFar = messages.reduce<number>((sum, message) => sum + toolCallsOf(message).length, 0);
  if (!step)
    return {
      step: number,
      text: `The sim-agent script has ${script.steps.length} steps; this was step ${number}.`,
      reasoning: '',
      calls: [],
      hang: false,
    };
  const results = toolMessages(messages, promptIndex + 1);
  const fill = (text: string): string =>
    text
      .replace(/\{\{step\}\}/g, String(number))
      .replace(/\{\{results\}\}/g, () =>
        trailingToolMessages(messages)
          .map((r) => `[${r.callId} ${r.name}] ${r.content}`)
          .join('\n'),
      )
      .replace(/\{\{result:(\d+)\}\}/g, (_, n: string) => {
        const found = results.find((r) => r.callId === `call_${n}`);
        return found ? found.content : `(no result for call_${n})`;
      });
  return {
    step: number,
    text: fill(step.text),
    reasoning: fill(step.reasoning),
    calls: step.calls.map((call, i) => ({
      id: `call_${callsSoFar + i + 1}`,
      name: call.name,
      arguments: call.arguments.replace(/\{\{step\}\}/g, String(number)),
    })),
    hang: step.hang,
  };
}

/** The step at `index`, or the last `repeat` step before it, or none when the script ran out. */
function stepAt(script: AgentScript, index: number): AgentScriptStep | undefined {
  const repeating = script.steps.findIndex((step) => step.repeat);
  if (repeating >= 0 && index >= repeating) return script.steps[repeating];
  return script.steps[index];
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Why a provider would refuse this tool conversation with 400, as OpenAI and Anthropic do, or
 * undefined when it is valid: every assistant `tool_calls` id answered by a `tool` message right
 * after it, no `tool` message answering nothing, `tools` declared whenever the conversation holds
 * calls, declared names valid and unique, and every call in the history naming a declared tool
 * (or one the script itself called: a model may call a tool it was not offered).
 */
export function toolWireProblem(
  body: Record<string, unknown>,
  scriptedNames: ReadonlySet<string>,
): string | undefined {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const declared = offeredTools(body);
  const seen = new Set<string>();
  for (const [i, name] of declared.entries()) {
    if (!TOOL_NAME.test(name))
      return `Invalid 'tools[${i}].function.name': string does not match pattern '^[a-zA-Z0-9_-]{1,64}$'.`;
    if (seen.has(name)) return `Tool names must be unique: '${name}' is declared twice.`;
    seen.add(name);
  }
  let hasToolTraffic = false;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (isRecord(message) && message.role === 'tool') {
      return `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (messages[${i}]).`;
    }
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    hasToolTraffic = true;
    const open = new Set<string>();
    for (const [c, call] of calls.entries()) {
      if (!isRecord(call) || typeof call.id !== 'string' || !call.id || !isRecord(call.function))
        return `messages[${i}].tool_calls[${c}] needs an id and a function.`;
      if (typeof call.function.name !== 'string' || typeof call.function.arguments !== 'string')
        return `messages[${i}].tool_calls[${c}].function needs a string name and string arguments.`;
      if (!seen.has(call.function.name) && !scriptedNames.has(call.function.name))
        return `messages[${i}].tool_calls[${c}] calls '${call.function.name}', which the request's tools do not declare.`;
      open.add(call.id);
    }
    let j = i + 1;
    for (; j < messages.length; j++) {
      const answer = messages[j];
      if (!isRecord(answer) || answer.role !== 'tool') break;
      const id = answer.tool_call_id;
      if (typeof id !== 'string' || !open.delete(id))
        return `Invalid parameter: messages[${j}] answers tool_call_id ${JSON.stringify(id ?? null)}, which the assistant message before it did not make (or that was answered already).`;
      if (typeof answer.content !== 'string' && !Array.isArray(answer.content))
        return `messages[${j}].content must be a string or an array of text parts.`;
    }
    if (open.size > 0)
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    i = j - 1;
  }
  if (hasToolTraffic && declared.length === 0)
    return 'Requests which include tool calls or tool results must define tools.';
  return undefined;
}
