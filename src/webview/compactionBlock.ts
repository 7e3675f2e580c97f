/**
 * The chat's summary of its oldest turns: a collapsed "Summarised N earlier turns" block after
 * the last turn it covers, which opens to show the summary (as plain text: it is model output).
 * The turns themselves stay in the transcript; only what is sent changed. The block finds its
 * place in the turn list when that turn is rendered (older turns render when the page is idle).
 */
import type { Compaction } from '../core/protocol/chatProtocol';
import { codicon, h } from './dom';

export class CompactionBlock {
  readonly element = h('details', { className: 'compaction-block' });
  private compaction: Compaction | undefined;
  private readonly observer = new MutationObserver(() => this.place());

  constructor(private readonly list: HTMLElement) {
    this.observer.observe(list, { childList: true });
  }

  /** Shows this summary (or none). */
  update(compaction: Compaction | undefined): void {
    this.compaction = compaction;
    if (!compaction) {
      this.element.remove();
      return;
    }
    const open = this.element.open;
    const summary = h(
      'summary',
      {},
      codicon('history'),
      ` Summarised ${compaction.turns} earlier turn${compaction.turns === 1 ? '' : 's'}`,
    );
    summary.title = compaction.model
      ? `Summary written by ${compaction.model}`
      : 'Summary of the earlier turns';
    this.element.replaceChildren(
      summary,
      h('div', { className: 'compaction-summary', text: compaction.summary }),
    );
    this.element.open = open;
    this.place();
  }

  /** Puts the block after the last turn it covers, once that turn is in the list. */
  private place(): void {
    const compaction = this.compaction;
    if (!compaction) return;
    const anchor = [...this.list.children].find(
      (child) => child instanceof HTMLElement && child.dataset.turnId === compaction.throughTurnId,
    );
    if (!anchor) {
      this.element.remove();
      return;
    }
    if (anchor.nextElementSibling !== this.element) anchor.after(this.element);
  }
}
