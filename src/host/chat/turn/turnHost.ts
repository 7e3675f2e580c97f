import type { Conversation } from '../../../core/chat/conversation';
import type { AssistantTurn, HostMessage, Turn } from '../../../core/protocol/chatProtocol';

/** The session's side of the parts that add or change turns: where they show and are kept. */
export interface TurnHost {
  /** The current conversation (loaded on first use). */
  current(): Promise<Conversation>;
  post(message: HostMessage): void;
  append(conversation: Conversation, turn: Turn): void;
  /** Saves without making the caller wait (a failed save is logged). */
  save(conversation: Conversation, makeCurrent?: boolean): Promise<void>;
  postHistory(): Promise<void>;
  postContext(): Promise<void>;
  /** Whether this conversation is the one the view shows. */
  isCurrent(conversation: Conversation): boolean;
  /** Whether a turn runs or is about to start. */
  busy(): boolean;
  disposed(): boolean;
  /** The reply ended (completed, stopped or failed), after it was posted and its save began. */
  finished(turn: AssistantTurn): void;
  /** Sends the next queued prompt, if any (last thing a turn does). */
  drain(): void;
}
