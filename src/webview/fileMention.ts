/**
 * `#file:` in the composer: while a mention is typed, the host is asked for matching workspace
 * files and they are offered in a list above the prompt. Arrow keys move, Enter or Tab (or a
 * click) attaches the file as a chip and takes the mention out of the prompt, Escape closes the
 * list. Paths are shown as text. The list takes its keys before the composer does, so Enter
 * chooses a file instead of sending.
 */
import { mentionAt } from '../core/chat/fileMention';
import type { FileSuggestion } from '../core/chat/fileMention';
import { codicon, h } from './dom';
import { postToHost } from './vscodeApi';

/** Keystrokes closer together than this ask the host once. */
const ASK_DELAY_MS = 80;

export class FileMention {
  readonly element = h('div', {
    className: 'file-mention',
    attrs: { role: 'listbox', 'aria-label': 'Workspace files' },
  });
  private files: FileSuggestion[] = [];
  private active = 0;
  private query: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    keyTarget: HTMLElement,
  ) {
    this.element.hidden = true;
    input.addEventListener('input', () => this.onInput());
    input.addEventListener('blur', () => this.close());
    // Capture: the list sees Enter, Tab, arrows and Escape before the composer and the page.
    keyTarget.addEventListener('keydown', (event) => this.onKeyDown(event), true);
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** The host's answer; one for a query no longer typed is ignored. */
  show(query: string, files: readonly FileSuggestion[]): void {
    if (query !== this.query) return;
    this.files = files.slice();
    this.active = 0;
    this.render();
  }

  private onInput(): void {
    const mention = mentionAt(this.input.value, this.input.selectionStart ?? this.input.value.length);
    if (!mention) {
      this.close();
      return;
    }
    if (mention.query === this.query) return;
    this.query = mention.query;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => postToHost({ type: 'findFiles', query: mention.query }), ASK_DELAY_MS);
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (!this.isOpen || event.isComposing) return;
    let handled = true;
    if (event.key === 'ArrowDown') this.move(1);
    else if (event.key === 'ArrowUp') this.move(-1);
    else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') this.choose(this.active);
    else if (event.key === 'Escape') this.close();
    else handled = false;
    if (!handled) return;
    event.preventDefault();
    event.stopPropagation();
  }

  private move(by: number): void {
    if (this.files.length === 0) return;
    this.active = (this.active + by + this.files.length) % this.files.length;
    this.render();
  }

  private choose(index: number): void {
    const file = this.files[index];
    const mention = mentionAt(this.input.value, this.input.selectionStart ?? this.input.value.length);
    this.close();
    if (!file || !mention) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const value = this.input.value;
    this.input.value = value.slice(0, mention.start) + value.slice(caret);
    this.input.setSelectionRange(mention.start, mention.start);
    // The composer keeps its draft and height in step, and the meter counts the new text.
    this.input.dispatchEvent(new Event('input', { bubbles: true }));
    postToHost({ type: 'attachUris', uris: [file.uri] });
  }

  private close(): void {
    clearTimeout(this.timer);
    this.query = undefined;
    this.files = [];
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  private render(): void {
    this.element.hidden = false;
    if (this.files.length === 0) {
      this.element.replaceChildren(
        h('div', { className: 'file-mention-empty', text: 'No workspace file matches.' }),
      );
      return;
    }
    this.element.replaceChildren(
      ...this.files.map((file, index) => {
        const option = h(
          'div',
          {
            className: `file-mention-option${index === this.active ? ' is-active' : ''}`,
            attrs: { role: 'option', 'aria-selected': String(index === this.active), title: file.path },
          },
          codicon('file'),
          h('span', { className: 'file-mention-path', text: file.path }),
        );
        // mousedown, not click: the prompt keeps the focus (a blur would close the list first).
        option.addEventListener('mousedown', (event) => {
          event.preventDefault();
          this.choose(index);
        });
        return option;
      }),
    );
  }
}
