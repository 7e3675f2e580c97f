import type { Turn } from '../core/protocol/chatProtocol';

/** What the transcript needs of a turn on screen (user turns, replies, media cards, placeholders). */
export interface TurnView {
  readonly id: string;
  readonly element: HTMLElement;
  readonly turn: Turn;
  update(turn: Turn): void;
  /**
   * Renders queued text until `deadline` (a `performance.now()` time); called at most once per
   * animation frame. Returns false when text is left for the next frame.
   */
  render(deadline?: number): boolean;
}
