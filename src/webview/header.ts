/** The bar above the chat: the current model (click to change it) and the chat's commands. */
import { codicon, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

export class Header {
  readonly element: HTMLElement;
  readonly historyButton: HTMLButtonElement;
  private readonly modelName = h('span', { className: 'model-name' });
  private readonly modelButton: HTMLButtonElement;
  private readonly exportButton: HTMLButtonElement;

  constructor(onToggleHistory: () => void) {
    this.modelButton = h(
      'button',
      { className: 'model-button', attrs: { type: 'button' } },
      codicon('sparkle'),
      this.modelName,
      codicon('chevron-down'),
    );
    this.modelButton.addEventListener('click', () => postToHost({ type: 'selectModel' }));

    const newChat = iconButton({ icon: 'add', label: 'New Chat' });
    newChat.addEventListener('click', () => postToHost({ type: 'newChat' }));
    this.historyButton = iconButton({ icon: 'history', label: 'Show earlier conversations' });
    this.historyButton.setAttribute('aria-expanded', 'false');
    this.historyButton.setAttribute('aria-controls', 'history-panel');
    this.historyButton.addEventListener('click', onToggleHistory);
    this.exportButton = iconButton({ icon: 'export', label: 'Export conversation' });
    this.exportButton.addEventListener('click', () => postToHost({ type: 'exportConversation' }));

    this.element = h(
      'header',
      { className: 'chat-header' },
      this.modelButton,
      h('span', { className: 'header-actions' }, newChat, this.historyButton, this.exportButton),
    );
    this.setModel('');
  }

  setModel(model: string): void {
    this.modelName.textContent = model || 'Select a model';
    const label = model ? `Model: ${model}. Click to change it.` : 'Select a model';
    this.modelButton.setAttribute('aria-label', label);
    this.modelButton.title = label;
  }

  /** The model menu's controls, right after the model button (the effort, routing and tools). */
  addModelControls(...controls: HTMLElement[]): void {
    this.modelButton.after(...controls);
  }

  setHistoryOpen(open: boolean): void {
    this.historyButton.setAttribute('aria-expanded', String(open));
    this.historyButton.classList.toggle('is-active', open);
  }

  /** An empty conversation has nothing to export. */
  setCanExport(canExport: boolean): void {
    this.exportButton.disabled = !canExport;
  }
}
