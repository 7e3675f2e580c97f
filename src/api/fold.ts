/**
 * Deltas → one ChatCompletion. Callers keep an accumulator while streaming so the text so far
 * survives an error or a Stop; the non-streaming call reuses it to build its result.
 */
import type { Annotation, ChatCompletion, ChatDelta } from './types';

export function emptyCompletion(): ChatCompletion {
  return { content: '', reasoning: '', reasoningDetails: [], toolCalls: [], annotations: [] };
}

/** Adds one delta to `completion` (mutating it, to stay cheap on long streams) and returns it. */
export function applyChatDelta(completion: ChatCompletion, delta: ChatDelta): ChatCompletion {
  switch (delta.type) {
    case 'meta':
      completion.id ??= delta.id;
      completion.model ??= delta.model;
      completion.provider ??= delta.provider;
      break;
    case 'content':
      completion.content += delta.text;
      break;
    case 'reasoning':
      completion.reasoning += delta.text;
      break;
    case 'reasoning_details':
      completion.reasoningDetails.push(...delta.details);
      break;
    case 'tool_calls':
      // Each delta is the merged snapshot so far.
      completion.toolCalls = delta.toolCalls;
      break;
    case 'finish':
      completion.finishReason = delta.reason;
      break;
    case 'usage':
      completion.usage = { ...completion.usage, ...delta.usage };
      break;
    case 'annotations':
      addAnnotations(completion.annotations, delta.annotations);
      break;
    case 'images':
      completion.images = [...(completion.images ?? []), ...delta.images];
      break;
  }
  return completion;
}

/** Some providers repeat the citations in several chunks; keep each one once. */
function addAnnotations(into: Annotation[], added: Annotation[]): void {
  const seen = new Set(into.map((annotation) => JSON.stringify(annotation)));
  for (const annotation of added) {
    const key = JSON.stringify(annotation);
    if (!seen.has(key)) {
      seen.add(key);
      into.push(annotation);
    }
  }
}

export function foldChatDeltas(deltas: Iterable<ChatDelta>): ChatCompletion {
  const completion = emptyCompletion();
  for (const delta of deltas) applyChatDelta(completion, delta);
  return completion;
}

/** Keeps the reply so far while a stream is read. */
export class ChatAccumulator {
  readonly completion: ChatCompletion = emptyCompletion();

  add(delta: ChatDelta): ChatCompletion {
    return applyChatDelta(this.completion, delta);
  }

  get text(): string {
    return this.completion.content;
  }
}
