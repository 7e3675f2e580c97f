/** Small DOM builders, so views read as structure rather than as createElement calls. */

export interface ElementProps {
  className?: string;
  text?: string;
  attrs?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.className) element.className = props.className;
  if (props.text !== undefined) element.textContent = props.text;
  if (props.attrs) {
    for (const [name, value] of Object.entries(props.attrs)) element.setAttribute(name, value);
  }
  if (children.length > 0) element.append(...children);
  return element;
}

export function codicon(name: string, extraClass = ''): HTMLSpanElement {
  const icon = h('span', { className: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}` });
  icon.setAttribute('aria-hidden', 'true');
  return icon;
}

export function spinner(): HTMLSpanElement {
  return codicon('loading', 'codicon-modifier-spin');
}

export interface ButtonProps {
  icon: string;
  /** Accessible name and tooltip. */
  label: string;
  /** Visible text beside the icon; icon-only when absent. */
  text?: string;
  /** Handled by event delegation on the transcript (see `transcriptActions.ts`). */
  action?: string;
  className?: string;
}

export function iconButton(props: ButtonProps): HTMLButtonElement {
  const button = h('button', {
    className: `${props.text ? 'text-button' : 'icon-button'}${props.className ? ` ${props.className}` : ''}`,
    attrs: { type: 'button', 'aria-label': props.label, title: props.label },
  });
  button.append(codicon(props.icon));
  if (props.text) button.append(h('span', { text: props.text }));
  if (props.action) button.dataset.action = props.action;
  return button;
}

/** Runs `work` when the browser is idle (or soon, where idle callbacks are unavailable). */
export function whenIdle(work: (deadline: { timeRemaining(): number }) => void): void {
  if (typeof requestIdleCallback === 'function') {
    requestIdleCallback(work, { timeout: 100 });
  } else {
    setTimeout(() => {
      const start = performance.now();
      work({ timeRemaining: () => Math.max(0, 8 - (performance.now() - start)) });
    }, 0);
  }
}

/**
 * A button that shows and hides a panel below the header: `aria-expanded`, Escape inside the
 * panel closes it and gives the focus back to the button. `focusFirst` runs when it opens.
 * Returns the function that opens or closes it.
 */
export function disclosure(
  button: HTMLButtonElement,
  panel: HTMLElement,
  focusFirst: () => void,
): (open: boolean) => void {
  const setOpen = (open: boolean): void => {
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.classList.toggle('is-active', open);
    if (open) focusFirst();
  };
  panel.hidden = true;
  button.setAttribute('aria-expanded', 'false');
  if (panel.id) button.setAttribute('aria-controls', panel.id);
  button.addEventListener('click', () => setOpen(panel.hidden));
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    setOpen(false);
    button.focus();
  });
  return setOpen;
}
