/**
 * The agent's tool picker, beside the model menu: tools on or off for this chat, one toggle per
 * source (our own set, each MCP server, each extension), and the MCP servers' state. A server
 * that is off shows the exact command line or URL that turning it on would start, before the
 * user starts it. Every name, command and error is set as text.
 */
import type { AgentToolChoices } from '../core/agent/types';
import type { AgentToolSourceView, AgentToolsState } from '../core/protocol/agentProtocol';
import { codicon, disclosure, h, iconButton, spinner } from './dom';
import { postToHost } from './vscodeApi';

const KIND_LABELS: Record<AgentToolSourceView['kind'], string> = {
  builtin: 'Built in',
  mcp: 'MCP server',
  extension: 'Extension',
};

const SERVER_STATES: Record<NonNullable<AgentToolSourceView['state']>, string> = {
  off: 'Not started',
  starting: 'Starting…',
  running: 'Running',
  error: 'Failed to start',
};

function toolCount(source: AgentToolSourceView): string {
  const count = source.tools.length;
  return `${count} ${count === 1 ? 'tool' : 'tools'}`;
}

/** An MCP server VS Code runs: it is started and stopped there, so the panel offers no button. */
function vscodeServerView(): HTMLElement {
  return h('div', { className: 'tool-server tool-server-state', text: 'Run by VS Code (MCP: List Servers)' });
}

export class ToolPicker {
  readonly toggleButton = iconButton({ icon: 'tools', label: 'Agent tools for this chat' });
  readonly panel: HTMLElement;
  private state?: AgentToolsState;
  private readonly notes = h('div', { className: 'tool-picker-notes' });
  private readonly master = h('input', { attrs: { type: 'checkbox' } });
  private readonly sources = h('div', { className: 'tool-sources' });

  constructor() {
    this.toggleButton.hidden = true;
    this.master.addEventListener('change', () => this.postChoices());
    this.panel = h(
      'div',
      {
        className: 'tool-picker',
        attrs: { id: 'tool-picker', role: 'region', 'aria-label': 'Agent tools for this chat' },
      },
      h(
        'fieldset',
        { className: 'option-group' },
        h('legend', { text: 'Agent tools for this chat' }),
        this.notes,
        h('label', { className: 'option-row tool-master' }, this.master, h('span', { text: 'Tools' })),
        this.sources,
      ),
    );
    this.setOpen = disclosure(this.toggleButton, this.panel, () => this.master.focus());
  }

  /** Opens or closes the panel. */
  readonly setOpen: (open: boolean) => void;

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  update(state: AgentToolsState): void {
    this.state = state;
    this.toggleButton.hidden = false;
    const on = state.available && !state.off;
    const label = !state.available
      ? 'Agent tools: not available with this model'
      : state.off
        ? 'Agent tools: off in this chat'
        : 'Agent tools for this chat';
    this.toggleButton.setAttribute('aria-label', label);
    this.toggleButton.title = label;
    this.toggleButton.classList.toggle('is-off', !on);

    const notes: HTMLElement[] = [];
    if (!state.available)
      notes.push(
        h(
          'p',
          { className: 'option-note tool-picker-unavailable' },
          codicon('info'),
          h('span', { text: state.reason || 'This model cannot use tools.' }),
        ),
      );
    if (state.restricted)
      notes.push(
        h(
          'p',
          { className: 'option-note tool-picker-restricted' },
          codicon('workspace-untrusted'),
          h('span', {
            text: 'Restricted Mode: edits and commands are off until you trust this workspace.',
          }),
        ),
      );
    if (state.platformNote)
      notes.push(
        h(
          'p',
          { className: 'option-note tool-picker-platform' },
          codicon('globe'),
          h('span', { text: state.platformNote }),
        ),
      );
    this.notes.replaceChildren(...notes);
    this.master.checked = !state.off;
    this.master.disabled = !state.available;
    const focused = this.panel.contains(document.activeElement)
      ? (document.activeElement as HTMLElement).dataset.focusKey
      : undefined;
    this.sources.replaceChildren(...state.sources.map((source) => this.sourceRow(source, on)));
    // A state change (a server started) rebuilds the rows: the focus stays on the same control.
    if (focused)
      this.sources.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private sourceRow(source: AgentToolSourceView, on: boolean): HTMLElement {
    const checkbox = h('input', { attrs: { type: 'checkbox' } });
    checkbox.checked = source.enabled;
    checkbox.disabled = !on;
    checkbox.dataset.sourceId = source.id;
    checkbox.dataset.focusKey = `toggle:${source.id}`;
    checkbox.addEventListener('change', () => this.postChoices());
    const row = h(
      'div',
      { className: `tool-source-row tool-source-${source.kind}` },
      h(
        'label',
        { className: 'option-row' },
        checkbox,
        h('span', { className: 'tool-source-label', text: source.label }),
        h('span', {
          className: 'tool-source-kind',
          text: `${KIND_LABELS[source.kind]} · ${toolCount(source)}`,
        }),
      ),
    );
    if (source.tools.length > 0)
      row.append(
        h(
          'details',
          { className: 'tool-source-tools' },
          h('summary', { text: 'Tools' }),
          h('ul', {}, ...source.tools.map((tool) => h('li', { text: tool }))),
        ),
      );
    if (source.runBy === 'vscode') row.append(vscodeServerView());
    else if (source.kind === 'mcp') row.append(this.serverView(source));
    return row;
  }

  /** An MCP server: its state, and what starting it runs (shown before it is started). */
  private serverView(source: AgentToolSourceView): HTMLElement {
    const state = source.state ?? 'off';
    const box = h(
      'div',
      { className: `tool-server is-${state}` },
      h(
        'div',
        { className: 'tool-server-state' },
        state === 'starting' ? spinner() : codicon(state === 'error' ? 'error' : 'server-process'),
        h('span', { text: SERVER_STATES[state] }),
      ),
    );
    if (source.detail) {
      const label = state === 'error' ? 'Error' : state === 'off' ? 'Starting it runs' : 'Runs';
      box.append(
        h('div', { className: 'tool-server-detail-label', text: label }),
        h('pre', { className: 'tool-server-detail' }, h('code', { text: source.detail })),
      );
    }
    const start = state === 'off' || state === 'error';
    if (state !== 'starting') {
      const button = iconButton({
        icon: start ? 'play' : 'debug-stop',
        label: `${start ? (state === 'error' ? 'Try again to start' : 'Start') : 'Stop'} the MCP server ${source.label}`,
        text: start ? (state === 'error' ? 'Try again' : 'Start server') : 'Stop server',
      });
      button.dataset.focusKey = `server:${source.id}`;
      button.addEventListener('click', () => {
        button.disabled = true;
        postToHost({ type: 'setToolSource', sourceId: source.id, enabled: start });
      });
      box.append(button);
    }
    return box;
  }

  private postChoices(): void {
    if (!this.state) return;
    const choices: AgentToolChoices = {};
    if (!this.master.checked) choices.off = true;
    const disabled = [...this.sources.querySelectorAll<HTMLInputElement>('input[data-source-id]')]
      .filter((input) => !input.checked)
      .map((input) => input.dataset.sourceId as string);
    if (disabled.length) choices.disabledSources = disabled;
    postToHost({ type: 'setAgentTools', choices });
  }
}
