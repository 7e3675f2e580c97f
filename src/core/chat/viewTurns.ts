/**
 * What the chat view is sent of a turn: everything but the bulk of tool results, which stay whole
 * in the conversation (the model's copy) while the view shows a card's worth. A 50-step turn then
 * costs the view kilobytes per update, not megabytes. Pure.
 */
import type { AgentStep } from '../agent/types';
import { MAX_CARD_RESULT_CHARS } from '../agent/types';
import type { HostMessage, Turn } from '../protocol/chatProtocol';

function stepForView(step: AgentStep): AgentStep {
  if (!step.calls.some((c) => (c.result?.length ?? 0) > MAX_CARD_RESULT_CHARS)) return step;
  return {
    ...step,
    calls: step.calls.map((c) =>
      c.result !== undefined && c.result.length > MAX_CARD_RESULT_CHARS
        ? { ...c, result: c.result.slice(0, MAX_CARD_RESULT_CHARS) }
        : c,
    ),
  };
}

function turnForView(turn: Turn): Turn {
  return turn.role === 'assistant' && turn.steps?.length
    ? { ...turn, steps: turn.steps.map(stepForView) }
    : turn;
}

/** The message as the view gets it (the same object when there is nothing to cut). */
export function forView(message: HostMessage): HostMessage {
  switch (message.type) {
    case 'turnAdded':
    case 'turnUpdated':
      return { ...message, turn: turnForView(message.turn) };
    case 'init':
      return {
        ...message,
        conversation: { ...message.conversation, turns: message.conversation.turns.map(turnForView) },
      };
    case 'agentStep':
      return { ...message, step: stepForView(message.step) };
    default:
      return message;
  }
}
