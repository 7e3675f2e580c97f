/**
 * The one place a chat or completion body is fitted to the gateway's dialect, just before it is
 * sent. The rest of the code builds OpenRouter-shaped bodies; here the fields the dialect does not
 * take are dropped (`provider`, `plugins`, OpenRouter's `reasoning` object, `cache_control` marks,
 * …), `reasoning.effort` becomes OpenAI's `reasoning_effort`, and usage is asked for in a stream
 * where the dialect wants it. Also here: reading which field a gateway's 400 refused.
 */
import {
  ESSENTIAL_FIELDS,
  OPENAI_CHAT_FIELDS,
  OPENAI_COMPLETION_FIELDS,
  OPENAI_MESSAGE_FIELDS,
} from './dialects';
import type { Dialect, LearnedDialect } from './dialects';
import { isRecord, tryParseJson } from './json';

export type ShapedPath = '/v1/chat/completions' | '/v1/completions';

const EFFORTS: ReadonlySet<string> = new Set(['minimal', 'low', 'medium', 'high']);
/** The fields that go with `tools`: without tools they mean nothing (and some servers refuse them). */
const TOOL_FIELDS = ['tools', 'tool_choice', 'parallel_tool_calls'];

/**
 * The body as the dialect takes it. Never changes `body`; returns a new object (its messages
 * copied only where a part had to go).
 */
export function shapeRequest(
  body: Readonly<Record<string, unknown>>,
  path: ShapedPath,
  dialect: Dialect,
  learned: LearnedDialect,
): Record<string, unknown> {
  const strict = learned.strict === true || dialect.onlyKnownFields;
  const own = path === '/v1/chat/completions' ? OPENAI_CHAT_FIELDS : OPENAI_COMPLETION_FIELDS;
  const extras = new Set(learned.strict ? [] : dialect.extraFields);
  const refused = new Set(learned.refusedFields ?? []);
  const takes = (field: string) => !refused.has(field) && (!strict || own.has(field) || extras.has(field));
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (takes(field)) out[field] = value;

  // OpenRouter's `reasoning: {effort}` is OpenAI's `reasoning_effort` where the object is not taken.
  const reasoning = body.reasoning;
  if (
    !('reasoning' in out) &&
    isRecord(reasoning) &&
    typeof reasoning.effort === 'string' &&
    EFFORTS.has(reasoning.effort) &&
    body.reasoning_effort === undefined &&
    takes('reasoning_effort')
  )
    out.reasoning_effort = reasoning.effort;

  const model = typeof body.model === 'string' ? body.model : '';
  if (learned.toolsRefused?.includes(model)) for (const field of TOOL_FIELDS) delete out[field];

  if (path === '/v1/chat/completions' && Array.isArray(body.messages)) {
    // Learned strictness means OpenAI's fields only: no marks or details of OpenRouter's either.
    const openAiOnly = learned.strict === true;
    const cacheControl = !refused.has('cache_control') && (!strict || (dialect.cacheControl && !openAiOnly));
    const details =
      !refused.has('reasoning_details') && (!strict || (dialect.reasoningDetails && !openAiOnly));
    out.messages = body.messages.map((message: unknown) =>
      shapeMessage(message, { strict, cacheControl, details }),
    );
  }

  if (body.stream === true && dialect.includeUsage && takes('stream_options')) {
    const options = isRecord(body.stream_options) ? body.stream_options : {};
    out.stream_options = { ...options, include_usage: true };
  }
  return out;
}

function shapeMessage(
  message: unknown,
  keep: { strict: boolean; cacheControl: boolean; details: boolean },
): unknown {
  if (!isRecord(message)) return message;
  let out: Record<string, unknown> = message;
  const strip = (field: string) => {
    if (!(field in out)) return;
    if (out === message) out = { ...message };
    delete out[field];
  };
  if (keep.strict)
    for (const field of Object.keys(message))
      if (!OPENAI_MESSAGE_FIELDS.has(field) && !(keep.details && field === 'reasoning_details')) strip(field);
  if (!keep.details) strip('reasoning_details');
  if (!keep.cacheControl && Array.isArray(message.content)) {
    let changed = false;
    const content = message.content.map((part: unknown) => {
      if (!isRecord(part) || !('cache_control' in part)) return part;
      changed = true;
      const { cache_control: _mark, ...rest } = part;
      void _mark;
      return rest;
    });
    if (changed) out = { ...out, content };
  }
  return out;
}

/** Longest gateway text read for a refused field; a real 400 is far shorter. */
const MAX_REFUSAL_TEXT = 16_384;
const FIELD = '[A-Za-z_][A-Za-z0-9_]{0,63}';
/** How gateways name a body field they do not take, the field in group 1. */
const REFUSAL_PATTERNS: readonly RegExp[] = [
  // OpenAI: "Unrecognized request argument supplied: provider"
  new RegExp(`Unrecognized request arguments? supplied:\\s*(${FIELD})`, 'i'),
  // OpenAI and others: "Unknown parameter: 'provider'.", "Unsupported parameter: 'reasoning_effort' …"
  new RegExp(
    `(?:Unknown|Unsupported|Unrecognized) (?:parameter|argument|field|property)s?:?\\s*['"\`]?(${FIELD})`,
    'i',
  ),
  // Rust/serde and Go: "unknown field `provider`", 'unknown field "provider"'
  new RegExp(`unknown field\\s*['"\`](${FIELD})`, 'i'),
  // JSON schema: "Additional properties are not allowed ('provider' was unexpected)"
  new RegExp(`['"\`](${FIELD})['"\`] was unexpected`, 'i'),
  // Pydantic as text (vLLM): "'loc': ('body', 'provider'), 'msg': 'Extra inputs are not permitted'"
  new RegExp(
    `['"]loc['"]:\\s*[[(]['"]body['"],\\s*['"](${FIELD})['"][^\\])]*[\\])],\\s*['"]msg['"]:\\s*['"]Extra inputs are not permitted`,
    'i',
  ),
  new RegExp(`['"](${FIELD})['"]:?\\s*(?:is )?not (?:a )?(?:permitted|allowed|supported|recognized)`, 'i'),
];
const ESSENTIAL = ESSENTIAL_FIELDS;
/** A model or server that takes no tools (Ollama: "… does not support tools"). */
const NO_TOOLS =
  /\b(?:does not|doesn't|do not) support (?:tools|tool[ _]?(?:use|calling|calls)|function[ _]?calling)\b/i;

/**
 * The body field a gateway's 400 refused, when its words name one the request carried (top level,
 * or `cache_control` / `reasoning_details` inside the messages); undefined otherwise. A field the
 * request did not carry is never taken as refused. Never throws.
 */
export function refusedField(bodyText: string, sent: Readonly<Record<string, unknown>>): string | undefined {
  const text = bodyText.slice(0, MAX_REFUSAL_TEXT);
  const carried = (field: string): boolean =>
    !ESSENTIAL.has(field) &&
    (Object.prototype.hasOwnProperty.call(sent, field) ||
      ((field === 'cache_control' || field === 'reasoning_details') && messagesCarry(sent.messages, field)));
  for (const field of pydanticExtraFields(text)) if (carried(field)) return field;
  for (const words of gatewayWords(text)) {
    for (const pattern of REFUSAL_PATTERNS) {
      const field = pattern.exec(words)?.[1];
      if (field && carried(field)) return field;
    }
    if (NO_TOOLS.test(words) && Array.isArray(sent.tools) && sent.tools.length > 0) return 'tools';
  }
  return undefined;
}

/**
 * The texts to read: the error's own message where the body has one, else the whole body. Never
 * the rest of a JSON body: a router relays its upstream's words there (OpenRouter's
 * `error.metadata.raw`), which are not about this request's fields.
 */
function gatewayWords(text: string): string[] {
  const parsed = tryParseJson(text);
  const words: string[] = [];
  if (parsed.ok && isRecord(parsed.value)) {
    const error = parsed.value.error;
    if (isRecord(error) && typeof error.message === 'string') words.push(error.message);
    if (typeof error === 'string') words.push(error);
    if (typeof parsed.value.message === 'string') words.push(parsed.value.message);
    if (typeof parsed.value.detail === 'string') words.push(parsed.value.detail);
  }
  if (words.length === 0) words.push(text);
  return words;
}

/** FastAPI/Pydantic's 422/400: `{detail: [{type: 'extra_forbidden', loc: ['body', …, field]}]}`. */
function pydanticExtraFields(text: string): string[] {
  const parsed = tryParseJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return [];
  const nested = isRecord(parsed.value.error) ? parsed.value.error.detail : undefined;
  const detail = Array.isArray(parsed.value.detail) ? parsed.value.detail : nested;
  if (!Array.isArray(detail)) return [];
  const fields: string[] = [];
  for (const item of detail.slice(0, 20)) {
    if (!isRecord(item) || !Array.isArray(item.loc)) continue;
    const extra =
      item.type === 'extra_forbidden' || (typeof item.msg === 'string' && /extra inputs/i.test(item.msg));
    if (!extra) continue;
    const last: unknown = item.loc[item.loc.length - 1];
    if (typeof last === 'string' && new RegExp(`^${FIELD}$`).test(last)) fields.push(last);
  }
  return fields;
}

function messagesCarry(messages: unknown, field: string): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some(
    (message) =>
      isRecord(message) &&
      (field in message ||
        (Array.isArray(message.content) && message.content.some((part) => isRecord(part) && field in part))),
  );
}

/** What a refusal of `field` teaches: never that field again; an extension field: only OpenAI's. */
export function learnRefusal(
  learned: LearnedDialect,
  field: string,
  model: string,
  path: ShapedPath,
): LearnedDialect {
  if (field === 'tools') {
    const toolsRefused = [...new Set([...(learned.toolsRefused ?? []), model])].slice(-64);
    return { ...learned, toolsRefused };
  }
  const own = path === '/v1/chat/completions' ? OPENAI_CHAT_FIELDS : OPENAI_COMPLETION_FIELDS;
  const refusedFields = [...new Set([...(learned.refusedFields ?? []), field])].slice(-64);
  // One field beyond OpenAI's refused: the others would be too, so none is sent again.
  return own.has(field) ? { ...learned, refusedFields } : { ...learned, refusedFields, strict: true };
}
