/**
 * What a drag of media results carries, under the Media Jobs tree's MIME type: a JSON array of
 * job ids. The Media Jobs tree and the gallery page write it; an editor's drop provider reads it.
 * A drop can come from anywhere (another extension, another window, a page), so it is parsed here:
 * only string ids, each once, within limits; anything else is no drop at all.
 */

/** More ids than any gallery selection a person makes, fewer than a drop that would stall saving. */
export const MAX_DRAGGED_JOBS = 1_000;
const MAX_ID_CHARS = 500;
const MAX_PAYLOAD_CHARS = MAX_DRAGGED_JOBS * (MAX_ID_CHARS + 3) + 2;

export function encodeDraggedJobs(ids: readonly string[]): string {
  return JSON.stringify([...new Set(ids)].slice(0, MAX_DRAGGED_JOBS));
}

/** The job ids a drop names, in order, each once; empty for anything malformed. */
export function parseDraggedJobs(raw: string | undefined): string[] {
  if (!raw || raw.length > MAX_PAYLOAD_CHARS) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(value) || value.length > MAX_DRAGGED_JOBS) return [];
  if (
    !value.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_CHARS)
  )
    return [];
  return [...new Set(value)];
}
