/**
 * What a search by regular expression takes and gives, on every platform (`regexSearch.ts` runs
 * it in a worker thread on the desktop, `regexSearch.web.ts` in the browser).
 */
export interface RegexFile {
  path: string;
  text: string;
}
export interface RegexMatch {
  path: string;
  line: number;
  text: string;
}
export type RegexOutcome =
  { kind: 'done'; matches: RegexMatch[] } | { kind: 'timeout' } | { kind: 'stopped' };

export const REGEX_BUDGET_MS = 3000;
