import { Worker } from 'node:worker_threads';
import { REGEX_BUDGET_MS } from './regexTypes';
import type { RegexFile, RegexMatch, RegexOutcome } from './regexTypes';

/**
 * A regular expression from a model, run where it cannot hang the extension host: in a worker
 * thread that is terminated when its time is up (JavaScript's engine backtracks, and `(a+)+$` on
 * a long line would otherwise run for minutes). Lines are cut to a length first.
 */

export { REGEX_BUDGET_MS } from './regexTypes';
export type { RegexFile, RegexMatch, RegexOutcome } from './regexTypes';

const LINE_CHARS = 2000;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { pattern, flags, files, max, lineChars } = workerData;
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
parentPort.postMessage(out);
`;

/** Throws a SyntaxError for a pattern that does not compile (checked before any worker starts). */
export function checkRegex(pattern: string, flags: string): void {
  new RegExp(pattern, flags);
}

export function regexSearch(
  pattern: string,
  flags: string,
  files: readonly RegexFile[],
  max: number,
  signal: AbortSignal,
  budgetMs = REGEX_BUDGET_MS,
): Promise<RegexOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { pattern, flags: flags.replace(/[gy]/g, ''), files, max, lineChars: LINE_CHARS },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    let settled = false;
    const finish = (outcome: RegexOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'stopped' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), budgetMs);
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (matches: RegexMatch[]) => finish({ kind: 'done', matches }));
    worker.on('error', () => finish({ kind: 'done', matches: [] }));
    if (signal.aborted) onAbort();
  });
}
