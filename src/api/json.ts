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
