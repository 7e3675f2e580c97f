/**
 * Which model inline completions use when the setting leaves it open, and which way they ask it
 * (fill-in-the-middle or chat). Apart from the request builders so that the status item, loaded at
 * activation, can name the model without the cleaning and request code.
 */
import type { CatalogModel } from '../catalog/catalogCodec';

export type InlineMode = 'fim' | 'chat';
export type InlineModeSetting = 'auto' | InlineMode;

/** Families known to take `suffix` on `/v1/completions` (trained for fill-in-the-middle). */
const FIM_FAMILIES =
  /codestral|qwen[\d.]*-?coder|deepseek-coder|starcoder|codellama|codegemma|stable-code|granite[^/]*code/i;
/** Names of models made or tuned for code. */
const CODE_MODELS = /cod(?:e|er|estral|ing)\b|coder|codestral|devstral/i;
/** Names of small, fast general models, for a catalog without a code model. */
const FAST_MODELS = /mini|flash|haiku|small|nano|lite|instant|8b|7b/i;

/**
 * FIM when the setting says so; in `auto`, when the catalog lists `suffix` among the model's
 * parameters, or the model is of a known FIM family and the gateway is not OpenRouter (which
 * documents no `suffix` on `/completions`: the chat path is the default there).
 */
export function chooseMode(
  setting: InlineModeSetting,
  model: string,
  entry: CatalogModel | undefined,
  baseUrl: string,
): InlineMode {
  if (setting !== 'auto') return setting;
  if (entry?.supportedParameters.includes('suffix')) return 'fim';
  return FIM_FAMILIES.test(model) && !isOpenRouter(baseUrl) ? 'fim' : 'chat';
}

function isOpenRouter(baseUrl: string): boolean {
  try {
    return /(^|\.)openrouter\.ai$/i.test(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * The model for inline completions: the setting, else a fast code model from the catalog (code
 * models first, then small fast ones, each cheapest first; models that reason are slow, so last).
 */
export function chooseInlineModel(setting: string, catalog: readonly CatalogModel[]): string | undefined {
  if (setting.trim()) return setting.trim();
  const text = catalog.filter(
    (m) =>
      (m.outputModalities.length === 0 || m.outputModalities.includes('text')) &&
      (m.inputModalities.length === 0 || m.inputModalities.includes('text')),
  );
  const rank = (m: CatalogModel): number =>
    (CODE_MODELS.test(m.id) || CODE_MODELS.test(m.name) ? 0 : FAST_MODELS.test(m.id) ? 1 : 2) * 2 +
    (m.supportedParameters.includes('reasoning') ? 1 : 0);
  const price = (m: CatalogModel): number =>
    m.pricing ? m.pricing.prompt * 10 + m.pricing.completion : Number.POSITIVE_INFINITY;
  const best = [...text].sort((a, b) => rank(a) - rank(b) || price(a) - price(b))[0];
  return best?.id;
}
