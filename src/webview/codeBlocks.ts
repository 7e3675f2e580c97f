/**
 * Code blocks get a toolbar: language label, Copy, Insert at cursor, Open in new editor. The
 * buttons carry `data-action`; one delegated listener on the transcript handles them all, so
 * blocks re-rendered every frame at the streaming tail need no listeners of their own.
 */
import { h, iconButton } from './dom';

export const CODE_ACTIONS = {
  copy: 'copy-code',
  insert: 'insert-code',
  open: 'open-code',
} as const;

function languageOf(code: Element): string {
  for (const name of Array.from(code.classList)) {
    if (name.startsWith('language-')) return name.slice('language-'.length);
  }
  return '';
}

/** The toolbar, built once; each block gets a copy (a long reply has hundreds of blocks). */
let toolbarTemplate: HTMLElement | undefined;

function newToolbar(language: string): HTMLElement {
  toolbarTemplate ??= h(
    'div',
    { className: 'code-toolbar' },
    h('span', { className: 'code-language' }),
    h(
      'span',
      { className: 'code-actions' },
      iconButton({ icon: 'copy', label: 'Copy code', action: CODE_ACTIONS.copy }),
      iconButton({ icon: 'insert', label: 'Insert at cursor', action: CODE_ACTIONS.insert }),
      iconButton({ icon: 'go-to-file', label: 'Open in new editor', action: CODE_ACTIONS.open }),
    ),
  );
  const toolbar = toolbarTemplate.cloneNode(true) as HTMLElement;
  (toolbar.firstElementChild as HTMLElement).textContent = language || 'text';
  return toolbar;
}

export function decorateCodeBlocks(root: DocumentFragment | Element): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.firstElementChild;
    if (!code || code.tagName !== 'CODE' || pre.parentElement?.classList.contains('code-block')) continue;
    const language = languageOf(code);
    const toolbar = newToolbar(language);
    const block = h('div', { className: 'code-block' });
    if (language) block.dataset.language = language;
    pre.replaceWith(block);
    block.append(toolbar, pre);
  }
}

/** The code and language of the block that contains `element` (a toolbar button). */
export function codeBlockOf(element: Element): { code: string; language?: string } | undefined {
  const block = element.closest('.code-block');
  const code = block?.querySelector('pre > code');
  if (!(block instanceof HTMLElement) || !code) return undefined;
  // A fence's text ends with the newline before the closing marker; it is not part of the code.
  const text = (code.textContent ?? '').replace(/\n$/, '');
  return { code: text, language: block.dataset.language };
}
