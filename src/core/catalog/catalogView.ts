/**
 * How catalog models read in the pickers: price per million tokens, context length, capability
 * icons, and the order (current, favourites, recent, then the rest). Pure, so the bench and the
 * unit tests measure exactly what the quick pick shows.
 */
import { isFreeModel, undescribedModel } from './catalogCodec';
import type { CatalogModel } from './catalogCodec';
import { capabilitiesOf } from './capabilities';
import { inertText } from '../util/text';
import { modelIdProblem } from '../config/modelId';
import { visibleText } from '../agent/hiddenText';

export interface PickerEntry {
  id: string;
  /** The model's name, inert: a quick pick would render `$(name)` in it as an icon. */
  label: string;
  /** The id, and what the model costs. */
  description: string;
  /** Context length and capabilities, in words (the search matches them). */
  detail: string;
  group: 'favourites' | 'recent' | 'models';
  favourite: boolean;
  current: boolean;
}

/** "$0.15/M in · $0.60/M out", "free", or "" when unknown. */
export function formatPrice(model: CatalogModel): string {
  const pricing = model.pricing;
  if (isFreeModel(model)) return 'free';
  if (!pricing) return '';
  return `${perMillion(pricing.prompt)}/M in · ${perMillion(pricing.completion)}/M out`;
}

export function perMillion(perToken: number): string {
  const value = perToken * 1_000_000;
  if (value === 0) return '$0';
  if (value < 0.01) return `$${value.toPrecision(2)}`;
  return `$${value < 10 ? value.toFixed(2) : value.toFixed(value < 100 ? 1 : 0)}`;
}

/** "128K context", "1M context". */
export function formatContext(tokens: number | undefined): string {
  if (tokens === undefined) return '';
  if (tokens >= 1_000_000) return `${trim(tokens / 1_000_000)}M context`;
  if (tokens >= 1000) return `${trim(tokens / 1000)}K context`;
  return `${tokens} context`;
}

function trim(n: number): string {
  return n >= 100 ? n.toFixed(0) : String(Math.round(n * 10) / 10);
}

/** Capability words with codicons (`$(eye) vision`); the words are searchable. */
export function capabilityBadges(model: CatalogModel): string[] {
  const caps = capabilitiesOf(model);
  const badges: string[] = [];
  if (caps.vision) badges.push('$(eye) vision');
  if (caps.tools) badges.push('$(tools) tools');
  if (caps.reasoning) badges.push('$(lightbulb) reasoning');
  if (caps.imageOutput) badges.push('$(file-media) image output');
  if (model.outputModalities.includes('video')) badges.push('$(device-camera-video) video output');
  return badges;
}

/** "⚠ Expires on 2026-12-31": plain words (the date is the catalog's, made inert). */
export function expiryWarning(model: CatalogModel): string {
  return model.expirationDate ? `⚠ Expires on ${inertText(model.expirationDate.slice(0, 10), 10)}` : '';
}

export function toPickerEntry(
  model: CatalogModel,
  group: PickerEntry['group'],
  favourite: boolean,
  current: boolean,
): PickerEntry {
  const price = formatPrice(model);
  const context = formatContext(model.contextLength);
  return {
    id: model.id,
    label: inertText(model.name, 200),
    description: price ? `${inertText(model.id, 200)} · ${price}` : inertText(model.id, 200),
    detail: [expiryWarning(model), context, ...capabilityBadges(model)].filter(Boolean).join('  '),
    group,
    favourite,
    current,
  };
}

/**
 * The picker's entries: the current model, then favourites, recent models, and every other
 * model in catalog order. Each model appears once.
 */
export function pickerEntries(
  models: readonly CatalogModel[],
  options: { current: string; favourites: readonly string[]; recent: readonly string[] },
): PickerEntry[] {
  const byId = new Map(models.map((m) => [m.id, m]));
  const favourites = new Set(options.favourites);
  const placed = new Set<string>();
  const entries: PickerEntry[] = [];
  const place = (id: string, group: PickerEntry['group']) => {
    const model = byId.get(id);
    if (!model || placed.has(id)) return;
    placed.add(id);
    entries.push(toPickerEntry(model, group, favourites.has(id), id === options.current));
  };
  // The current model is always offered, even when the catalog does not list it.
  if (options.current && !byId.has(options.current))
    byId.set(options.current, undescribedModel(options.current));
  for (const id of options.favourites) place(id, 'favourites');
  place(options.current, 'recent');
  for (const id of options.recent) place(id, 'recent');
  for (const model of models) place(model.id, 'models');
  return entries;
}

/**
 * The row the picker adds for what the user typed, when no listed row has that id: any model id
 * the gateway may serve (`gpt-4o`, `llama3.2:3b`, `vendor/model`) is offered as typed; text that
 * cannot be a model id gets a row saying why, which picks nothing.
 */
export function typedModelEntry(
  typed: string,
  listed: readonly string[],
): { id?: string; label: string; description: string } | undefined {
  const id = typed.trim();
  if (!id || listed.includes(id)) return undefined;
  const problem = modelIdProblem(id);
  // What cannot be an id is shown with its hidden characters written out, so none rearranges the row.
  return problem
    ? { label: inertText(visibleText(id), 200), description: problem }
    : { id, label: inertText(id, 200), description: 'use this model' };
}

/** Models that make images, video or audio: what the media picker offers. */
export function mediaModels(models: readonly CatalogModel[]): CatalogModel[] {
  return models.filter((m) => capabilitiesOf(m).mediaOutput);
}
