/**
 * OpenAI/OpenRouter-shaped chat JSON → typed deltas: the one boundary for chat data. The same
 * reader serves stream chunks (`choices[].delta`) and whole responses (`choices[].message`), so
 * both paths agree on every variant: `reasoning` or `reasoning_content`, annotations on the delta
 * or the message, tool calls arriving in fragments keyed by `index`.
 *
 * Every field is read by type into the types of ./types. A field that is unknown or of the wrong
 * type is left out and reported (once per path) through the ProblemReporter; nothing downstream
 * ever sees a value of a type it was not promised, and nothing here throws except for an error
 * chunk, which ends the reply on purpose.
 */
import { MAX_CHAT_IMAGES, parseChatImages } from './chatImages';
import { GatewayError } from './errors';
import { readArray, readCount, readNumber, readRecord, readString, readUsd } from './fields';
import { excerpt, isRecord } from './json';
import type { JsonObject } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import { describeErrorMetadata, parseErrorMetadata } from './errorMetadata';
import { redactExcerpt, redactSecret } from './redact';
import type { Secrets } from './redact';
import type { Annotation, ChatDelta, Generation, ReasoningDetail, ToolCall, Usage } from './types';

/** More distinct tool calls than this in one reply is not a real reply; the rest are dropped. */
export const MAX_TOOL_CALLS = 128;

const CHUNK_FIELDS = new Set([
  'id',
  'model',
  'provider',
  'object',
  'created',
  'choices',
  'usage',
  'system_fingerprint',
  'service_tier',
  'error',
  'citations',
]);
const CHOICE_FIELDS = new Set([
  'index',
  'delta',
  'message',
  'finish_reason',
  'native_finish_reason',
  'logprobs',
  'error',
]);
const DELTA_FIELDS = new Set([
  'role',
  'content',
  'reasoning',
  'reasoning_content',
  'reasoning_details',
  'tool_calls',
  'annotations',
  'refusal',
  'function_call',
  'images',
  'audio',
]);
const USAGE_FIELDS = new Set([
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost',
  'completion_tokens_details',
  'prompt_tokens_details',
  'cost_details',
  'is_byok',
  'server_tool_use',
]);

export class ChatChunkReader {
  private metaSent = false;
  /** Pictures taken so far: a reply brings at most MAX_CHAT_IMAGES. */
  private images = 0;
  private readonly toolCalls: ToolCall[] = [];
  /** A finish_reason was seen: the reply is complete even if the stream ends without [DONE]. */
  finished = false;

  constructor(
    private readonly secret: Secrets,
    private readonly problems: ProblemReporter = silentProblems,
  ) {}

  /** Appends the deltas carried by one chunk to `out`; throws (a GatewayError) only on an error chunk. */
  read(chunk: unknown, out: ChatDelta[]): void {
    const problems = this.problems;
    if (!isRecord(chunk)) {
      problems.wrongType('chat.chunk', 'an object', chunk);
      return;
    }
    problems.unknownKeys('chat.chunk', chunk, CHUNK_FIELDS);
    if (chunk.error !== undefined && chunk.error !== null) throw this.streamError(chunk);
    if (!this.metaSent) {
      const id = readString(chunk, 'id', 'chat.chunk', problems);
      const model = readString(chunk, 'model', 'chat.chunk', problems);
      const provider = readString(chunk, 'provider', 'chat.chunk', problems);
      if (id !== undefined || model !== undefined || provider !== undefined) {
        this.metaSent = true;
        out.push({ type: 'meta', id, model, provider });
      }
    }
    const choices = readArray(chunk, 'choices', 'chat.chunk', problems) ?? [];
    // Only one completion is ever requested (n = 1); take choice 0 wherever it sits.
    const choice = choices.find((c) => isRecord(c) && (c.index === 0 || c.index === undefined));
    if (isRecord(choice)) this.readChoice(chunk, choice, out);
    else if (choices.length > 0 && !choices.some(isRecord))
      problems.wrongType('chat.choices[]', 'an object', choices[0]);
    const usage = readRecord(chunk, 'usage', 'chat.chunk', problems);
    if (usage) {
      const parsed = parseUsage(usage, problems);
      if (parsed) out.push({ type: 'usage', usage: parsed });
    }
  }

  private readChoice(chunk: JsonObject, choice: JsonObject, out: ChatDelta[]): void {
    const problems = this.problems;
    problems.unknownKeys('chat.choice', choice, CHOICE_FIELDS);
    if (choice.error !== undefined && choice.error !== null) throw this.streamError(chunk, choice.error);
    const delta =
      readRecord(choice, 'delta', 'chat.choice', problems) ??
      readRecord(choice, 'message', 'chat.choice', problems);
    if (delta) {
      problems.unknownKeys('chat.delta', delta, DELTA_FIELDS);
      const reasoning =
        readString(delta, 'reasoning', 'chat.delta', problems) ??
        readString(delta, 'reasoning_content', 'chat.delta', problems);
      if (reasoning) out.push({ type: 'reasoning', text: reasoning });
      const details = readArray(delta, 'reasoning_details', 'chat.delta', problems);
      const parsedDetails = details ? parseReasoningDetails(details, problems) : [];
      if (parsedDetails.length > 0) out.push({ type: 'reasoning_details', details: parsedDetails });
      const content = contentText(delta.content, problems);
      if (content) out.push({ type: 'content', text: content });
      const fragments = readArray(delta, 'tool_calls', 'chat.delta', problems);
      if (fragments && fragments.length > 0 && this.mergeToolCalls(fragments)) {
        out.push({ type: 'tool_calls', toolCalls: this.toolCalls.map(copyToolCall) });
      }
      const annotations = readArray(delta, 'annotations', 'chat.delta', problems);
      const parsedAnnotations = annotations ? parseAnnotations(annotations, problems) : [];
      if (parsedAnnotations.length > 0) out.push({ type: 'annotations', annotations: parsedAnnotations });
      if (delta.images !== undefined) {
        const images = parseChatImages(delta.images, MAX_CHAT_IMAGES - this.images, problems);
        this.images += images.length;
        if (images.length > 0) out.push({ type: 'images', images });
      }
    }
    const finishReason = readString(choice, 'finish_reason', 'chat.choice', problems);
    // An end in error says so, even without an error object: never a quiet, complete-looking reply.
    if (finishReason === 'error') throw this.streamError(chunk, undefined);
    if (finishReason) {
      this.finished = true;
      out.push({ type: 'finish', reason: finishReason });
    }
  }

  /** Merges fragments into the calls so far; true when anything was taken. */
  private mergeToolCalls(fragments: readonly unknown[]): boolean {
    const problems = this.problems;
    let merged = false;
    fragments.forEach((fragment, position) => {
      if (!isRecord(fragment)) {
        problems.wrongType('chat.tool_calls[]', 'an object', fragment);
        return;
      }
      const index =
        readNumber(fragment, 'index', 'chat.tool_calls[]', problems, { min: 0, integer: true }) ?? position;
      const id = readString(fragment, 'id', 'chat.tool_calls[]', problems);
      const type = readString(fragment, 'type', 'chat.tool_calls[]', problems);
      const fn = readRecord(fragment, 'function', 'chat.tool_calls[]', problems);
      const name = fn ? readString(fn, 'name', 'chat.tool_calls[].function', problems) : undefined;
      const args = fn ? toolArguments(fn.arguments, problems) : undefined;
      let call = this.toolCalls.find((existing) => existing.index === index);
      // A fragment with nothing usable does not make a call of its own.
      if (!call && !id && !name && !args) return;
      if (!call) {
        if (this.toolCalls.length >= MAX_TOOL_CALLS) {
          problems.unknown(
            'chat.tool_calls[]',
            `more than ${MAX_TOOL_CALLS} tool calls; the rest were dropped`,
          );
          return;
        }
        call = { index, type: 'function', function: { name: '', arguments: '' } };
        this.toolCalls.push(call);
        this.toolCalls.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      }
      merged = true;
      if (id) call.id = id;
      if (type) call.type = type;
      // The name normally comes whole in the first fragment; some providers repeat it.
      if (name && name !== call.function.name) call.function.name += name;
      if (args) call.function.arguments += args;
    });
    return merged;
  }

  /**
   * The error a stream sent after its 200 (`{error: {code, message, metadata}}`, usually with
   * `finish_reason: "error"`), or a choice that ended in `"error"` without one: the reply ends
   * with the gateway's message, its provider, the upstream error and moderation's reasons.
   */
  private streamError(chunk: JsonObject, error: unknown = chunk.error): GatewayError {
    const problems = this.problems;
    const details = isRecord(error) ? error : undefined;
    if (!details && typeof error !== 'string' && error !== undefined)
      problems.wrongType('chat.chunk.error', 'an object or a string', error);
    const message = details ? readString(details, 'message', 'chat.error', problems) : undefined;
    const reason = typeof error === 'string' ? error : (message ?? 'no reason given');
    const metadata = parseErrorMetadata(details?.metadata, this.secret, problems);
    const provider = metadata.provider ?? (typeof chunk.provider === 'string' ? chunk.provider : undefined);
    const code = details?.code;
    const by = provider ? `The provider ${excerpt(provider, 80)}` : 'The gateway';
    const said = redactExcerpt(reason, 1000, this.secret);
    return new GatewayError({
      kind: 'stream',
      message: redactSecret(
        `${by} ended the reply with an error: ${said}${describeErrorMetadata(metadata, said)}`,
        this.secret,
      ),
      provider: provider === undefined ? undefined : redactSecret(excerpt(provider, 80), this.secret),
      code:
        typeof code === 'string'
          ? redactSecret(excerpt(code, 80), this.secret)
          : isFiniteNumber(code)
            ? code
            : undefined,
    });
  }
}

/** `usage` by type; undefined when none of its fields was usable. */
export function parseUsage(usage: JsonObject, problems: ProblemReporter = silentProblems): Usage | undefined {
  const path = 'chat.usage';
  problems.unknownKeys(path, usage, USAGE_FIELDS);
  const parsed: Usage = {};
  const prompt = readCount(usage, 'prompt_tokens', path, problems);
  if (prompt !== undefined) parsed.prompt_tokens = prompt;
  const completion = readCount(usage, 'completion_tokens', path, problems);
  if (completion !== undefined) parsed.completion_tokens = completion;
  const total = readCount(usage, 'total_tokens', path, problems);
  if (total !== undefined) parsed.total_tokens = total;
  const cost = readUsd(usage, 'cost', path, problems);
  if (cost !== undefined) parsed.cost = cost;
  const costDetails = readRecord(usage, 'cost_details', path, problems);
  const upstream = costDetails
    ? readUsd(costDetails, 'upstream_inference_cost', `${path}.cost_details`, problems)
    : undefined;
  if (upstream !== undefined) parsed.cost_details = { upstream_inference_cost: upstream };
  const completionDetails = readRecord(usage, 'completion_tokens_details', path, problems);
  const reasoning = completionDetails
    ? readCount(completionDetails, 'reasoning_tokens', `${path}.completion_tokens_details`, problems)
    : undefined;
  if (reasoning !== undefined) parsed.completion_tokens_details = { reasoning_tokens: reasoning };
  const promptDetails = readRecord(usage, 'prompt_tokens_details', path, problems);
  if (promptDetails) {
    const detailsPath = `${path}.prompt_tokens_details`;
    const cached = readCount(promptDetails, 'cached_tokens', detailsPath, problems);
    const written = readCount(promptDetails, 'cache_write_tokens', detailsPath, problems);
    if (cached !== undefined || written !== undefined)
      parsed.prompt_tokens_details = {
        ...(cached !== undefined ? { cached_tokens: cached } : {}),
        ...(written !== undefined ? { cache_write_tokens: written } : {}),
      };
  }
  if (Object.keys(parsed).length === 0 || allZero(parsed)) return undefined;
  return parsed;
}

/**
 * No tokens and no cost: the gateway filled the field without counting (LiteLLM's text-completion
 * streams do), so it is "not reported", not a free reply.
 */
function allZero(usage: Usage): boolean {
  return (
    !usage.prompt_tokens &&
    !usage.completion_tokens &&
    !usage.total_tokens &&
    !usage.cost &&
    !usage.cost_details?.upstream_inference_cost
  );
}

const GENERATION_FIELDS: ReadonlyArray<[keyof Generation, string]> = [
  ['promptTokens', 'tokens_prompt'],
  ['completionTokens', 'tokens_completion'],
  ['reasoningTokens', 'native_tokens_reasoning'],
  ['cachedTokens', 'native_tokens_cached'],
];

/**
 * `GET /v1/generation?id=` → what the reply cost (`{data: {total_cost, cache_discount, tokens_…}}`).
 * Undefined when nothing usable came; never throws.
 */
export function parseGeneration(
  body: unknown,
  problems: ProblemReporter = silentProblems,
): Generation | undefined {
  const path = 'generation';
  if (!isRecord(body)) {
    problems.wrongType(path, 'an object', body);
    return undefined;
  }
  const data = readRecord(body, 'data', path, problems) ?? body;
  const parsed: Generation = {};
  const total = readUsd(data, 'total_cost', path, problems);
  if (total !== undefined) parsed.totalCost = total;
  const discount = readUsd(data, 'cache_discount', path, problems, { negative: true });
  if (discount !== undefined) parsed.cacheDiscount = discount;
  for (const [field, name] of GENERATION_FIELDS) {
    const count = readCount(data, name, path, problems);
    if (count !== undefined) parsed[field] = count;
  }
  return Object.keys(parsed).length > 0 ? parsed : undefined;
}

/** URL citations by type; other kinds of annotation are reported once and dropped. */
export function parseAnnotations(
  annotations: readonly unknown[],
  problems: ProblemReporter = silentProblems,
): Annotation[] {
  const path = 'chat.annotations[]';
  const parsed: Annotation[] = [];
  for (const annotation of annotations) {
    if (!isRecord(annotation)) {
      problems.wrongType(path, 'an object', annotation);
      continue;
    }
    const type = readString(annotation, 'type', path, problems);
    if (type !== 'url_citation') {
      if (type !== undefined) problems.unknown(`${path}.type`, 'an annotation type other than url_citation');
      continue;
    }
    const citation = readRecord(annotation, 'url_citation', path, problems);
    const url = citation ? readString(citation, 'url', `${path}.url_citation`, problems) : undefined;
    if (!citation || !url) continue;
    const entry: Annotation['url_citation'] = { url };
    const title = readString(citation, 'title', `${path}.url_citation`, problems);
    if (title !== undefined) entry.title = title;
    const content = readString(citation, 'content', `${path}.url_citation`, problems);
    if (content !== undefined) entry.content = content;
    const start = readCount(citation, 'start_index', `${path}.url_citation`, problems);
    if (start !== undefined) entry.start_index = start;
    const end = readCount(citation, 'end_index', `${path}.url_citation`, problems);
    if (end !== undefined) entry.end_index = end;
    parsed.push({ type: 'url_citation', url_citation: entry });
  }
  return parsed;
}

const DETAIL_STRINGS = ['text', 'summary', 'data', 'signature', 'format', 'id'] as const;

export function parseReasoningDetails(
  details: readonly unknown[],
  problems: ProblemReporter = silentProblems,
): ReasoningDetail[] {
  const path = 'chat.reasoning_details[]';
  const parsed: ReasoningDetail[] = [];
  for (const detail of details) {
    if (!isRecord(detail)) {
      problems.wrongType(path, 'an object', detail);
      continue;
    }
    const type = readString(detail, 'type', path, problems);
    if (!type) continue;
    const entry: ReasoningDetail = { type };
    for (const name of DETAIL_STRINGS) {
      const value = readString(detail, name, path, problems);
      if (value !== undefined) entry[name] = value;
    }
    const index = readCount(detail, 'index', path, problems);
    if (index !== undefined) entry.index = index;
    parsed.push(entry);
  }
  return parsed;
}

/** Message content may be a string or a list of parts (strings or `{type:'text', text}`). */
function contentText(content: unknown, problems: ProblemReporter): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (!Array.isArray(content)) {
    problems.wrongType('chat.delta.content', 'a string or an array of parts', content);
    return '';
  }
  let text = '';
  for (const part of content) {
    if (typeof part === 'string') text += part;
    else if (isRecord(part) && typeof part.text === 'string') text += part.text;
    else if (!isRecord(part)) problems.wrongType('chat.delta.content[]', 'a string or an object', part);
  }
  return text;
}

/** Arguments are a string fragment; some providers send them already parsed, as an object. */
function toolArguments(args: unknown, problems: ProblemReporter): string | undefined {
  if (typeof args === 'string') return args;
  if (isRecord(args)) return JSON.stringify(args);
  if (args !== undefined && args !== null)
    problems.wrongType('chat.tool_calls[].function.arguments', 'a string or an object', args);
  return undefined;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function copyToolCall(call: ToolCall): ToolCall {
  return { ...call, function: { ...call.function } };
}
