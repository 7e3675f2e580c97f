/**
 * Reports gateway data the client ignored: a field of the wrong type, or one it does not know.
 * Each path is reported once per reporter (one per client), so a field that is wrong in every
 * chunk of a long stream costs one log line, not thousands; and at most `MAX_PATHS` paths in all,
 * so a gateway inventing new keys cannot flood the log. Messages name the path and the JSON type,
 * never the value, which may be huge or hold a secret.
 */
import type { GatewayDataProblem } from './types';

const MAX_PATHS = 100;

export class ProblemReporter {
  private readonly seen = new Set<string>();
  private overflowReported = false;

  constructor(private readonly onProblem?: (problem: GatewayDataProblem) => void) {}

  /** `value` at `path` is not the `expected` type; it was ignored. */
  wrongType(path: string, expected: string, value: unknown): void {
    this.report(path, 'wrong-type', `expected ${expected}, got ${jsonType(value)}`);
  }

  /** `path` holds something we do not know (a field, a status, a kind); it was ignored. */
  unknown(path: string, what = 'an unknown field'): void {
    this.report(path, 'unknown', what);
  }

  /** Reports each key of `object` not in `known`, as `path.key`. */
  unknownKeys(path: string, object: Record<string, unknown>, known: ReadonlySet<string>): void {
    if (!this.onProblem) return;
    for (const key of Object.keys(object)) if (!known.has(key)) this.unknown(`${path}.${safeKey(key)}`);
  }

  private report(path: string, kind: GatewayDataProblem['kind'], detail: string): void {
    if (!this.onProblem || this.seen.has(path)) return;
    if (this.seen.size >= MAX_PATHS) {
      if (this.overflowReported) return;
      this.overflowReported = true;
      this.emit({
        path: '*',
        kind,
        message: `More than ${MAX_PATHS} kinds of unexpected gateway data; no more are reported.`,
      });
      return;
    }
    this.seen.add(path);
    this.emit({ path, kind, message: `Ignored ${path} from the gateway: ${detail}.` });
  }

  private emit(problem: GatewayDataProblem): void {
    try {
      this.onProblem?.(problem);
    } catch {
      // A failing listener must not break the reply it was told about.
    }
  }
}

/** A reporter that tells nobody: for callers that gave no `onProblem`. */
export const silentProblems = new ProblemReporter();

/** The JSON type of a value, for a problem message: `null`, `array`, `object`, `string`, ... */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A key from outside, shortened and reduced to harmless characters for a path. */
function safeKey(key: string): string {
  const cleaned = key.replace(/[^\w$-]/g, '?');
  return cleaned.length > 40 ? `${cleaned.slice(0, 40)}…` : cleaned;
}
