/** The list of earlier conversations: open one, or delete it. */
import type { ConversationSummary } from '../core/protocol/chatProtocol';
import { relativeTime } from '../core/util/text';
import { h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

export class HistoryPanel {
  readonly element: HTMLElement;
  private readonly list = h('ul', { className: 'history-list' });
  private items: ConversationSummary[] = [];
  private currentId = '';

  constructor(private readonly onClose: () => void) {
    const close = iconButton({ icon: 'close', label: 'Close history' });
    close.addEventListener('click', () => this.onClose());
    this.element = h(
      'section',
      {
        className: 'history-panel',
        attrs: { id: 'history-panel', 'aria-label': 'Earlier conversations', hidden: '' },
      },
      h('div', { className: 'history-title' }, h('span', { text: 'Earlier conversations' }), close),
      this.list,
    );
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  setOpen(open: boolean): void {
    this.element.hidden = !open;
    if (open) {
      this.render();
      this.list.querySelector<HTMLElement>('.history-open')?.focus();
    }
  }

  setItems(items: ConversationSummary[], currentId?: string): void {
    this.items = [...items].sort((a, b) => b.updatedAt - a.updatedAt);
    if (currentId !== undefined) this.currentId = currentId;
    if (this.isOpen) this.render();
  }

  private render(): void {
    if (this.items.length === 0) {
      this.list.replaceChildren(
        h('li', { className: 'history-empty', text: 'No earlier conversations yet.' }),
      );
      return;
    }
    this.list.replaceChildren(...this.items.map((item) => this.itemView(item)));
  }

  private itemView(item: ConversationSummary): HTMLElement {
    const title = item.title || 'Untitled conversation';
    const open = h(
      'button',
      { className: 'history-open', attrs: { type: 'button', title } },
      h('span', { className: 'history-item-title', text: title }),
      h('span', {
        className: 'history-item-meta',
        text: `${item.turnCount} message${item.turnCount === 1 ? '' : 's'} · ${relativeTime(item.updatedAt)}`,
      }),
    );
    open.addEventListener('click', () => {
      postToHost({ type: 'openConversation', id: item.id });
      this.onClose();
    });
    const remove = iconButton({ icon: 'trash', label: `Delete "${title}"`, className: 'history-delete' });
    remove.addEventListener('click', () => postToHost({ type: 'deleteConversation', id: item.id }));
    const row = h('li', { className: 'history-item' }, open, remove);
    if (item.id === this.currentId) {
      row.classList.add('is-current');
      open.setAttribute('aria-current', 'true');
    }
    return row;
  }
}
