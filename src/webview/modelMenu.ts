/**
 * The model menu beside the model picker: the reasoning effort (only the efforts the catalog lists
 * for the model), and a panel of routing choices for the model and tools for this chat. Native
 * controls only, so every choice is reachable by keyboard and read by screen readers; every text
 * from the gateway (provider names, efforts) is set as text, never as markup.
 */
import type { ModelOptionsState } from '../core/protocol/chatProtocol';
import { providerList } from '../core/catalog/modelOptions';
import type { ChatTools, Routing, RoutingSort } from '../core/catalog/modelOptions';
import { disclosure, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

const SORT_LABELS: Record<RoutingSort | '', string> = {
  '': 'Gateway default',
  price: 'Lowest price',
  throughput: 'Highest throughput',
  latency: 'Lowest latency',
};

let nextId = 0;

function checkbox(label: string): { row: HTMLLabelElement; input: HTMLInputElement } {
  const input = h('input', { attrs: { type: 'checkbox' } });
  return { row: h('label', { className: 'option-row' }, input, h('span', { text: label })), input };
}

function field<T extends HTMLElement>(label: string, control: T): { row: HTMLElement; control: T } {
  const id = `model-option-${nextId++}`;
  control.id = id;
  const row = h(
    'div',
    { className: 'option-field' },
    h('label', { text: label, attrs: { for: id } }),
    control,
  );
  return { row, control };
}

export class ModelMenu {
  /** The effort picker, beside the model button (hidden when the model cannot reason). */
  readonly effortSelect = h('select', {
    className: 'effort-select',
    attrs: { 'aria-label': 'Reasoning effort', title: 'Reasoning effort' },
  });
  readonly toggleButton = iconButton({ icon: 'settings', label: 'Routing and tools' });
  readonly panel: HTMLElement;

  private state: ModelOptionsState | undefined;
  private readonly routingSet = h('fieldset', { className: 'option-group' });
  private readonly routingLegend = h('legend', { text: 'Routing' });
  private readonly routingNote = h('p', { className: 'option-note' });
  private readonly sort = field('Sort providers by', h('select'));
  private readonly fallbacks = checkbox('Allow fallbacks to other providers');
  private readonly denyData = checkbox('Deny data collection');
  private readonly zdr = checkbox('Zero data retention only');
  private readonly only = field('Only these providers', h('input', { attrs: { type: 'text' } }));
  private readonly ignore = field('Never these providers', h('input', { attrs: { type: 'text' } }));
  private readonly providerList = h('datalist');
  private readonly maxPrompt = field(
    'Max input price ($ per million tokens)',
    h('input', { attrs: { type: 'number', min: '0', step: 'any' } }),
  );
  private readonly maxCompletion = field(
    'Max output price ($ per million tokens)',
    h('input', { attrs: { type: 'number', min: '0', step: 'any' } }),
  );
  private readonly toolsSet = h('fieldset', { className: 'option-group' });
  private readonly toolsNote = h('p', { className: 'option-note' });
  private readonly webSearch = checkbox('Web search');
  private readonly pdf = checkbox('Parse PDF attachments');
  private readonly compress = checkbox('Compress long conversations to fit the context');

  constructor() {
    this.effortSelect.hidden = true;
    this.effortSelect.addEventListener('change', () => {
      const model = this.state?.model;
      if (!model) return;
      const effort = this.effortSelect.value;
      postToHost(effort ? { type: 'setEffort', model, effort } : { type: 'setEffort', model });
    });

    for (const value of Object.keys(SORT_LABELS) as Array<RoutingSort | ''>)
      this.sort.control.append(h('option', { text: SORT_LABELS[value], attrs: { value } }));
    const listId = `model-providers-${nextId++}`;
    this.providerList.id = listId;
    this.only.control.setAttribute('list', listId);
    this.ignore.control.setAttribute('list', listId);
    for (const input of [this.only.control, this.ignore.control])
      input.placeholder = 'Names, separated by commas';
    this.routingSet.append(
      this.routingLegend,
      this.routingNote,
      this.sort.row,
      this.fallbacks.row,
      this.denyData.row,
      this.zdr.row,
      this.only.row,
      this.ignore.row,
      this.providerList,
      this.maxPrompt.row,
      this.maxCompletion.row,
    );
    this.routingSet.addEventListener('change', () => this.postRouting());
    this.toolsSet.append(
      h('legend', { text: 'Tools for this chat' }),
      this.toolsNote,
      this.webSearch.row,
      this.pdf.row,
      this.compress.row,
    );
    this.toolsSet.addEventListener('change', () => this.postTools());

    this.panel = h(
      'div',
      {
        className: 'model-options',
        attrs: { id: 'model-options', role: 'region', 'aria-label': 'Routing and tools' },
      },
      this.routingSet,
      this.toolsSet,
    );
    this.setOpen = disclosure(this.toggleButton, this.panel, () =>
      (this.routingSet.disabled ? this.webSearch.input : this.sort.control).focus(),
    );
  }

  /** Opens or closes the panel. */
  readonly setOpen: (open: boolean) => void;

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  update(state: ModelOptionsState): void {
    this.state = state;
    this.renderEffort(state);
    const { routing, tools } = state;
    this.routingLegend.textContent = state.model ? `Routing for ${state.model}` : 'Routing';
    this.routingSet.disabled = !state.model || state.providerSetting;
    this.routingNote.textContent = state.providerSetting
      ? 'The setting gateway.chat.provider is set; it is sent instead of these choices.'
      : '';
    this.routingNote.hidden = !state.providerSetting;
    this.set(this.sort.control, routing.sort ?? '');
    this.fallbacks.input.checked = routing.allowFallbacks;
    this.denyData.input.checked = routing.denyDataCollection;
    this.zdr.input.checked = routing.zdr;
    this.set(this.only.control, routing.only.join(', '));
    this.set(this.ignore.control, routing.ignore.join(', '));
    this.set(this.maxPrompt.control, routing.maxPrice.prompt?.toString() ?? '');
    this.set(this.maxCompletion.control, routing.maxPrice.completion?.toString() ?? '');
    this.providerList.replaceChildren(
      ...state.providers.map((name) => {
        const option = h('option');
        option.value = name;
        return option;
      }),
    );
    this.toolsSet.disabled = state.pluginsSetting;
    this.toolsNote.textContent = state.pluginsSetting
      ? 'The setting gateway.chat.plugins is set; it is sent instead of these choices.'
      : '';
    this.toolsNote.hidden = !state.pluginsSetting;
    this.webSearch.input.checked = tools.webSearch;
    this.pdf.input.checked = tools.pdf;
    this.compress.input.checked = tools.compress;
  }

  private renderEffort(state: ModelOptionsState): void {
    const select = this.effortSelect;
    select.hidden = state.efforts.length === 0;
    const fallback = state.defaultEffort ? `Default (${state.defaultEffort})` : 'Default';
    select.replaceChildren(
      h('option', { text: fallback, attrs: { value: '' } }),
      ...state.efforts.map((effort) => h('option', { text: effort, attrs: { value: effort } })),
    );
    select.value = state.effort ?? '';
    const label = `Reasoning effort: ${state.effort ?? fallback}`;
    select.setAttribute('aria-label', label);
    select.title = label;
  }

  /** Sets a control's value unless the user is typing in it. */
  private set(control: HTMLInputElement | HTMLSelectElement, value: string): void {
    if (document.activeElement !== control) control.value = value;
  }

  private postRouting(): void {
    const model = this.state?.model;
    if (!model) return;
    const price = (input: HTMLInputElement) => (input.value.trim() === '' ? undefined : Number(input.value));
    const routing: Routing = {
      allowFallbacks: this.fallbacks.input.checked,
      denyDataCollection: this.denyData.input.checked,
      zdr: this.zdr.input.checked,
      only: providerList(this.only.control.value),
      ignore: providerList(this.ignore.control.value),
      maxPrice: {},
    };
    const sort = this.sort.control.value;
    if (sort) routing.sort = sort as RoutingSort;
    const prompt = price(this.maxPrompt.control);
    const completion = price(this.maxCompletion.control);
    if (prompt !== undefined && Number.isFinite(prompt)) routing.maxPrice.prompt = prompt;
    if (completion !== undefined && Number.isFinite(completion)) routing.maxPrice.completion = completion;
    postToHost({ type: 'setRouting', model, routing });
  }

  private postTools(): void {
    const tools: ChatTools = {
      webSearch: this.webSearch.input.checked,
      pdf: this.pdf.input.checked,
      compress: this.compress.input.checked,
    };
    postToHost({ type: 'setChatTools', tools });
  }
}
