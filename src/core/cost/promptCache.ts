/**
 * Prompt caching for models that cache only where the request marks it: Anthropic's, and Gemini
 * through an OpenRouter-style gateway. They get `cache_control: {type: "ephemeral"}` on the system
 * prompt, on the last user message (everything before it is the next turn's prefix) and on large
 * attachments, at most four marks in all (the providers' limit). Models that cache by themselves
 * (OpenAI, DeepSeek, Grok, ...) are left exactly as they were. Pure: returns new messages, never
 * changes a word of the text, never touches the input.
 */
import { isRecord } from '../../api/json';
import type { ChatMessage } from '../../api/types';

/** Anthropic and Gemini allow four marks per request. */
export const MAX_CACHE_BREAKPOINTS = 4;
/** A text part from this size on (about 1,000 tokens, Anthropic's smallest cacheable block) is worth a mark. */
export const LARGE_PART_CHARS = 4000;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Whether the model caches only where the request marks it (`explicit`: the catalog says so). */
export function needsCacheBreakpoints(model: string, explicit?: boolean): boolean {
  if (explicit !== undefined) return explicit;
  return /^anthropic\//i.test(model) || /^google\/gemini/i.test(model);
}

/** Where a mark goes: a whole message (its last text part), or one part of it. */
interface Target {
  message: number;
  part?: number;
}

/** Marks on the messages already (a caller's own), counted against the limit. */
export function countCacheBreakpoints(messages: readonly ChatMessage[]): number {
  let count = 0;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) if (isRecord(part) && part.cache_control !== undefined) count++;
  }
  return count;
}

export function withCacheBreakpoints(
  messages: readonly ChatMessage[],
  model: string,
  options: { explicit?: boolean } = {},
): ChatMessage[] {
  const out = messages.slice();
  if (!needsCacheBreakpoints(model, options.explicit)) return out;
  let budget = MAX_CACHE_BREAKPOINTS - countCacheBreakpoints(messages);
  const targets: Target[] = [];
  const take = (target: Target | undefined): void => {
    if (!target || budget <= 0) return;
    if (targets.some((t) => t.message === target.message && t.part === target.part)) return;
    targets.push(target);
    budget--;
  };
  take(
    wholeMessage(
      messages,
      messages.findIndex((m) => m.role === 'system'),
    ),
  );
  take(
    wholeMessage(
      messages,
      findLastIndex(messages, (m) => m.role === 'user'),
    ),
  );
  for (let i = messages.length - 1; i >= 0 && budget > 0; i--) {
    const content = messages[i].content;
    if (messages[i].role !== 'user' || !Array.isArray(content)) continue;
    for (let p = content.length - 1; p >= 0 && budget > 0; p--) {
      const last = lastTextPart(content);
      if (isLargePart(content[p]) && !targets.some((t) => t.message === i && (t.part ?? last) === p))
        take({ message: i, part: p });
    }
  }
  for (const target of targets) out[target.message] = mark(out[target.message], target.part);
  return out;
}

function wholeMessage(messages: readonly ChatMessage[], index: number): Target | undefined {
  if (index < 0) return undefined;
  const content = messages[index].content;
  if (typeof content === 'string') return content ? { message: index } : undefined;
  if (Array.isArray(content)) return lastTextPart(content) >= 0 ? { message: index } : undefined;
  return undefined;
}

function lastTextPart(parts: readonly unknown[]): number {
  return findLastIndex(
    parts,
    (part) => isRecord(part) && part.type === 'text' && typeof part.text === 'string',
  );
}

function isLargePart(part: unknown): boolean {
  if (!isRecord(part) || part.cache_control !== undefined) return false;
  if (part.type === 'image_url') return true;
  return part.type === 'text' && typeof part.text === 'string' && part.text.length >= LARGE_PART_CHARS;
}

/** A copy of the message with a mark on the part (or its last text part); the text as it was. */
function mark(message: ChatMessage, part: number | undefined): ChatMessage {
  const content = message.content;
  if (typeof content === 'string')
    return { ...message, content: [{ type: 'text', text: content, cache_control: EPHEMERAL }] };
  if (!Array.isArray(content)) return message;
  const index = part ?? lastTextPart(content);
  const target: unknown = content[index];
  if (!isRecord(target) || target.cache_control !== undefined) return message;
  const parts = content.slice();
  parts[index] = { ...target, cache_control: EPHEMERAL };
  return { ...message, content: parts };
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}
