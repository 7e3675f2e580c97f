/**
 * Model ids: whatever the gateway lists or the user types. Gateways name models their own way
 * (`openai/gpt-4o`, `gpt-4o`, `dall-e-3`, `llama3.2:3b`, `my-team/claude`, `model@2024-05`), so
 * the id has no required shape. It is checked for safety only: not empty, no longer than
 * MAX_MODEL_ID characters, and none of the characters that could hide or
 * rearrange what the user reads or break a line of a log or a header (control characters,
 * Unicode format characters such as the bidi overrides and zero-width joiners, line and
 * paragraph separators, unpaired surrogates, private-use characters) and no whitespace: gateways'
 * ids have none, and an id stays one word in a slash command (`/image --model gpt-image-1`), a log
 * line or a menu. Where an id goes into a URL path, the client encodes each segment and refuses
 * `.` and `..` (`modelEndpointsPath`).
 */

export const MAX_MODEL_ID = 256;

/**
 * What is refused: C0/C1 controls, format characters (Cf: bidi controls, zero-width, soft hyphen,
 * BOM), unpaired surrogates, private use, and every kind of space or separator.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Z}\s]/u;

/** Why a value is not a usable model id, or undefined when it is one (already trimmed). */
export function modelIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'A model id is text.';
  if (value.trim() === '') return 'Type a model id.';
  if (value.length > MAX_MODEL_ID) return `A model id has at most ${MAX_MODEL_ID} characters.`;
  if (UNSAFE.test(value)) return 'A model id has no spaces and no control, invisible or layout characters.';
  return undefined;
}

/** A model id as it stands (trimmed, bounded, no unsafe characters): see modelIdProblem. */
export function isModelId(value: unknown): value is string {
  return modelIdProblem(value) === undefined;
}

/** The trimmed model id in `value`, or undefined when there is none that is safe to use. */
export function toModelId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  return isModelId(id) ? id : undefined;
}
