/**
 * Scenario switches. A scenario is `name` or `name:arg`; it can come from the `X-Sim-Scenario`
 * header, from `#sim:name[:arg]` markers in the last user message or media prompt (end-to-end tests
 * can only type text), from the API key, or globally. All of them apply; for each kind of
 * behaviour the first source in that order wins.
 */

export interface Scenario {
  name: string;
  arg?: string;
}

/**
 * Failures decided before any response is written. `moderation`: a chat request refused with 403
 * and OpenRouter's moderation metadata (`reasons`, `flagged_input`, `provider_name`).
 */
export const FAILURE_SCENARIOS = ['429', '429-then-ok', '500-then-ok', 'status', 'moderation'] as const;
/**
 * What goes wrong once a 200 stream has started. `error-chunk`: half the reply, then an error
 * event with `finish_reason: "error"` and metadata (provider, the upstream error as JSON).
 */
export const STREAM_FAULT_SCENARIOS = ['drop', 'stall', 'malformed', 'error-chunk'] as const;
/** What the reply says. */
/** `call:<tool>`: one call of that tool, when the request offers it. */
export const CONTENT_SCENARIOS = ['slow', 'long', 'tools', 'call', 'xss', 'citations'] as const;
/**
 * Hostile replies: fields of the wrong type (`hostile-types`), a stream of nothing but keep-alives
 * (`keepalive[:ms]`), one that never ends (`endless[:ms]`), one of `huge[:megabytes]`.
 */
export const HOSTILE_SCENARIOS = ['hostile-types', 'keepalive', 'endless', 'huge'] as const;
/**
 * OpenRouter's ways (see openRouterQuirks.ts): `no-usage` (a stream without `usage`),
 * `402-inflight[:n]` (the first n chat requests refused while the balance is held in flight);
 * and other gateways': `no-cost` (tokens but no cost, and no generation record).
 */
export const QUIRK_SCENARIOS = ['no-usage', '402-inflight', 'no-cost'] as const;
/** How the bytes are written. `processing`: a `: PROCESSING` comment before every content chunk. */
export const TRANSPORT_SCENARIOS = ['chunk', 'crlf', 'processing'] as const;
/** Shape of a media job's result. */
export const MEDIA_SCENARIOS = [
  'fail',
  'fail-object',
  'fail-hostile',
  /** A failure whose reason quotes the API key the status request carried. */
  'fail-echo-key',
  'result',
  'text',
  'b64',
  'url',
  'nested',
  /** `many-outputs:<n>`: n result URLs (default 100). */
  'many-outputs',
  /** A text result as a `data:text/plain,…` URL. */
  'text-data',
  /** A text result by URL: `….txt`, or without an extension (`text-untyped-url`), as text/plain. */
  'text-url',
  'text-untyped-url',
  /** In-progress records without `status`, then `completed`. */
  'no-status',
  /** In-progress records with a status nobody knows (`moderating`), then `completed`. */
  'odd-status',
  /** `final-status:<word>`: the final record says `<word>` (e.g. succeeded, cancelled, expired). */
  'final-status',
] as const;

const MARKER = /#sim:([a-z0-9][a-z0-9-]*)(?::([^\s#,]+))?/gi;

export function parseScenario(spec: string): Scenario | undefined {
  const text = spec.trim();
  if (!text) return undefined;
  const colon = text.indexOf(':');
  if (colon < 0) return { name: text.toLowerCase() };
  return { name: text.slice(0, colon).toLowerCase(), arg: text.slice(colon + 1) };
}

/** `a, b:1 c` → scenarios (header values may list several). */
export function parseScenarioList(value: string | undefined): Scenario[] {
  if (!value) return [];
  return value
    .split(/[,\s]+/)
    .map(parseScenario)
    .filter((scenario): scenario is Scenario => scenario !== undefined);
}

export function scenariosFromMarkers(text: string | undefined): Scenario[] {
  if (!text) return [];
  return [...text.matchAll(MARKER)].map((match) => ({ name: match[1].toLowerCase(), arg: match[2] }));
}

export function formatScenario(scenario: Scenario): string {
  return scenario.arg === undefined ? scenario.name : `${scenario.name}:${scenario.arg}`;
}

/** The scenarios in force for one request, in priority order. */
export class ScenarioSet {
  constructor(readonly list: Scenario[]) {}

  find(name: string): Scenario | undefined {
    return this.list.find((scenario) => scenario.name === name);
  }

  /** The first scenario whose name is in `names`. */
  first(names: readonly string[]): Scenario | undefined {
    return this.list.find((scenario) => names.includes(scenario.name));
  }

  has(name: string): boolean {
    return this.find(name) !== undefined;
  }

  numberArg(name: string, fallback: number): number {
    const value = Number(this.find(name)?.arg);
    return Number.isFinite(value) && value >= 0 ? value : fallback;
  }

  names(): string[] {
    return this.list.map(formatScenario);
  }
}
