/**
 * Reference images for variations: which request parameter carries the image depends on the model
 * family, and the user can say otherwise per model in settings.
 */

export const REFERENCE_PARAMETER_NAMES = ['image', 'input_image', 'image_url'] as const;
export type ReferenceParameterName = (typeof REFERENCE_PARAMETER_NAMES)[number];

/** Families whose APIs are known; the rest get `image_url`, the most common chat-style name. */
const FAMILY_DEFAULTS: ReadonlyArray<[RegExp, ReferenceParameterName]> = [
  [/^openai\//, 'image'],
  [/^(black-forest-labs|bfl)\//, 'input_image'],
  [/flux/i, 'input_image'],
];

/**
 * The parameter name for `model`. `overrides` maps a model id, or a pattern with `*` (e.g.
 * `"openai/*"`), to a name; the longest matching pattern wins.
 */
export function referenceParameterFor(
  model: string,
  overrides: Readonly<Record<string, string>> = {},
): ReferenceParameterName {
  let best: { length: number; name: ReferenceParameterName } | undefined;
  for (const [pattern, name] of Object.entries(overrides)) {
    if (!(REFERENCE_PARAMETER_NAMES as readonly string[]).includes(name)) continue;
    if (!globMatches(pattern, model)) continue;
    if (!best || pattern.length > best.length)
      best = { length: pattern.length, name: name as ReferenceParameterName };
  }
  if (best) return best.name;
  return FAMILY_DEFAULTS.find(([family]) => family.test(model))?.[1] ?? 'image_url';
}

function globMatches(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(value);
}

/** The parameters of a variation: the original ones with the reference image added. */
export function withReference(
  parameters: Readonly<Record<string, unknown>> | undefined,
  name: ReferenceParameterName,
  reference: string,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...parameters };
  for (const other of REFERENCE_PARAMETER_NAMES) delete next[other];
  next[name] = reference;
  return next;
}

export function dataUrl(mimeType: string, base64: string): string {
  return `data:${mimeType};base64,${base64}`;
}
