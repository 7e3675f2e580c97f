/**
 * Restricted Mode's notice at the top of the chat: the chat answers in an untrusted workspace,
 * but the agent only reads, MCP servers do not start and Gateway AI ignores the settings the
 * workspace sets. The button opens VS Code's workspace trust editor.
 */
import { codicon, h } from './dom';
import { postToHost } from './vscodeApi';

export class TrustNotice {
  readonly element: HTMLElement;

  constructor() {
    const manage = h('button', {
      className: 'text-button trust-notice-manage',
      text: 'Manage Workspace Trust',
    });
    manage.addEventListener('click', () => postToHost({ type: 'manageTrust' }));
    this.element = h(
      'div',
      { className: 'trust-notice', attrs: { role: 'status' } },
      codicon('workspace-untrusted'),
      h(
        'p',
        { className: 'trust-notice-text' },
        h('strong', { text: 'Restricted Mode. ' }),
        h('span', {
          text:
            'The chat answers, but its agent only reads: it cannot edit files or run commands, MCP servers do not start, ' +
            'and the settings this workspace sets for Gateway AI are ignored until you trust it.',
        }),
      ),
      manage,
    );
    this.element.hidden = true;
  }

  setRestricted(restricted: boolean): void {
    this.element.hidden = !restricted;
  }
}
