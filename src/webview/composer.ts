/**
 * The prompt box. Enter sends, Shift+Enter adds a line. While a reply streams, a Stop button
 * stands beside Send, and what is sent is queued by the host until the reply ends. Nothing typed
 * is lost: the text is cleared only once the host shows the prompt as a new turn or in the
 * queue (a refused send leaves it in place), and the draft survives the view being hidden.
 */
import { codicon, h, iconButton } from './dom';
import { loadDraft, postToHost, saveDraft } from './vscodeApi';

/** Share of the view's height the prompt box may grow to before it scrolls. */
const MAX_HEIGHT_SHARE = 0.4;

interface EditingState {
  turnId: string;
  /** What the composer held before editing began; it comes back afterwards. */
  draftBefore: string;
}

export class Composer {
  readonly element: HTMLElement;
  private readonly textarea: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly editingBanner: HTMLElement;
  /** Why the host refused the last prompt (e.g. a bad `/image` flag); gone once the text changes. */
  private readonly notice = h('div', { className: 'composer-notice', attrs: { role: 'alert', hidden: '' } });
  private editing?: EditingState;
  /** Text posted with the last send, until the host answers with a new user turn. */
  private sentText?: string;
  private streaming = false;

  constructor() {
    this.textarea = h('textarea', {
      className: 'composer-input',
      attrs: {
        rows: '1',
        placeholder: 'Ask Gateway AI…',
        title: 'Enter to send, Shift+Enter for a new line',
        'aria-label': 'Message to the model. Enter to send, Shift+Enter for a new line.',
      },
    });
    this.textarea.value = loadDraft();
    this.sendButton = iconButton({ icon: 'send', label: 'Send (Enter)', className: 'send-button' });
    const cancelEdit = iconButton({ icon: 'close', label: 'Cancel editing (Escape)' });
    this.editingBanner = h(
      'div',
      { className: 'composer-editing', attrs: { hidden: '' } },
      codicon('edit'),
      h('span', { text: 'Editing your last message. Sending replaces it and the reply.' }),
      cancelEdit,
    );
    this.stopButton = iconButton({ icon: 'debug-stop', label: 'Stop (Escape)', className: 'stop-button' });
    this.stopButton.hidden = true;
    const box = h('div', { className: 'composer-box' }, this.textarea, this.stopButton, this.sendButton);
    this.element = h('div', { className: 'composer' }, this.editingBanner, this.notice, box);

    this.textarea.addEventListener('input', () => this.onInput());
    this.textarea.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.sendButton.addEventListener('click', () => this.submit());
    this.stopButton.addEventListener('click', () => postToHost({ type: 'stop' }));
    cancelEdit.addEventListener('click', () => this.cancelEditing());
    this.refresh();
    // A restored multi-line draft needs its height once the box is laid out.
    requestAnimationFrame(() => this.autoGrow());
  }

  get isEditing(): boolean {
    return this.editing !== undefined;
  }

  focus(): void {
    this.textarea.focus();
  }

  setStreaming(streaming: boolean): void {
    if (streaming === this.streaming) return;
    this.streaming = streaming;
    this.refresh();
  }

  /** Text from the host (e.g. a prompt to edit); replaces the draft. */
  setText(text: string): void {
    this.textarea.value = text;
    this.onInput();
    this.focus();
  }

  startEditing(turnId: string, text: string): void {
    if (!this.editing) this.editing = { turnId, draftBefore: this.textarea.value };
    else this.editing.turnId = turnId;
    this.textarea.value = text;
    this.editingBanner.hidden = false;
    this.element.classList.add('is-editing');
    this.autoGrow();
    this.refresh();
    this.focus();
    this.textarea.setSelectionRange(text.length, text.length);
  }

  cancelEditing(): void {
    if (!this.editing) return;
    this.textarea.value = this.editing.draftBefore;
    this.editing = undefined;
    this.sentText = undefined;
    this.editingBanner.hidden = true;
    this.element.classList.remove('is-editing');
    this.onInput();
  }

  /**
   * The host added a user turn, or queued a prompt: the pending prompt arrived, so the box can
   * be cleared.
   */
  promptAccepted(): void {
    if (this.sentText === undefined) return;
    const unchangedSinceSend = this.textarea.value === this.sentText;
    this.sentText = undefined;
    if (this.editing) {
      this.cancelEditing();
    } else if (unchangedSinceSend) {
      this.textarea.value = '';
      this.onInput();
    }
  }

  private submit(): void {
    const text = this.textarea.value;
    if (text.trim() === '') return;
    // Editing replaces the reply; that one is not queued (the host stops the reply first).
    this.sentText = text;
    if (this.editing) postToHost({ type: 'editAndResend', turnId: this.editing.turnId, text });
    else postToHost({ type: 'send', text });
  }

  private onKeyDown(event: KeyboardEvent): void {
    // While an input method composes (CJK and others), Enter confirms the composition.
    if (event.isComposing || event.keyCode === 229) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      this.submit();
    }
  }

  /** The host refused the prompt: say why; the text stays as typed. */
  showNotice(message: string): void {
    this.sentText = undefined;
    this.notice.replaceChildren(codicon('warning'), h('span', { text: message }));
    this.notice.hidden = false;
  }

  private onInput(): void {
    this.notice.hidden = true;
    // The edited prompt is conversation content; only a draft of the user's own is kept.
    if (!this.editing) saveDraft(this.textarea.value);
    this.autoGrow();
    this.refresh();
  }

  private autoGrow(): void {
    this.textarea.style.height = 'auto';
    const limit = Math.floor(window.innerHeight * MAX_HEIGHT_SHARE);
    this.textarea.style.height = `${Math.min(this.textarea.scrollHeight, limit)}px`;
  }

  private refresh(): void {
    const button = this.sendButton;
    const label = this.editing
      ? 'Send edited message (Enter)'
      : this.streaming
        ? 'Queue (Enter): sent when the reply ends'
        : 'Send (Enter)';
    button.replaceChildren(codicon(this.streaming && !this.editing ? 'list-ordered' : 'send'));
    button.setAttribute('aria-label', label);
    button.title = label;
    button.disabled = this.textarea.value.trim() === '';
    this.stopButton.hidden = !this.streaming;
  }
}
