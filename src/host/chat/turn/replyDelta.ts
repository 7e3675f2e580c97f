import type { ChatImage } from '../../../api/chatImages';
import type { ChatDelta } from '../../../api/types';
import type { DeltaBatcher } from '../../../core/chat/deltaBatcher';
import { toTurnUsage } from '../../../core/cost/replyCost';
import type { AssistantTurn, HostMessage } from '../../../core/protocol/chatProtocol';

/**
 * One streamed delta onto the reply turn; text and reasoning reach the view through the batcher.
 * Pictures the reply draws (`delta.images`) go to `drew`, never into the turn.
 */
export function applyDelta(
  turn: AssistantTurn,
  delta: ChatDelta,
  batcher: DeltaBatcher,
  post: (message: HostMessage) => void,
  drew?: (images: readonly ChatImage[]) => void,
): void {
  switch (delta.type) {
    case 'content':
      turn.content += delta.text;
      batcher.add({ content: delta.text });
      break;
    case 'reasoning':
      turn.reasoning += delta.text;
      batcher.add({ reasoning: delta.text });
      break;
    case 'meta':
      if (delta.provider) turn.provider = delta.provider;
      if (delta.model) turn.model = delta.model;
      break;
    case 'tool_calls':
      turn.toolCalls = delta.toolCalls.map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      }));
      batcher.flush();
      post({ type: 'turnUpdated', turn });
      break;
    case 'finish':
      turn.finishReason = delta.reason;
      break;
    case 'usage':
      turn.usage = toTurnUsage(delta.usage);
      break;
    case 'annotations': {
      // Parsed at the client's boundary: every annotation is a URL citation with a string url.
      const citations = delta.annotations.map(({ url_citation: c }) => ({ url: c.url, title: c.title }));
      turn.citations = [...(turn.citations ?? []), ...citations].filter(
        (c, i, all) => all.findIndex((o) => o.url === c.url) === i,
      );
      break;
    }
    case 'images':
      drew?.(delta.images);
      break;
    case 'reasoning_details':
      break;
  }
}

/** A stream that is made when it is first read: the request goes out when the loop reads it. */
export async function* lazyStream(make: () => Promise<AsyncIterable<ChatDelta>>): AsyncGenerator<ChatDelta> {
  yield* await make();
}
