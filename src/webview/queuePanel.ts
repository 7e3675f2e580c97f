/**
 * Prompts waiting for the streaming reply to end, shown above the composer, oldest first. Each
 * can be edited in place (Enter saves, Escape cancels) or removed; the host owns the list and
 * sends it whole after every change, so what is shown is always what will be sent.
 */
import type { QueuedPrompt } from '../core/protocol/chatProtocol';
import { codicon, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

const ACTIONS = { edit: 'edit-queued', remove: 'remove-queued' } as const;

export class QueuePanel {
  readonly element: HTMLElement;
  private readonly list = h('ol', { className: 'queue-list' });
  private items: QueuedPrompt[] = [];
  /** The item being edited, kept across updates of the list as long as it is in it. */
  private editing?: { id: string; textarea: HTMLTextAreaElement };

  constructor() {
    this.element = h(
      'section',
      { className: 'queue', attrs: { 'aria-label': 'Queued prompts', hidden: '' } },
      h(
        'div',
        { className: 'queue-title' },
        codicon('clock'),
        h('span', { text: 'Queued: sent when the reply ends' }),
      ),
      this.list,
    );
    this.list.addEventListener('click', (event) => {
      const button =
        event.target instanceof Element ? event.target.closest<HTMLElement>('[data-action]') : null;
      const id = button?.closest<HTMLElement>('[data-queued-id]')?.dataset.queuedId;
      if (!button || !id) return;
      if (button.dataset.action === ACTIONS.remove) postToHost({ type: 'removeQueued', id });
      else if (button.dataset.action === ACTIONS.edit) this.startEditing(id);
    });
  }

  get count(): number {
    return this.items.length;
  }

  setItems(items: QueuedPrompt[]): void {
    this.items = items;
    if (this.editing && !items.some((item) => item.id === this.editing?.id)) this.editing = undefined;
    this.list.replaceChildren(...items.map((item) => this.itemView(item)));
    this.element.hidden = items.length === 0;
  }

  private itemView(item: QueuedPrompt): HTMLElement {
    const row = h('li', { className: 'queue-item' });
    row.dataset.queuedId = item.id;
    if (this.editing?.id === item.id) {
      row.append(this.editing.textarea);
      return row;
    }
    row.append(
      h('span', { className: 'queue-text', text: item.text }),
      h(
        'span',
        { className: 'queue-actions' },
        iconButton({ icon: 'edit', label: 'Edit queued prompt', action: ACTIONS.edit }),
        iconButton({ icon: 'close', label: 'Remove queued prompt', action: ACTIONS.remove }),
      ),
    );
    return row;
  }

  private startEditing(id: string): void {
    const item = this.items.find((queued) => queued.id === id);
    if (!item) return;
    const textarea = h('textarea', {
      className: 'queue-edit',
      attrs: {
        rows: String(Math.min(6, item.text.split('\n').length)),
        'aria-label': 'Edit queued prompt. Enter saves, Escape cancels.',
      },
    });
    textarea.value = item.text;
    textarea.addEventListener('keydown', (event) => {
      if (event.isComposing || event.keyCode === 229) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        this.finishEditing(id, undefined);
      } else if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.finishEditing(id, textarea.value);
      }
    });
    textarea.addEventListener('blur', () => {
      if (this.editing?.textarea === textarea) this.finishEditing(id, textarea.value);
    });
    this.editing = { id, textarea };
    this.setItems(this.items);
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
  }

  /** Saves (`text`) or cancels (undefined) the edit; an emptied prompt is removed. */
  private finishEditing(id: string, text: string | undefined): void {
    if (this.editing?.id !== id) return;
    this.editing = undefined;
    const item = this.items.find((queued) => queued.id === id);
    if (item && text !== undefined && text !== item.text) {
      if (text.trim()) {
        item.text = text.trim();
        postToHost({ type: 'editQueued', id, text });
      } else {
        postToHost({ type: 'removeQueued', id });
      }
    }
    this.setItems(this.items);
  }
}
