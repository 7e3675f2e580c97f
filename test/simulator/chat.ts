/** POST /api/v1/chat/completions: echo replies, streamed or whole, with the scenario faults. */
import { respondWithFailure } from './context';
import { describeImages, imagesInLastUserMessage } from './images';
import type { RequestContext, SimulatorCore } from './context';
import {
  REASONING_PARTS,
  TOOL_CALLS,
  simToolCall,
  citationReply,
  echoReply,
  longReply,
  slowReply,
  splitText,
  tokens,
  xssReply,
} from './replies';
import type { SimToolCall } from './replies';
import { isRecord, sendError, sendJson } from './respond';
import {
  agentReply,
  lastUserText,
  offeredTools,
  parseAgentScript,
  toolWireProblem,
  trailingToolMessages,
} from './agentScript';
import type { AgentReply, ArrivedToolMessage } from './agentScript';
import { HOSTILE_SCENARIOS, scenariosFromMarkers } from './scenarios';
import type { ScenarioSet } from './scenarios';
import { cacheMarks, sendInFlight402 } from './openRouterQuirks';
import { encodeSse, writeSse, writeSseBytes } from './sseWriter';
import { modeCost, modeModel, openAiUsage, sendOpenAiError, strictRefusal } from './dialectModes';
import type { SseItem } from './sseWriter';

interface ReplyPlan {
  /** Fields of the wrong type, mixed into the chunks (`hostile-types`). */
  hostile?: boolean;
  /** Instead of the reply: this item written again and again until the client gives up. */
  forever?: SseItem;
  id: string;
  model: string;
  created: number;
  reasoning: string[];
  content: string[];
  /** The tool calls the reply makes after its text (none: a text reply). */
  toolCalls: SimToolCall[];
  /** After its text the reply stalls until the client goes away (a scripted `hang` step). */
  hang?: boolean;
  annotations?: unknown[];
  finishReason: string;
  usage: Record<string, unknown>;
  delayMs: number;
  /** The provider named in the chunks: the first of the request's `provider.only`, else the simulator's. */
  provider?: string;
  /** The request asked for usage in the stream (`stream_options.include_usage`). */
  includeUsage?: boolean;
}

/**
 * The checks another kind of gateway makes before answering (see dialectModes.ts): its own model
 * ids, OpenAI's body fields (a strict upstream's, through LiteLLM too), a local model without
 * tools. True when it answered.
 */
function refusedByDialect(context: RequestContext, core: SimulatorCore): boolean {
  const mode = core.dialect;
  if (!mode) return false;
  const body = context.body as Record<string, unknown>;
  const { response } = context;
  const model = typeof body.model === 'string' ? body.model : '';
  const known = modeModel(mode, model);
  if (!known || known.mode !== 'chat') {
    if (mode === 'litellm')
      sendOpenAiError(
        response,
        400,
        `litellm.BadRequestError: Invalid model name passed in model=${model}. Call \`/v1/models\` to view available models for your key.`,
        { type: null, code: '400' },
      );
    else if (mode === 'local')
      sendOpenAiError(response, 404, `model "${model}" not found, try pulling it first`, {
        type: 'api_error',
      });
    else
      sendOpenAiError(
        response,
        404,
        `The model \`${model}\` does not exist or you do not have access to it.`,
        {
          code: 'model_not_found',
        },
      );
    return true;
  }
  if (mode === 'local') {
    if (Array.isArray(body.tools) && body.tools.length > 0 && !known.tools) {
      context.record.wireProblem = 'tools';
      sendOpenAiError(response, 400, `registry.ollama.ai/library/${model} does not support tools`, {
        type: 'api_error',
      });
      return true;
    }
    return false;
  }
  const refusal = strictRefusal(body);
  if (!refusal) return false;
  context.record.wireProblem = refusal.message;
  if (mode === 'litellm')
    sendOpenAiError(
      response,
      400,
      `litellm.BadRequestError: OpenAIException - ${refusal.message}. Received Model Group=${model}\nAvailable Model Group Fallbacks=None`,
      { type: null, param: null, code: '400' },
    );
  else sendOpenAiError(response, 400, refusal.message, { param: refusal.param });
  return true;
}

/** LiteLLM's headers: its cost of the reply (tokens × its price), and its call id. */
function liteLlmHeaders(core: SimulatorCore, plan: ReplyPlan): Record<string, string> {
  if (core.dialect !== 'litellm') return {};
  const usage = plan.usage;
  const prompt = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  const completion = typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0;
  return {
    'x-litellm-response-cost': String(modeCost('litellm', plan.model, prompt, completion)),
    'x-litellm-call-id': `call-${plan.id}`,
    'x-litellm-version': '1.74.0',
  };
}

export async function handleChat(context: RequestContext, core: SimulatorCore): Promise<void> {
  const { body, response } = context;
  if (!isRecord(body)) return sendError(response, 400, 'The request body must be a JSON object.');
  const model = body.model;
  if (core.dialect) {
    if (refusedByDialect(context, core)) return;
  } else if (typeof model !== 'string' || !/^[^/\s]+\/\S+$/.test(model)) {
    return sendError(
      response,
      400,
      `${JSON.stringify(model ?? null)} is not a valid model ID (expected vendor/model_name).`,
    );
  }
  if (typeof model !== 'string') return sendError(response, 400, 'model is required');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return sendError(response, 400, 'Input required: "messages" must be a non-empty array.');
  }
  if (context.apiKey.includes('forbidden')) {
    return sendError(response, 403, `Key ${context.apiKey} is not allowed to use model ${model}.`, {
      metadata: { provider_name: core.providerName },
    });
  }
  // What routing, reasoning and plugins the gateway was asked for, echoed back (URI-encoded JSON).
  const echo = {
    provider: body.provider,
    reasoning: body.reasoning,
    plugins: body.plugins,
    tools: body.tools,
  };
  response.setHeader('x-sim-echo', encodeURIComponent(JSON.stringify(echo)).slice(0, 8000));
  recordImages(body.messages, context.record.id, core);
  const arrived = trailingToolMessages(body.messages);
  const toolResults = arrived.length ? arrived : undefined;
  if (Array.isArray(body.tools)) context.record.offeredTools = offeredTools(body);
  if (toolResults) context.record.toolMessages = toolResults;
  const prompt = lastUserText(body.messages);
  // A summary request carries earlier prompts (their scripts and markers) as its transcript.
  const summary = summaryReply(body.messages);
  if (summary) context.record.summaryOf = summary.lines;
  const agent = prompt && !summary ? scriptedReply(context, core, prompt.text, prompt.index) : undefined;
  if (agent === null) return;
  // Every request is held to providers' tool wire rules, not only scripted ones: a history with
  // tool calls and no tools declared is refused.
  if (agent === undefined && refusedWire(context, core, toolWireProblem(body, new Set()))) return;
  // After tool results the model answers them: the markers of the prompt that asked for the
  // tools (#sim:tools) must not ask again. A scripted prompt's markers hold for every step.
  const userText = (toolResults && !agent) || summary ? '' : (prompt?.text ?? '');
  const scenarios = core.scenariosFor(context, scenariosFromMarkers(userText));
  context.record.scenarios = scenarios.names();
  context.record.cacheMarks = cacheMarks(body.messages);
  if (
    scenarios.has('402-inflight') &&
    core.countHit(`402-inflight|${context.apiKey}`) < scenarios.numberArg('402-inflight', 1)
  )
    return sendInFlight402(context.response);
  if (respondWithFailure(context, core, scenarios, 'chat')) return;
  if (scenarios.has('moderation')) return sendModerationError(context, core, userText);

  if (body.stream === true && isCacheableLong(scenarios))
    return streamLongFromCache(context, core, scenarios, model);
  const plan = planReply(context, core, scenarios, model, body.messages.length, userText);
  plan.provider = servedBy(body.provider) ?? core.providerName;
  plan.includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  if (summary) {
    plan.reasoning = [];
    plan.content = splitText(summary.text, 12);
    plan.toolCalls = [];
    plan.finishReason = 'stop';
  } else if (agent) {
    plan.reasoning = agent.reasoning ? [agent.reasoning] : [];
    plan.content = agent.text ? splitText(agent.text, 12) : [];
    plan.toolCalls = agent.calls;
    plan.finishReason = agent.calls.length ? 'tool_calls' : 'stop';
    plan.hang = agent.hang;
  } else if (toolResults) {
    plan.content = splitText(toolResultsReply(model, toolResults), 12);
    plan.toolCalls = [];
    plan.finishReason = 'stop';
  }
  const hostile = scenarios.first(HOSTILE_SCENARIOS);
  if (hostile) applyHostile(plan, scenarios, hostile.name);
  // `#sim:no-cost`: tokens but no cost, and no generation record, as OpenAI-style gateways answer.
  if (scenarios.has('no-cost')) delete plan.usage.cost;
  else core.quirks.remember(plan.id, { usage: plan.usage, model, provider: core.providerName });
  if (body.stream === true) await streamReply(context, core, scenarios, plan);
  else answerWhole(context, core, scenarios, plan);
}

/**
 * The scripted model's answer when the prompt carries a `sim-agent` script (see agentScript.ts);
 * undefined without one; null when it answered 400 itself (a broken script, or a tool
 * conversation a real provider would refuse).
 */
function scriptedReply(
  context: RequestContext,
  core: SimulatorCore,
  text: string,
  promptIndex: number,
): AgentReply | null | undefined {
  const body = context.body as Record<string, unknown>;
  const script = parseAgentScript(text);
  if (!script) return undefined;
  if ('error' in script) {
    sendError(context.response, 400, `sim-agent: ${script.error}`);
    return null;
  }
  const problem = toolWireProblem(body, new Set(script.steps.flatMap((s) => s.calls.map((c) => c.name))));
  if (refusedWire(context, core, problem)) return null;
  const reply = agentReply(script, body.messages as unknown[], promptIndex);
  context.record.agentStep = reply.step;
  return reply;
}

/** Answers 400 with `problem`, as a provider would, when there is one. */
function refusedWire(context: RequestContext, core: SimulatorCore, problem: string | undefined): boolean {
  if (!problem) return false;
  context.record.wireProblem = problem;
  sendError(context.response, 400, problem, { metadata: { provider_name: core.providerName } });
  return true;
}

/** The first line of the instructions the extension sends with a summary request (compaction). */
const SUMMARY_REQUEST = 'You write the summary of an earlier part of a conversation';

/**
 * A summarising model's answer, when the request is a summary request: a short summary naming
 * how many transcript lines it read and the first words of each prompt in it.
 */
function summaryReply(messages: unknown[]): { text: string; lines: number } | undefined {
  const [system, transcript] = messages;
  if (!isRecord(system) || system.role !== 'system' || typeof system.content !== 'string') return undefined;
  if (!system.content.startsWith(SUMMARY_REQUEST)) return undefined;
  const text = isRecord(transcript) && typeof transcript.content === 'string' ? transcript.content : '';
  const lines = text.split('\n').filter((line) => line.trim());
  const prompts = lines.filter((line) => line.startsWith('User: ')).map((line) => line.slice(6, 40).trim());
  return {
    text: `SIM-SUMMARY of ${lines.length} lines. The user asked: ${prompts.join(' | ') || 'nothing'}.`,
    lines: lines.length,
  };
}

/** Notes every `image_url` part of every message for the tests (`seenImages`). */
function recordImages(messages: unknown[], requestId: number, core: SimulatorCore): void {
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isRecord(part) || part.type !== 'image_url' || !isRecord(part.image_url)) continue;
      const url = part.image_url.url;
      const match = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
      core.seenImages.push({
        requestId,
        mimeType: match ? match[1] : 'url',
        bytes: match ? Buffer.from(match[2], 'base64').length : 0,
      });
    }
  }
}

/** Whether the request's `tools` lists a function of that name. */
function offersTool(body: unknown, name: string | undefined): boolean {
  if (!name || !isRecord(body) || !Array.isArray(body.tools)) return false;
  return body.tools.some((t) => isRecord(t) && isRecord(t.function) && t.function.name === name);
}

function toolResultsReply(model: string, results: ArrivedToolMessage[]): string {
  return [
    `Tool results received by ${model}:`,
    ...results.map((r) => `- ${r.name} (${r.callId}): ${r.content}`),
  ].join('\n');
}

function planReply(
  context: RequestContext,
  core: SimulatorCore,
  scenarios: ScenarioSet,
  model: string,
  messageCount: number,
  lastUserText: string,
): ReplyPlan {
  const content = scenarios.first(['slow', 'long', 'tools', 'call', 'xss', 'citations']);
  const messages = (context.body as Record<string, unknown>).messages as unknown[];
  const images = describeImages(imagesInLastUserMessage(messages));
  let text = echoReply(model, lastUserText, messageCount);
  if (images) text = `${images}\n\n${text}`;
  let pieceSize = 12;
  let delayMs = core.chunkDelayMs;
  let annotations: unknown[] | undefined;
  switch (content?.name) {
    case 'slow':
      text = slowReply(model, lastUserText);
      delayMs = 50;
      break;
    case 'long':
      text = longReply(model, scenarios.numberArg('long', 20_000));
      pieceSize = 64;
      delayMs = 0;
      break;
    case 'tools':
      text = '';
      break;
    case 'call':
      // A call of one named tool, made only when the request offers it.
      if (offersTool(context.body, content.arg)) text = '';
      else text = `The tool ${content.arg ?? '(none named)'} was not offered to ${model}.`;
      break;
    case 'xss':
      text = xssReply(core.origin);
      break;
    case 'citations': {
      const reply = citationReply(model);
      text = reply.text;
      annotations = reply.annotations;
      break;
    }
    case undefined:
      break;
  }
  const reasoning = REASONING_PARTS;
  const toolCalls =
    content?.name === 'tools'
      ? TOOL_CALLS
      : content?.name === 'call' && !text && content.arg
        ? [simToolCall(content.arg)]
        : [];
  const completionTokens = tokens(text) + (toolCalls.length ? 20 : 0);
  const reasoningTokens = tokens(reasoning.join(''));
  const promptTokens = tokens(JSON.stringify((context.body as Record<string, unknown>).messages));
  const quirkUsage = core.dialect
    ? openAiUsage(promptTokens, completionTokens)
    : core.quirks.enabled
      ? core.quirks.usage(model, messages, completionTokens, reasoningTokens)
      : undefined;
  return {
    id: `gen-sim-${context.record.id}`,
    model,
    created: Math.floor(Date.now() / 1000),
    // Other gateways pass no reasoning text on.
    reasoning: core.dialect ? [] : reasoning,
    content: text ? splitText(text, pieceSize) : [],
    toolCalls,
    annotations,
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    delayMs,
    usage: quirkUsage ?? {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens + reasoningTokens,
      total_tokens: promptTokens + completionTokens + reasoningTokens,
      // Simulated prices: $0.15 / $0.60 per million tokens.
      cost: Number(((promptTokens * 0.15 + (completionTokens + reasoningTokens) * 0.6) / 1e6).toFixed(8)),
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: reasoningTokens },
    },
  };
}

/** Routing as a router would honour it: a request limited to named providers is served by the first. */
function servedBy(provider: unknown): string | undefined {
  const only = isRecord(provider) && Array.isArray(provider.only) ? (provider.only as unknown[]) : [];
  return typeof only[0] === 'string' ? only[0] : undefined;
}

function streamItems(plan: ReplyPlan, core: SimulatorCore, scenarios: ScenarioSet): SseItem[] {
  const base = {
    id: plan.id,
    ...(core.dialect ? {} : { provider: plan.provider ?? core.providerName }),
    model: plan.model,
    object: 'chat.completion.chunk',
    created: plan.created,
  };
  const processing: SseItem[] = core.dialect ? [] : [{ kind: 'comment', text: 'OPENROUTER PROCESSING' }];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): SseItem => ({
    kind: 'data',
    json: {
      ...base,
      choices: [
        {
          index: 0,
          delta: { role: 'assistant', ...delta },
          finish_reason: finishReason,
          native_finish_reason: finishReason,
          logprobs: null,
        },
      ],
    },
  });
  const items: SseItem[] = [...processing];
  if (plan.forever) {
    items.push(chunk({ content: '' }), plan.forever);
    return items;
  }
  if (plan.hostile) items.push(...hostileItems(base));
  for (const part of plan.reasoning) {
    items.push(
      chunk({
        content: '',
        reasoning: part,
        reasoning_details: [{ type: 'reasoning.text', text: part, format: 'unknown', index: 0 }],
      }),
    );
  }
  items.push(...processing);

  const fault = scenarios.first(['drop', 'stall', 'malformed', 'error-chunk']);
  const faultAt = Math.max(1, Math.floor(plan.content.length / 2));
  for (let i = 0; i < plan.content.length; i++) {
    if (fault && i === faultAt) {
      // LiteLLM ends a stream its upstream cut as if it were finished.
      if (core.dialect === 'litellm' && fault.name === 'drop') {
        items.push(chunk({}, 'stop'), { kind: 'done' });
        return items;
      }
      items.push(...faultItemsFor(fault.name, base, core));
      if (fault.name !== 'malformed') return items;
    }
    const last = i === plan.content.length - 1;
    if (scenarios.has('processing')) items.push({ kind: 'comment', text: 'PROCESSING' });
    items.push(
      chunk(
        last && plan.annotations
          ? { content: plan.content[i], annotations: plan.annotations }
          : { content: plan.content[i] },
      ),
    );
  }
  if (fault && plan.content.length <= faultAt) {
    items.push(...faultItemsFor(fault.name, base, core));
    if (fault.name !== 'malformed') return items;
  }
  if (plan.hang) {
    items.push({ kind: 'stall' });
    return items;
  }
  if (plan.toolCalls.length) items.push(...toolCallItems(plan.toolCalls, chunk));
  items.push(chunk({}, plan.finishReason));
  // OpenAI-style gateways put usage in a stream only when asked to.
  if (!scenarios.has('no-usage') && (!core.dialect || plan.includeUsage))
    items.push({ kind: 'data', json: { ...base, choices: [], usage: plan.usage } });
  items.push({ kind: 'done' });
  return items;
}

/** The upstream provider's own error in an `error-chunk`, as OpenRouter passes it on in `metadata.raw`. */
export const UPSTREAM_ERROR = { type: 'overloaded_error', message: 'Upstream overloaded (simulated)' };

/** What moderation found in a `moderation` request: OpenRouter's 403 with reasons and the flagged input. */
function sendModerationError(context: RequestContext, core: SimulatorCore, lastUserText: string): void {
  sendError(
    context.response,
    403,
    `${String((context.body as Record<string, unknown>).model)} requires moderation on your input, which was flagged`,
    {
      metadata: {
        reasons: ['violence', '[harassment](command:workbench.action.openSettings)'],
        flagged_input: lastUserText.slice(0, 100),
        provider_name: core.providerName,
        model_slug: String((context.body as Record<string, unknown>).model),
      },
    },
  );
}

/** Wrong-typed usage, citations, tool calls and reasoning, as broken gateways were seen sending. */
export const HOSTILE_USAGE = {
  prompt_tokens: '12',
  completion_tokens: { value: 30 },
  total_tokens: -1,
  cost: [0.1],
  completion_tokens_details: 'many',
  prompt_tokens_details: { cached_tokens: 'none' },
};
export const HOSTILE_ANNOTATIONS = [
  'not an annotation',
  { type: 'url_citation', url_citation: { url: 42, title: ['x'] } },
  { type: 'url_citation', url_citation: 'https://evil.example/' },
  { type: 7 },
  { type: 'url_citation', url_citation: { url: 'https://docs.example.com/ok', title: 12 } },
];

function hostileItems(base: Record<string, unknown>): SseItem[] {
  const chunk = (delta: unknown, extra: Record<string, unknown> = {}): SseItem => ({
    kind: 'data',
    json: { ...base, ...extra, choices: [{ index: 0, delta, finish_reason: null }] },
  });
  return [
    chunk(
      { content: 42, reasoning: { text: 'x' }, reasoning_details: 'nope' },
      { model: ['m'], provider: 5 },
    ),
    chunk({ tool_calls: [{ index: '0', id: 9, function: { name: 5, arguments: 7 } }, 'x', null] }),
    chunk({ annotations: HOSTILE_ANNOTATIONS }),
    chunk({ tool_calls: { index: 0 } }),
    { kind: 'data', json: { ...base, choices: 'none', usage: 'lots' } },
    { kind: 'data', json: [1, 2, 3] },
    { kind: 'data', json: 'just a string' },
    { kind: 'data', json: { ...base, choices: [{ index: 0, delta: 'text', finish_reason: 17 }] } },
  ];
}

function applyHostile(plan: ReplyPlan, scenarios: ScenarioSet, name: string): void {
  switch (name) {
    case 'hostile-types':
      plan.hostile = true;
      plan.usage = HOSTILE_USAGE;
      plan.annotations = HOSTILE_ANNOTATIONS;
      break;
    case 'keepalive': {
      // Comments and empty events, which carry nothing: the client must still time out.
      const everyMs = scenarios.numberArg('keepalive', 100);
      plan.forever = {
        kind: 'forever',
        everyMs,
        make: (n) =>
          n % 2 === 0 ? { kind: 'comment', text: 'OPENROUTER PROCESSING' } : { kind: 'raw', text: 'data:' },
      };
      break;
    }
    case 'endless': {
      const everyMs = scenarios.numberArg('endless', 20);
      const base = { id: plan.id, model: plan.model, object: 'chat.completion.chunk' };
      plan.forever = {
        kind: 'forever',
        everyMs,
        make: (n) => ({
          kind: 'data',
          json: { ...base, choices: [{ index: 0, delta: { content: `more ${n} ` }, finish_reason: null }] },
        }),
      };
      break;
    }
    case 'huge': {
      // `huge:<megabytes>` of content in 64 KiB pieces (default 10 MB).
      const megabytes = scenarios.numberArg('huge', 10);
      const piece = 'x'.repeat(64 * 1024);
      plan.content = Array.from({ length: Math.ceil((megabytes * 1024 * 1024) / piece.length) }, () => piece);
      plan.delayMs = 0;
      break;
    }
  }
}

function faultItemsFor(name: string, base: Record<string, unknown>, core: SimulatorCore): SseItem[] {
  switch (name) {
    case 'drop':
      return [{ kind: 'drop' }];
    case 'stall':
      return [{ kind: 'stall' }];
    case 'malformed':
      return [
        { kind: 'raw', text: `data: {"id":"${String(base.id)}","choices":[{"delta":{"content":"broken` },
      ];
    default:
      return [
        {
          kind: 'data',
          json: {
            ...base,
            error: {
              message: `Provider ${core.providerName} disconnected mid-stream`,
              code: 502,
              metadata: { provider_name: core.providerName, raw: UPSTREAM_ERROR },
            },
            choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
          },
        },
      ];
  }
}

/** The tool calls, their fragments interleaved, each keyed by `index`. */
function toolCallItems(calls: SimToolCall[], chunk: (delta: Record<string, unknown>) => SseItem): SseItem[] {
  const items: SseItem[] = [];
  calls.forEach((call, index) => {
    items.push(
      chunk({
        content: null,
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
  });
  const pieces = calls.map((call) => splitText(call.arguments, 9));
  const longest = Math.max(...pieces.map((list) => list.length));
  for (let p = 0; p < longest; p++) {
    pieces.forEach((list, index) => {
      if (p < list.length)
        items.push(chunk({ content: null, tool_calls: [{ index, function: { arguments: list[p] } }] }));
    });
  }
  return items;
}

async function streamReply(
  context: RequestContext,
  core: SimulatorCore,
  scenarios: ScenarioSet,
  plan: ReplyPlan,
): Promise<void> {
  const chunkBytes = scenarios.numberArg('chunk', 0) || undefined;
  context.response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    ...(core.quirks.enabled ? { 'x-generation-id': plan.id } : {}),
    ...liteLlmHeaders(core, plan),
  });
  context.response.flushHeaders();
  await writeSse(context.response, streamItems(plan, core, scenarios), {
    delayMs: plan.delayMs,
    chunkBytes,
    crlf: scenarios.has('crlf'),
    onDrop: () => context.markDropped(),
  });
}

/**
 * Long fault-free streams are encoded once and replayed from memory (their id repeats), so that
 * benchmarks measure the client rather than the simulator's JSON encoding.
 */
const longStreamCache = new Map<string, Buffer>();
const LONG_CACHE_ENTRIES = 4;

function isCacheableLong(scenarios: ScenarioSet): boolean {
  return (
    scenarios.first(['slow', 'long', 'tools', 'xss', 'citations'])?.name === 'long' &&
    !scenarios.first(['drop', 'stall', 'malformed', 'error-chunk'])
  );
}

async function streamLongFromCache(
  context: RequestContext,
  core: SimulatorCore,
  scenarios: ScenarioSet,
  model: string,
): Promise<void> {
  const crlf = scenarios.has('crlf');
  const key = `${model}|${scenarios.numberArg('long', 20_000)}|${crlf}|${core.providerName}`;
  let bytes = longStreamCache.get(key);
  if (!bytes) {
    const plan = planReply(context, core, scenarios, model, 1, '');
    bytes = Buffer.from(encodeSse(streamItems(plan, core, scenarios), crlf), 'utf8');
    if (longStreamCache.size >= LONG_CACHE_ENTRIES)
      longStreamCache.delete(longStreamCache.keys().next().value as string);
    longStreamCache.set(key, bytes);
  }
  context.response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  await writeSseBytes(context.response, bytes, scenarios.numberArg('chunk', 0) || undefined);
}

function answerWhole(
  context: RequestContext,
  core: SimulatorCore,
  scenarios: ScenarioSet,
  plan: ReplyPlan,
): void {
  const { response } = context;
  const fault = scenarios.first(['drop', 'stall', 'malformed', 'error-chunk']);
  if (fault?.name === 'drop') {
    context.markDropped();
    response.socket?.destroy();
    return;
  }
  if (fault?.name === 'stall' || plan.hang) return; // never answers
  if (fault?.name === 'malformed') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`{"id":"${plan.id}","choices":[{"message":{"content":"broken`);
    return;
  }
  if (fault?.name === 'error-chunk') {
    return sendJson(response, 200, {
      id: plan.id,
      error: {
        message: `Provider ${core.providerName} failed after routing`,
        code: 502,
        metadata: { provider_name: core.providerName },
      },
    });
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: plan.toolCalls.length && !plan.content.length ? null : plan.content.join(''),
    refusal: null,
    reasoning: plan.reasoning.join(''),
    reasoning_details: [
      { type: 'reasoning.text', text: plan.reasoning.join(''), format: 'unknown', index: 0 },
    ],
  };
  if (plan.toolCalls.length) {
    message.tool_calls = plan.toolCalls.map((call, index) => ({
      index,
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  if (plan.annotations) message.annotations = plan.annotations;
  if (plan.hostile) {
    message.content = [{ type: 'text', text: plan.content.join('') }, 42, { type: 'image' }];
    message.reasoning_details = 'nope';
    message.tool_calls = [{ index: 'first', function: { name: 1, arguments: 2 } }, 'x'];
  }
  if (plan.forever) {
    // A whole reply cannot go on for ever; it stalls instead.
    return;
  }
  sendJson(
    response,
    200,
    {
      id: plan.id,
      ...(core.dialect ? {} : { provider: plan.provider ?? core.providerName }),
      model: plan.model,
      object: 'chat.completion',
      created: plan.created,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: plan.finishReason,
          native_finish_reason: plan.finishReason,
          message,
        },
      ],
      ...(scenarios.has('no-usage') ? {} : { usage: plan.usage }),
    },
    liteLlmHeaders(core, plan),
  );
}
