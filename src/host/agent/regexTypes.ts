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

/**
 * The search a worker runs, as JavaScript source of one arrow function: `({ pattern, flags, files,
 * max, lineChars }) => matches`, lines cut to `lineChars` first.
 */
export const SEARCH_SOURCE = `({ pattern, flags, files, max, lineChars }) => {
  const re = new RegExp(pattern, flags);
  const out = [];
  outer: for (const file of files) {
    const lines = file.text.split(/\\r?\\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].length > lineChars ? lines[i].slice(0, lineChars) : lines[i];
      if (re.test(line)) {
        out.push({ path: file.path, line: i + 1, text: line });
        if (out.length >= max) break outer;
      }
    }
  }
  return out;
}`;
