/**
 * The context meter in the chat header: the conversation plus attachments against the model's
 * context, and the conversation's cost. Near the limit it warns and offers New Chat.
 */
import type { ContextState } from '../core/protocol/chatProtocol';
import { h } from './dom';

/** From this share of the context on, the meter warns. */
const WARN_SHARE = 0.8;

export function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}K` : String(tokens);
}

export class ContextMeter {
  readonly element = h('span', { className: 'context-meter', attrs: { role: 'status' } });
  private readonly bar = h('span', { className: 'context-bar' });
  private readonly fill = h('span', { className: 'context-fill' });
  private readonly label = h('span', { className: 'context-label' });
  private readonly cost = h('span', { className: 'context-cost' });

  constructor() {
    this.bar.append(this.fill);
    this.element.append(this.bar, this.label, this.cost);
    this.element.hidden = true;
  }

  update(state: ContextState): void {
    this.element.hidden = false;
    const used = state.usedTokens;
    const total = state.contextLength;
    const share = total ? Math.min(1, used / total) : 0;
    this.fill.style.width = `${Math.round(share * 100)}%`;
    this.bar.hidden = !total;
    this.label.textContent = total
      ? `${formatTokens(used)} / ${formatTokens(total)}`
      : `~${formatTokens(used)} tok`;
    this.element.dataset.used = String(used);
    this.element.classList.toggle('is-warning', share >= WARN_SHARE && share < 1);
    this.element.classList.toggle('is-over', !!total && used > total);
    this.cost.textContent =
      state.cost !== undefined ? `$${state.cost.toFixed(state.cost < 0.01 ? 4 : 2)}` : '';
    const title = total
      ? `About ${used} of ${total} tokens of the model's context${used > total ? ': the next send would overflow it. Start a new chat or remove attachments.' : share >= WARN_SHARE ? ': close to the limit.' : '.'}`
      : `About ${used} tokens (the model's context is not known).`;
    this.element.title =
      state.cost !== undefined ? `${title} This chat has cost $${state.cost.toFixed(4)}.` : title;
  }
}
