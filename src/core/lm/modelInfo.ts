/**
 * The models offered to VS Code's chat: the gateway's model catalog (parsed once, by
 * src/core/catalog/catalogCodec.ts) when it has one, else the settings; narrowed by
 * `gateway.languageModels.include`. Pure. Text from the catalog is made inert before VS Code
 * shows it.
 */
import { capabilitiesOf } from '../catalog/capabilities';
import { effortChoices } from '../catalog/modelOptions';
import type { CatalogModel } from '../catalog/catalogCodec';
import { perMillion } from '../catalog/catalogView';
import { isModelId } from '../config/modelId';
import { inertText } from '../util/text';

export interface LmModelInfo {
  id: string;
  name: string;
  family: string;
  version: string;
  maxInputTokens: number;
  maxOutputTokens: number;
  tooltip: string;
  detail: string;
  capabilities: { imageInput: boolean; toolCalling: boolean };
  /**
   * The model's options in VS Code's model picker (VS Code 1.139+ reads it; older versions ignore
   * it): the reasoning efforts the catalog lists. What the user picks comes back with each request.
   */
  configurationSchema?: {
    properties: {
      reasoningEffort: { type: 'string'; title: string; description: string; enum: string[] };
    };
  };
}

/** The efforts a model's configuration offers (none when it has no configuration). */
export function modelEfforts(info: Pick<LmModelInfo, 'configurationSchema'>): string[] {
  return info.configurationSchema?.properties.reasoningEffort.enum ?? [];
}

export const DEFAULT_CONTEXT_LENGTH = 128_000;
export const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;
const MAX_MODELS = 1_000;

/**
 * Text from the gateway, made inert for the places VS Code shows it (through `inertText`): one
 * line, no control or bidi characters, Markdown link and image syntax and HTML tags broken up,
 * bounded length.
 */
export function plainText(value: string, max = 200): string {
  const line = value
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/!\[/g, '! [')
    .replace(/<(?=[a-z!/])/gi, '‹');
  return inertText(line, max);
}

/** A model that answers in text (the catalog may also list image, video and audio models). */
function answersInText(model: CatalogModel): boolean {
  return model.outputModalities.length === 0 || model.outputModalities.includes('text');
}

/** `*` matches any run of characters (slashes too), `?` one; case-insensitive. */
function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}

/**
 * Applies `gateway.languageModels.include`: ids or globs, `!` in front to exclude. A model is
 * offered when some pattern includes it and none excludes it. An id without a wildcard that the
 * catalog lacks is still offered (the gateway may serve models its catalog does not list).
 */
export function selectModelIds(candidates: readonly string[], patterns: readonly string[]): string[] {
  const include = patterns
    .filter((p) => !p.startsWith('!'))
    .map((p) => p.trim())
    .filter(Boolean);
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => globToRegExp(p.slice(1).trim()));
  const includeRes = include.map(globToRegExp);
  const chosen = candidates.filter((id) => includeRes.some((re) => re.test(id)));
  for (const literal of include) {
    if (
      !/[*?]/.test(literal) &&
      isModelId(literal) &&
      !chosen.some((id) => id.toLowerCase() === literal.toLowerCase())
    )
      chosen.push(literal);
  }
  return chosen.filter((id) => !exclude.some((re) => re.test(id)));
}

function thousands(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}K` : String(tokens);
}

export function toModelInfo(id: string, entry: CatalogModel | undefined): LmModelInfo {
  // `openai/gpt-4o`: family `openai`, version `gpt-4o`; an id without a vendor (`gpt-4o`,
  // `llama3.2:3b`) is its own family and version.
  const slash = id.indexOf('/');
  const family = plainText(slash > 0 ? id.slice(0, slash) : id, 60);
  const version = plainText(slash > 0 ? id.slice(slash + 1) : id, 100);
  const context = entry?.contextLength ?? DEFAULT_CONTEXT_LENGTH;
  // The context window holds the prompt and the reply: what the reply may take is not for the prompt.
  const maxOutputTokens = Math.max(
    1,
    Math.min(entry?.maxCompletionTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, Math.floor(context / 2)),
  );
  const maxInputTokens = Math.max(1, context - maxOutputTokens);
  const name = plainText(entry?.name ?? id, 100);
  const capabilities = capabilitiesOf(entry);
  const prices =
    entry?.pricing !== undefined
      ? `${perMillion(entry.pricing.prompt)} in / ${perMillion(entry.pricing.completion)} out per 1M tokens`
      : undefined;
  const tooltip = [
    `${name} (${plainText(id, 200)}) through your gateway.`,
    `Context ${thousands(context)} tokens.`,
    prices ? `Price: ${prices}.` : 'Price: see your gateway.',
  ].join(' ');
  const info: LmModelInfo = {
    id,
    name,
    family,
    version,
    maxInputTokens,
    maxOutputTokens,
    tooltip,
    detail: prices ?? 'Gateway AI',
    capabilities: {
      imageInput: capabilities.vision ?? false,
      // Unknown: most chat models on a gateway call tools, and VS Code's agent needs them.
      toolCalling: capabilities.tools ?? true,
    },
  };
  const { efforts, defaultEffort } = effortChoices(entry);
  if (efforts.length > 0) {
    info.configurationSchema = {
      properties: {
        reasoningEffort: {
          type: 'string',
          title: 'Reasoning effort',
          // No `default`: VS Code would send it with every request, and gateway.chat.reasoningEffort
          // (the default for every model) would never apply. The model's own default is named instead.
          description: `How much the model thinks before it answers${defaultEffort ? ` (the model's default: ${defaultEffort})` : ''}. Unset: gateway.chat.reasoningEffort.`,
          enum: efforts,
        },
      },
    };
  }
  return info;
}

/**
 * The models to offer. With an include list: what it selects from the catalog (or from the
 * configured ids when there is no catalog). Without one: the configured chat models and the
 * current model, described by the catalog where it lists them.
 */
export function buildModelInfos(input: {
  catalog: readonly CatalogModel[] | undefined;
  chatModels: readonly string[];
  currentModel: string;
  include: readonly string[];
}): LmModelInfo[] {
  const byId = new Map((input.catalog ?? []).map((m) => [m.id, m]));
  const chatModels = (input.catalog ?? []).filter(answersInText).map((m) => m.id);
  const configured = [input.currentModel, ...input.chatModels]
    .map((m) => m.trim())
    .filter((m) => isModelId(m));
  const ids =
    input.include.length > 0
      ? selectModelIds(input.catalog ? chatModels : configured, input.include)
      : configured;
  const unique = [...new Set(ids)].slice(0, MAX_MODELS);
  return unique.map((id) => toModelInfo(id, byId.get(id)));
}
