/**
 * Choosing a media model where no picker can show (the chat's `/image` and `/video`, the agents'
 * `gateway_generateMedia`): the same catalog list Generate Media's picker shows (the client's
 * `listMediaModels`), written as lines of text, and the check of a choice against it before
 * anything is sent. Pure: the caller passes the list in.
 */
import { checkMediaParameters, describeMediaOptions } from '../../api/media';
import type { MediaKind, MediaModelInfo } from '../../api/mediaRoutes';

/** The most models one listing names (a notice or a tool answer is not a catalog browser). */
export const MAX_LISTED_MODELS = 40;

const PLURAL: Readonly<Record<MediaKind, string>> = { image: 'images', video: 'video', audio: 'audio' };

/** Catalog text made one plain line: no line breaks or controls, bounded. */
function line(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').slice(0, max);
}

/** One model in one line: `id (kind, $0.04 per image): aspect_ratio 1:1 | 16:9; duration 4 | 8`. */
export function describeMediaModel(model: MediaModelInfo): string {
  const facts = [model.kind, model.price].filter(Boolean).join(', ');
  const options = describeMediaOptions(model);
  const reference = model.reference ? `; takes a reference image (--image <url>)` : '';
  return line(`${model.id} (${facts})${options ? `: ${options}` : ''}${reference}`, 400);
}

/** The models of `kind` (every kind when undefined), one per line, at most MAX_LISTED_MODELS. */
export function listMediaModelLines(models: readonly MediaModelInfo[], kind?: MediaKind): string[] {
  const matching = models.filter((model) => !kind || model.kind === kind);
  const lines = matching.slice(0, MAX_LISTED_MODELS).map(describeMediaModel);
  if (matching.length > MAX_LISTED_MODELS)
    lines.push(`… and ${matching.length - MAX_LISTED_MODELS} more in the gateway's catalogs.`);
  return lines;
}

/** Which models a listing names, as a heading: `Video models on this gateway (2):`. */
export function mediaModelsHeading(models: readonly MediaModelInfo[], kind?: MediaKind): string {
  const count = models.filter((model) => !kind || model.kind === kind).length;
  if (count === 0)
    return `The gateway's catalogs list no ${kind ? `${kind} ` : 'media '}models (any model id can still be tried).`;
  return `${kind ? `${kind[0].toUpperCase()}${kind.slice(1)}` : 'Media'} models on this gateway (${count}):`;
}

/**
 * Why `model` cannot make `kind` with these parameters, by its entry in the media catalogs, or
 * undefined when it can (or the catalogs do not know it: then the gateway judges). The message
 * names what is allowed: the models that make `kind`, or the values the parameter takes.
 */
export function checkMediaChoice(
  models: readonly MediaModelInfo[],
  model: string,
  kind: MediaKind | undefined,
  parameters: Record<string, unknown> | undefined,
): string | undefined {
  const info = models.find((entry) => entry.id === model);
  if (!info) return undefined;
  if (kind && info.kind !== kind) {
    const others = models.filter((entry) => entry.kind === kind).slice(0, 8);
    const offer = others.length
      ? ` Models that make ${PLURAL[kind]}: ${others.map((entry) => entry.id).join(', ')}.`
      : '';
    return line(
      `${model} does not make ${PLURAL[kind]}: it makes ${PLURAL[info.kind]}, by the gateway's media catalogs.${offer}`,
      1000,
    );
  }
  const invalid = checkMediaParameters(info, parameters);
  return invalid ? line(invalid, 1000) : undefined;
}
