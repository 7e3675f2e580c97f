import { Worker } from 'node:worker_threads';
import { REGEX_BUDGET_MS, SEARCH_SOURCE } from './regexTypes';
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
parentPort.postMessage((${SEARCH_SOURCE})(workerData));
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
