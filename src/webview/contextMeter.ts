/**
 * The context meter in the chat header: the conversation plus attachments against the model's
 * context, and the conversation's cost. When the prompt being typed would overflow the context,
 * a warning above the composer says so and offers what to do: leave the oldest turns out of what
 * is sent (they stay in the chat, marked, and can be included again), or start a new chat. The
 * typed prompt is never touched.
 */
import { estimateTokens } from '../core/chat/attachments';
import type { ContextState } from '../core/protocol/chatProtocol';
import { COST_NOT_REPORTED, ESTIMATE_NOTE, formatCost } from '../core/util/text';
import { codicon, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

/** From this share of the context on, the meter warns. */
const WARN_SHARE = 0.8;

export function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}K` : String(tokens);
}

export class ContextMeter {
  readonly element = h('span', { className: 'context-meter', attrs: { role: 'status' } });
  /** Shown above the composer while the next send would overflow the context. */
  readonly warning = h('div', { className: 'context-warning', attrs: { role: 'alert' } });
  private readonly bar = h('span', { className: 'context-bar' });
  private readonly fill = h('span', { className: 'context-fill' });
  private readonly label = h('span', { className: 'context-label' });
  private readonly cost = h('span', { className: 'context-cost' });
  private readonly warningText = h('span', { className: 'context-warning-text' });
  private state?: ContextState;
  private draftTokens = 0;

  constructor() {
    this.bar.append(this.fill);
    this.element.append(this.bar, this.label, this.cost);
    this.element.hidden = true;
    const drop = iconButton({
      icon: 'fold-up',
      label: 'Leave just enough of the oldest turns out of what is sent (they stay in the chat)',
      text: 'Drop oldest turns',
      className: 'drop-oldest',
    });
    drop.addEventListener('click', () =>
      postToHost({ type: 'leaveOutOldestTurns', promptTokens: this.draftTokens }),
    );
    const newChat = iconButton({
      icon: 'add',
      label: 'New Chat',
      text: 'New chat',
      className: 'warning-new-chat',
    });
    newChat.addEventListener('click', () => postToHost({ type: 'newChat' }));
    this.warning.append(
      h('span', { className: 'context-warning-message' }, codicon('warning'), this.warningText),
      h('span', { className: 'context-warning-actions' }, drop, newChat),
    );
    this.warning.hidden = true;
  }

  /** The prompt being typed: it counts towards what the next send needs. */
  setDraft(text: string): void {
    const tokens = estimateTokens(text.trim());
    if (tokens === this.draftTokens) return;
    this.draftTokens = tokens;
    this.refreshWarning();
  }

  update(state: ContextState): void {
    this.state = state;
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
    // `~` marks a total that counts tokens × price for replies whose gateway reported no cost.
    const spentText =
      state.cost !== undefined
        ? `${state.costEstimated ? '~' : ''}$${state.cost.toFixed(state.cost < 0.01 ? 4 : 2)}`
        : '';
    this.cost.textContent = spentText || (state.costUnreported ? COST_NOT_REPORTED : '');
    const title = total
      ? `About ${used} of ${total} tokens of the model's context${used > total ? ': the next send would overflow it. Drop the oldest turns, start a new chat or remove attachments.' : share >= WARN_SHARE ? ': close to the limit.' : '.'}`
      : `About ${used} tokens (the model's context is not known).`;
    const saved =
      state.saved !== undefined && state.saved > 0 ? ` Prompt caching saved ${formatCost(state.saved)}.` : '';
    const estimated = state.costEstimated ? ` Part of it is ${ESTIMATE_NOTE}.` : '';
    const unreported = state.costUnreported
      ? state.cost !== undefined
        ? ' Some replies are left out: the gateway reported no cost and the catalog no price.'
        : ' The gateway reported no cost and the catalog no price: only tokens are counted.'
      : '';
    const spent =
      state.cost !== undefined
        ? ` This chat has cost ${state.costEstimated ? 'about ' : ''}${formatCost(state.cost)}.${estimated}`
        : '';
    this.element.title = `${title}${spent}${unreported}${state.cost !== undefined ? saved : ''}`;
    this.cost.dataset.estimated = state.costEstimated ? 'true' : '';
    this.cost.dataset.saved = state.saved !== undefined ? String(state.saved) : '';
    this.refreshWarning();
  }

  private refreshWarning(): void {
    const total = this.state?.contextLength;
    const needed = (this.state?.usedTokens ?? 0) + this.draftTokens;
    const over = !!total && needed > total;
    this.warning.hidden = !over;
    // Over: the conversation alone, or with the prompt being typed.
    this.element.classList.toggle('is-over', over);
    if (over)
      this.warningText.textContent = `Sending this would overflow the model's context: about ${formatTokens(needed)} of ${formatTokens(total)} tokens.`;
  }
}
