/** Small readers for untrusted JSON: the gateway's answers are checked, never cast blindly. */

export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringField(object: JsonObject | undefined, ...names: string[]): string | undefined {
  if (!object) return undefined;
  for (const name of names) {
    const value = object[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

export function objectField(object: JsonObject | undefined, name: string): JsonObject | undefined {
  const value = object?.[name];
  return isRecord(value) ? value : undefined;
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A short, single-line excerpt of untrusted text for an error message. */
export function excerpt(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The first `max` characters of `text`, as a string of their own. V8's `slice` of a long string is
 * a view that keeps all of it alive: 2,000 characters kept of a server's 16 MB description held
 * the 16 MB for as long as the 2,000 lived.
 */
export function ownSlice(text: string, max: number): string {
  return text.length > max ? (JSON.parse(JSON.stringify(text.slice(0, max))) as string) : text;
}
