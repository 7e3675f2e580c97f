/**
 * `error.metadata` of an OpenRouter-style error, by type: the one reader for it, whether the error
 * came as an HTTP error body, as a 200 body or as a chunk in the middle of a stream.
 *
 * - `provider_name`: which upstream provider failed;
 * - `raw`: the provider's own error, a string or any JSON, often a whole upstream body;
 * - `reasons` and `flagged_input`: why moderation refused the request, and the part it flagged.
 *
 * Everything is gateway text: the key (and any other secret) is redacted from each value before
 * it is cut to length (see `redactExcerpt`), white space is flattened, and nothing here is markup; the
 * views show it as text, and notifications neutralise link syntax on top.
 */
import { isRecord } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import { redactExcerpt } from './redact';
import type { Secrets } from './redact';

export interface ErrorMetadata {
  provider?: string;
  /** The provider's own error, cut to MAX_RAW_CHARS. */
  raw?: string;
  /** Moderation's reasons, at most MAX_REASONS of MAX_REASON_CHARS each. */
  reasons?: string[];
  /** The input moderation flagged, cut to MAX_FLAGGED_CHARS. */
  flaggedInput?: string;
}

export const MAX_RAW_CHARS = 300;
export const MAX_REASONS = 8;
export const MAX_REASON_CHARS = 80;
export const MAX_FLAGGED_CHARS = 120;
const MAX_PROVIDER_CHARS = 80;

/** Never throws; whatever `value` is, the fields it could read. */
export function parseErrorMetadata(
  value: unknown,
  secrets: Secrets = [],
  problems: ProblemReporter = silentProblems,
): ErrorMetadata {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    problems.wrongType('error.metadata', 'an object', value);
    return {};
  }
  const shown = (text: string, max: number): string => redactExcerpt(text, max, secrets);
  const metadata: ErrorMetadata = {};
  const provider = value.provider_name ?? value.provider;
  if (typeof provider === 'string' && provider.trim())
    metadata.provider = shown(provider, MAX_PROVIDER_CHARS);
  else if (provider !== undefined && provider !== null)
    problems.wrongType('error.metadata.provider_name', 'a string', provider);
  const raw = jsonText(value.raw);
  if (raw) metadata.raw = shown(raw, MAX_RAW_CHARS);
  const reasons = Array.isArray(value.reasons)
    ? value.reasons
    : typeof value.reasons === 'string'
      ? [value.reasons]
      : [];
  const readable = reasons
    .map((reason) => jsonText(reason))
    .filter((reason): reason is string => !!reason)
    .slice(0, MAX_REASONS)
    .map((reason) => shown(reason, MAX_REASON_CHARS));
  if (readable.length > 0) metadata.reasons = readable;
  const flagged = jsonText(value.flagged_input);
  if (flagged) metadata.flaggedInput = shown(flagged, MAX_FLAGGED_CHARS);
  return metadata;
}

/**
 * What the metadata adds to `message`, as sentences to append: the raw upstream error in
 * parentheses (unless the message says it already), then moderation's reasons and the input it
 * flagged. Empty when there is nothing to add.
 */
export function describeErrorMetadata(metadata: ErrorMetadata, message = ''): string {
  const parts: string[] = [];
  if (metadata.raw && !message.includes(metadata.raw)) parts.push(`(${metadata.raw})`);
  if (metadata.reasons) parts.push(`Flagged for: ${metadata.reasons.join(', ')}.`);
  if (metadata.flaggedInput) parts.push(`Flagged input: "${metadata.flaggedInput}"`);
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

/** A string as it is; any other JSON as JSON; nothing for empty or unserialisable values. */
function jsonText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value.trim() ? value : undefined;
  try {
    // Depth and size are bounded by what a body can hold (8 MiB); the text is cut after redaction.
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
