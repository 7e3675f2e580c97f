/**
 * What the user chose in the chat's model menu, and the request fields that follow from it:
 * routing per model (sent as `provider`), reasoning effort per model (sent as `reasoning`), and
 * the tools of one chat (web search, PDF parsing, context compression: `plugins` or a server
 * tool). Pure. The parsers here are the one boundary for these choices, whether they come from
 * storage or from the webview: any JSON in, our own types out.
 */
import { isRecord } from '../../api/json';
import type { ChatRequest } from '../../api/types';
import { parseEffort } from './catalogCodec';
import type { CatalogModel } from './catalogCodec';
import { capabilitiesOf } from './capabilities';

export { parseEffort };

export const ROUTING_SORTS = ['price', 'throughput', 'latency'] as const;
export type RoutingSort = (typeof ROUTING_SORTS)[number];

export interface Routing {
  /** How the gateway orders the providers; absent: its own balancing. */
  sort?: RoutingSort;
  /** Whether other providers may serve the request when the chosen ones fail (the gateway's default: yes). */
  allowFallbacks: boolean;
  /** Only providers that do not store or train on prompts. */
  denyDataCollection: boolean;
  /** Only zero-data-retention endpoints. */
  zdr: boolean;
  /** Only these providers (names as the endpoints list gives them). */
  only: string[];
  /** Never these providers. */
  ignore: string[];
  /** The most to pay, in USD per million tokens. */
  maxPrice: { prompt?: number; completion?: number };
}

export interface ModelChoices {
  /** The reasoning effort chosen for this model; absent: the setting's, else the model's default. */
  effort?: string;
  routing?: Routing;
}

/** The tools of one chat. */
export interface ChatTools {
  webSearch: boolean;
  pdf: boolean;
  compress: boolean;
}

export const DEFAULT_ROUTING: Routing = {
  allowFallbacks: true,
  denyDataCollection: false,
  zdr: false,
  only: [],
  ignore: [],
  maxPrice: {},
};

const MAX_PROVIDERS = 32;
const MAX_PROVIDER_NAME = 100;
/** Dollars per million tokens; a cap above this is a typo, not a budget. */
const MAX_PRICE_PER_MILLION = 10_000;
/** Models with stored choices; the least recently changed go first beyond this. */
export const MAX_MODELS_WITH_CHOICES = 200;
export const MAX_CHATS_WITH_TOOLS = 500;

const MODEL_KEY = /^[^/\s]+\/\S+$/;

/** A provider list from JSON or from typed text ("A, B"): trimmed, printable, each once. */
export function providerList(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  const out: string[] = [];
  for (const item of items) {
    if (out.length >= MAX_PROVIDERS) break;
    if (typeof item !== 'string') continue;
    // eslint-disable-next-line no-control-regex
    const name = item.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
    if (name && name.length <= MAX_PROVIDER_NAME && !out.includes(name)) out.push(name);
  }
  return out;
}

function priceCap(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_PRICE_PER_MILLION
    ? value + 0
    : undefined;
}

/** Routing from any JSON: each field of the wrong type takes its default. */
export function parseRouting(value: unknown): Routing {
  const v = isRecord(value) ? value : {};
  const routing: Routing = {
    allowFallbacks: v.allowFallbacks !== false,
    denyDataCollection: v.denyDataCollection === true,
    zdr: v.zdr === true,
    only: providerList(v.only),
    ignore: providerList(v.ignore),
    maxPrice: {},
  };
  if (typeof v.sort === 'string' && (ROUTING_SORTS as readonly string[]).includes(v.sort))
    routing.sort = v.sort as RoutingSort;
  const max = isRecord(v.maxPrice) ? v.maxPrice : {};
  const prompt = priceCap(max.prompt);
  const completion = priceCap(max.completion);
  if (prompt !== undefined) routing.maxPrice.prompt = prompt;
  if (completion !== undefined) routing.maxPrice.completion = completion;
  return routing;
}

export function parseModelChoices(value: unknown): ModelChoices {
  const v = isRecord(value) ? value : {};
  const choices: ModelChoices = {};
  const effort = parseEffort(v.effort);
  if (effort) choices.effort = effort;
  if (v.routing !== undefined) {
    const routing = parseRouting(v.routing);
    if (!isDefaultRouting(routing)) choices.routing = routing;
  }
  return choices;
}

/** The stored map model id → choices (globalState: outside data). Bad entries are dropped. */
export function parseChoicesByModel(value: unknown): Record<string, ModelChoices> {
  const out: Record<string, ModelChoices> = {};
  if (!isRecord(value)) return out;
  let count = 0;
  for (const [id, entry] of Object.entries(value)) {
    if (count >= MAX_MODELS_WITH_CHOICES) break;
    if (!MODEL_KEY.test(id) || id.length > 200) continue;
    const choices = parseModelChoices(entry);
    if (choices.effort === undefined && choices.routing === undefined) continue;
    out[id] = choices;
    count++;
  }
  return out;
}

export function parseChatTools(value: unknown): ChatTools {
  const v = isRecord(value) ? value : {};
  return { webSearch: v.webSearch === true, pdf: v.pdf === true, compress: v.compress === true };
}

/** The stored map conversation id → tools. */
export function parseToolsByChat(value: unknown): Record<string, ChatTools> {
  const out: Record<string, ChatTools> = {};
  if (!isRecord(value)) return out;
  let count = 0;
  for (const [id, entry] of Object.entries(value)) {
    if (count >= MAX_CHATS_WITH_TOOLS) break;
    if (!id || id.length > 200) continue;
    out[id] = parseChatTools(entry);
    count++;
  }
  return out;
}

export function isDefaultRouting(routing: Routing): boolean {
  return (
    routing.sort === undefined &&
    routing.allowFallbacks &&
    !routing.denyDataCollection &&
    !routing.zdr &&
    routing.only.length === 0 &&
    routing.ignore.length === 0 &&
    routing.maxPrice.prompt === undefined &&
    routing.maxPrice.completion === undefined
  );
}

/**
 * The request's `provider` object for these choices (OpenRouter's provider routing), or undefined
 * when nothing differs from the gateway's defaults. `requireParameters` keeps the router from
 * picking an upstream that would drop tools or forced parameters.
 */
export function providerField(
  routing: Routing | undefined,
  requireParameters: boolean,
): Record<string, unknown> | undefined {
  if (!routing || isDefaultRouting(routing)) return undefined;
  const provider: Record<string, unknown> = {};
  if (routing.sort) provider.sort = routing.sort;
  if (!routing.allowFallbacks) provider.allow_fallbacks = false;
  if (routing.denyDataCollection) provider.data_collection = 'deny';
  if (routing.zdr) provider.zdr = true;
  if (routing.only.length) provider.only = routing.only;
  if (routing.ignore.length) provider.ignore = routing.ignore;
  const { prompt, completion } = routing.maxPrice;
  if (prompt !== undefined || completion !== undefined)
    provider.max_price = {
      ...(prompt !== undefined ? { prompt } : {}),
      ...(completion !== undefined ? { completion } : {}),
    };
  if (requireParameters) provider.require_parameters = true;
  return provider;
}

/** The efforts offered for a model, and its default; none when it cannot reason. */
export interface EffortChoices {
  efforts: string[];
  defaultEffort?: string;
}

/** When the catalog says only "reasoning" (the older form), these are the efforts every router takes. */
const CLASSIC_EFFORTS = ['low', 'medium', 'high'];

export function effortChoices(model: CatalogModel | undefined): EffortChoices {
  if (model?.reasoningEfforts?.length) {
    return model.defaultEffort
      ? { efforts: model.reasoningEfforts, defaultEffort: model.defaultEffort }
      : { efforts: model.reasoningEfforts };
  }
  if (capabilitiesOf(model).reasoning === true) return { efforts: CLASSIC_EFFORTS };
  return { efforts: [] };
}

/**
 * The `reasoning` field: the effort chosen for this model when the model offers it, else the
 * setting's effort (`gateway.chat.reasoningEffort`, the default for every model); undefined lets
 * the model decide. An effort the catalog does not list for the model is not sent.
 */
export function reasoningField(
  chosen: string | undefined,
  settingEffort: string,
  model: CatalogModel | undefined,
): Record<string, unknown> | undefined {
  const listed = effortChoices(model).efforts;
  const offered = (effort: string) => listed.length === 0 || listed.includes(effort);
  if (chosen && offered(chosen)) return { effort: chosen };
  if (settingEffort === 'default') return undefined;
  if (settingEffort === 'none') return { enabled: false };
  return offered(settingEffort) ? { effort: settingEffort } : undefined;
}

/** The engine OpenRouter's `file-parser` plugin parses PDFs with (free; `pdf-text` is its older name). */
export const PDF_ENGINE = 'cloudflare-ai';

export interface ToolFields {
  plugins: Record<string, unknown>[];
  /** Server tools (`openrouter:*`), sent in `tools` beside any function tools. */
  serverTools: Record<string, unknown>[];
  transforms?: string[];
}

/**
 * The request fields for a chat's tools. Web search goes as the `openrouter:web_search` server
 * tool when the model takes tools (the model then searches when it needs to), else as the `web`
 * plugin (which searches once per request).
 */
export function toolFields(tools: ChatTools, model: CatalogModel | undefined): ToolFields {
  const fields: ToolFields = { plugins: [], serverTools: [] };
  if (tools.webSearch) {
    if (capabilitiesOf(model).tools === true) fields.serverTools.push({ type: 'openrouter:web_search' });
    else fields.plugins.push({ id: 'web' });
  }
  if (tools.pdf) fields.plugins.push({ id: 'file-parser', pdf: { engine: PDF_ENGINE } });
  if (tools.compress) fields.plugins.push({ id: 'context-compression' });
  return fields;
}

/** What the chat's request takes from the menu, beside the settings that shape it. */
export interface ChoiceSettings {
  reasoningEffort: string;
  /** `gateway.chat.provider`: when set, sent as it is instead of the routing choices. */
  provider: Record<string, unknown> | undefined;
  /** `gateway.chat.plugins`: when set, sent as it is instead of the tool choices. */
  plugins: Record<string, unknown>[];
  forceParameters: boolean;
}

/**
 * Applies the menu's choices to a chat request built from the settings: `reasoning` from the
 * model's effort, `provider` from its routing, and the chat's tools as `plugins` and server tools.
 * The raw JSON settings win where they are set.
 */
export function applyModelChoices(
  request: ChatRequest,
  input: {
    choices: ModelChoices;
    tools: ChatTools;
    model: CatalogModel | undefined;
    settings: ChoiceSettings;
  },
): ChatRequest {
  const out: ChatRequest = { ...request };
  const reasoning = reasoningField(input.choices.effort, input.settings.reasoningEffort, input.model);
  if (reasoning) out.reasoning = reasoning;
  else delete out.reasoning;
  if (!input.settings.provider) {
    const functionTools = Array.isArray(out.tools) && out.tools.length > 0;
    const provider = providerField(input.choices.routing, functionTools || input.settings.forceParameters);
    if (provider) out.provider = provider;
  }
  if (input.settings.plugins.length === 0) {
    const fields = toolFields(input.tools, input.model);
    if (fields.plugins.length) out.plugins = fields.plugins;
    else delete out.plugins;
    if (fields.serverTools.length) out.tools = [...(out.tools ?? []), ...fields.serverTools];
  }
  return out;
}
