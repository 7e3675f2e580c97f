/**
 * The mode picker beside the model: Agent, Plan, Ask and the workspace's custom agents, for this
 * chat. A custom agent whose file could not be used whole shows a warning (its problems as the
 * option's title and beside the picker). Every name and problem is set as text.
 */
import type { ModesState } from '../core/protocol/modeProtocol';
import { codicon, h } from './dom';
import { postToHost } from './vscodeApi';

export class ModePicker {
  readonly select = h('select', {
    className: 'mode-select',
    attrs: { 'aria-label': 'Mode for this chat', title: 'Mode for this chat' },
  });
  readonly warning = h('span', { className: 'mode-warning', attrs: { role: 'img' } }, codicon('warning'));
  /**
   * Shown while a workspace agent is chosen, whatever its name: the mark comes from the option's
   * id (a built-in mode's is fixed, a workspace agent's is its file's), never from text a file
   * wrote, so no agent named like a built-in mode can pass for one in the closed picker.
   */
  readonly origin = h(
    'span',
    {
      className: 'mode-origin',
      attrs: { title: 'A workspace agent: defined by a file of this workspace, not a built-in mode' },
    },
    codicon('file-code'),
    h('span', { text: 'workspace' }),
  );
  readonly element = h('span', { className: 'mode-picker' }, this.select, this.origin, this.warning);
  private state: ModesState | undefined;

  constructor() {
    this.element.hidden = true;
    this.warning.hidden = true;
    this.origin.hidden = true;
    this.select.addEventListener('change', () => {
      this.markOrigin(this.select.value);
      postToHost({ type: 'setMode', mode: this.select.value });
    });
  }

  private markOrigin(id: string): void {
    const custom = this.state?.options.find((o) => o.id === id)?.custom ?? false;
    this.origin.hidden = !custom;
    this.select.classList.toggle('mode-custom', custom);
  }

  update(state: ModesState): void {
    this.state = state;
    this.element.hidden = false;
    const option = (o: ModesState['options'][number]) =>
      h('option', {
        text: o.warning ? `${o.label} ⚠` : o.label,
        attrs: { value: o.id, title: [o.description, o.warning].filter(Boolean).join('\n') },
      });
    const builtin = state.options.filter((o) => !o.custom).map(option);
    const custom = state.options.filter((o) => o.custom).map(option);
    this.select.replaceChildren(
      ...builtin,
      ...(custom.length ? [h('optgroup', { attrs: { label: 'Workspace agents' } }, ...custom)] : []),
    );
    this.select.value = state.current;
    this.markOrigin(state.current);
    const chosen = state.options.find((o) => o.id === state.current);
    const label = `Mode: ${chosen?.custom ? 'workspace agent ' : ''}${chosen?.label ?? state.current}${chosen?.description ? ` (${chosen.description})` : ''}`;
    this.select.title = label;
    this.select.setAttribute('aria-label', label);
    const problems = [
      ...state.warnings,
      ...state.options.flatMap((o) => (o.warning ? [`${o.label}: ${o.warning}`] : [])),
    ];
    this.warning.hidden = problems.length === 0;
    const said = `Agent files: ${problems.join(' · ')}`;
    this.warning.title = said;
    this.warning.setAttribute('aria-label', said);
  }
}
