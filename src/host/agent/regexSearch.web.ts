/**
 * `regexSearch.ts` in VS Code for the Web, where there are no worker threads. Where the host can
 * start a nested web worker, the pattern runs there and is terminated at its budget, as on the
 * desktop. Where it cannot, the pattern runs on the extension host's own thread, in slices of a few
 * milliseconds with a yield between them, stopped at its budget between lines; since one line's
 * match cannot be interrupted there, a pattern whose shape can backtrack for long
 * (`regexMayBacktrack`) is refused as if it had run out of time, and lines are cut shorter.
 */
import { regexMayBacktrack, RISK_LINE_CHARS } from '../../core/agent/regexRisk';
import { REGEX_BUDGET_MS, SEARCH_SOURCE } from './regexTypes';
import type { RegexFile, RegexMatch, RegexOutcome } from './regexTypes';

export { REGEX_BUDGET_MS } from './regexTypes';
export type { RegexFile, RegexMatch, RegexOutcome } from './regexTypes';

const LINE_CHARS = 2000;
/**
 * Lines are cut to this on the host's own thread: a polynomial pattern's work grows with it, and
 * `regexMayBacktrack` judges patterns at this length.
 */
const THREAD_LINE_CHARS = RISK_LINE_CHARS;
/** The longest the search runs on the host's thread without letting it do other work. */
const SLICE_MS = 8;

const WORKER = `onmessage = (event) => postMessage((${SEARCH_SOURCE})(event.data));`;

/** Throws a SyntaxError for a pattern that does not compile (checked before anything runs). */
export function checkRegex(pattern: string, flags: string): void {
  new RegExp(pattern, flags);
}

interface WebWorker {
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  postMessage(data: unknown): void;
  terminate(): void;
}
type WorkerGlobals = {
  Worker?: new (url: string) => WebWorker;
  Blob?: new (parts: string[], options: { type: string }) => unknown;
  URL?: { createObjectURL?(blob: unknown): string; revokeObjectURL?(url: string): void };
};

/** A nested web worker running the search, or undefined where the host cannot start one. */
function startWorker(): { worker: WebWorker; release(): void } | undefined {
  const globals = globalThis as unknown as WorkerGlobals;
  const urls = globals.URL;
  if (!globals.Worker || !globals.Blob || !urls?.createObjectURL) return undefined;
  let url: string | undefined;
  try {
    url = urls.createObjectURL(new globals.Blob([WORKER], { type: 'text/javascript' }));
    const worker = new globals.Worker(url);
    const loaded = url;
    return {
      worker,
      release: () => {
        worker.terminate();
        urls.revokeObjectURL?.(loaded);
      },
    };
  } catch {
    if (url) urls.revokeObjectURL?.(url);
    return undefined;
  }
}

export function regexSearch(
  pattern: string,
  flags: string,
  files: readonly RegexFile[],
  max: number,
  signal: AbortSignal,
  budgetMs = REGEX_BUDGET_MS,
): Promise<RegexOutcome> {
  const clean = flags.replace(/[gy]/g, '');
  const started = startWorker();
  if (!started) return onThread(pattern, clean, files, max, signal, budgetMs);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: RegexOutcome | 'fallback') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      started.release();
      if (outcome === 'fallback') void onThread(pattern, clean, files, max, signal, budgetMs).then(resolve);
      else resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'stopped' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), budgetMs);
    signal.addEventListener('abort', onAbort, { once: true });
    const { worker } = started;
    worker.onmessage = (event) =>
      finish({ kind: 'done', matches: Array.isArray(event.data) ? (event.data as RegexMatch[]) : [] });
    // A worker the host's policy refused to load: the search runs on the thread instead.
    worker.onerror = () => finish('fallback');
    if (signal.aborted) onAbort();
    else worker.postMessage({ pattern, flags: clean, files, max, lineChars: LINE_CHARS });
  });
}

/** The search on the host's own thread (see the file's comment). */
async function onThread(
  pattern: string,
  flags: string,
  files: readonly RegexFile[],
  max: number,
  signal: AbortSignal,
  budgetMs: number,
): Promise<RegexOutcome> {
  if (signal.aborted) return { kind: 'stopped' };
  if (regexMayBacktrack(pattern)) return { kind: 'timeout' };
  let re: RegExp;
  try {
    re = new RegExp(pattern, flags);
  } catch {
    return { kind: 'done', matches: [] };
  }
  const deadline = Date.now() + budgetMs;
  const out: RegexMatch[] = [];
  let slice = Date.now();
  for (const file of files) {
    const lines = file.text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      if (Date.now() - slice >= SLICE_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        slice = Date.now();
        if (signal.aborted) return { kind: 'stopped' };
        if (slice >= deadline) return { kind: 'timeout' };
      }
      const line = lines[i].length > THREAD_LINE_CHARS ? lines[i].slice(0, THREAD_LINE_CHARS) : lines[i];
      if (re.test(line)) {
        out.push({ path: file.path, line: i + 1, text: line });
        if (out.length >= max) return { kind: 'done', matches: out };
      }
    }
  }
  return signal.aborted ? { kind: 'stopped' } : { kind: 'done', matches: out };
}
