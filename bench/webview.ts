/**
 * The chat webview's rendering cost, measured in headless Chromium through the test harness
 * (the real bundle, page and CSP).
 *
 * Streaming: a reply of realistic Markdown (headings, paragraphs, lists, tables and a code
 * block per section) is posted as 64-character `turnDelta` messages, 16 per animation frame
 * (about 1 KB per frame: a fast model, and the webview's own per-frame coalescing is exercised),
 * then `turnUpdated` completes it. A Chromium trace of that window gives the renderer main
 * thread's total task time (script, style, layout, paint: everything the panel pays) and its
 * longest task, both in thread CPU time. Linear rendering means the 200 KB reply costs about
 * twice the 100 KB one.
 *
 * Big chunks: the 200 KB reply arrives as 16 KiB deltas, one per frame (a fast network read
 * posted whole by the host); the longest task is measured while they arrive and, separately,
 * from the final `turnUpdated` until the reply is fully rendered and highlighted.
 *
 * Opening: a 1,000-turn, 2 MB conversation is posted as one `init`; the page measures, with
 * `performance.now()`, the time until the newest turn is in the DOM and a frame has been painted,
 * and until all 1,000 turns are rendered (the older ones in idle time).
 */
import type { Turn } from '../src/core/protocol/chatProtocol';
import { assistantTurn, initMessage, launchChatHarness, userTurn } from '../test/webview/harness';
import type { ChatHarness } from '../test/webview/harness';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';

const RUNS = 3;
const CHARS_PER_DELTA = 64;
const DELTAS_PER_FRAME = 16;
/** A fast network: the host posts each 16 KiB read as one delta, one per frame. */
const BIG_DELTA = 16 * 1024;
const LONG_CHAT_TURNS = 1000;
/** The longest a main-thread task may take before the panel feels stuck (RAIL's "long task"). */
export const LONG_TASK_MS = 50;
/** Size of the reopened chat: 1,000 turns, about 2 MB of text. */
const LONG_CHAT_BYTES = 2 * 1024 * 1024;
export const TRACE_CATEGORIES = [
  'disabled-by-default-devtools.timeline',
  ...(process.env.GATEWAY_BENCH_TRACE_DETAIL ? ['disabled-by-default-v8.cpu_profiler'] : []),
];

// ---- Realistic content ---------------------------------------------------------------------

const CODE_SAMPLES = [
  [
    'ts',
    'export async function fetchUser(id: string): Promise<User> {',
    '  const response = await fetch(`/api/users/${id}`);',
    '  if (!response.ok) throw new Error(`HTTP ${response.status}`);',
    '  return (await response.json()) as User;',
    '}',
  ],
  [
    'python',
    'def moving_average(values, window=3):',
    '    """Average of each window of `window` values."""',
    '    return [sum(values[i:i + window]) / window',
    '            for i in range(len(values) - window + 1)]',
  ],
  [
    'bash',
    'set -euo pipefail',
    'for file in src/*.ts; do',
    '  echo "checking $file"',
    '  npx tsc --noEmit "$file"',
    'done',
  ],
  ['json', '{', '  "name": "example",', '  "version": "1.0.0",', '  "scripts": { "build": "tsc -p ." }', '}'],
];

function section(index: number): string {
  const [language, ...code] = CODE_SAMPLES[index % CODE_SAMPLES.length];
  const repeatedCode = Array.from({ length: 1 + (index % 3) }, () => code.join('\n')).join('\n\n');
  return [
    `## Step ${index + 1}: update the \`module${index}\` configuration`,
    '',
    `This step changes how **module ${index}** loads its settings. Read the [reference](https://example.com/docs/${index})`,
    'before you start, and keep a backup of the current file: the change is easy to undo, but only',
    `if you know what was there. It takes about ${(index % 7) + 2} minutes.`,
    '',
    '- open the settings file and find the `loader` entry',
    `- replace the value with \`"lazy"\` (it was \`"eager"\` until version ${index}.0)`,
    '- save, then reload the window',
    '',
    `\`\`\`${language}`,
    repeatedCode,
    '```',
    '',
    '| Option | Default | Meaning |',
    '|--------|:-------:|---------|',
    `| \`retries\` | ${index % 5} | attempts before giving up |`,
    '| `timeout` | 30 s | how long one attempt may take |',
    '',
    `> Note: step ${index + 1} is safe to repeat.`,
    '',
    '',
  ].join('\n');
}

export function realisticReply(length: number): string {
  let text = '';
  for (let index = 0; text.length < length; index++) text += section(index);
  return text.slice(0, length);
}

/** `turnCount` turns of about `totalChars` characters in all, most of it in the replies. */
function longConversation(turnCount: number, totalChars: number): Turn[] {
  const pairs = turnCount / 2;
  const replyChars = Math.round(totalChars / pairs) - 80;
  const turns: Turn[] = [];
  for (let index = 0; index < pairs; index++) {
    turns.push(
      userTurn(`How do I configure module ${index}? It fails with "loader not found".`, `u${index}`),
    );
    // Each reply starts at a different section, so the chat is not one text repeated.
    let reply = '';
    for (let part = index; reply.length < replyChars; part++) reply += section(part);
    turns.push({ ...assistantTurn(reply.slice(0, replyChars)), id: `a${index}` });
  }
  return turns;
}

function conversationChars(turns: Turn[]): number {
  return turns.reduce((sum, turn) => sum + turn.content.length, 0);
}

// ---- Trace reading -------------------------------------------------------------------------

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  /** Thread (CPU) time of the event, in µs. */
  tdur?: number;
  args?: { name?: string };
}

/**
 * Total and longest task time (ms) of the renderer's main thread in a Chromium trace, in thread
 * CPU time: on a busy machine, wall time would also count the moments the thread waited for a
 * core, which measures the machine rather than the page.
 */
export function mainThreadTasks(traceJson: Buffer): { totalMs: number; longestMs: number } {
  const parsed = JSON.parse(traceJson.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mainThreads = new Set(
    events
      .filter((event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  );
  // Tasks that run a DevTools command are the bench's own doing (it posts the host's messages
  // with page.evaluate, which parses and serializes them there); in VS Code that work happens in
  // the extension host and the workbench, not on the webview's thread. The message's delivery
  // (deserialization and our handler) is a task of its own and is counted.
  const harness = events.filter((event) => event.name === 'DevToolsSession::DispatchProtocolCommand');
  const isHarness = (task: TraceEvent) =>
    harness.some(
      (event) =>
        event.pid === task.pid &&
        event.tid === task.tid &&
        event.ts !== undefined &&
        task.ts !== undefined &&
        event.ts >= task.ts &&
        event.ts <= task.ts + (task.dur ?? 0),
    );
  const perThread = new Map<string, { totalMs: number; longestMs: number }>();
  for (const event of events) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.name !== 'RunTask' || event.ph !== 'X' || !mainThreads.has(thread)) continue;
    if (isHarness(event)) continue;
    const durationMs = (event.tdur ?? event.dur ?? 0) / 1000;
    const stats = perThread.get(thread) ?? { totalMs: 0, longestMs: 0 };
    stats.totalMs += durationMs;
    stats.longestMs = Math.max(stats.longestMs, durationMs);
    perThread.set(thread, stats);
  }
  if (process.env.GATEWAY_BENCH_TRACE_DETAIL) {
    printLongestTask(events, mainThreads, isHarness);
  }
  // The page's renderer is the busiest one (about:blank or spare renderers idle).
  return [...perThread.values()].sort((a, b) => b.totalMs - a.totalMs)[0] ?? { totalMs: 0, longestMs: 0 };
}

/** GATEWAY_BENCH_TRACE_DETAIL=1: what the longest main-thread task spent its time on (wall µs by event name). */
function printLongestTask(
  events: TraceEvent[],
  mainThreads: Set<string>,
  isHarness: (task: TraceEvent) => boolean,
): void {
  const tasks = events.filter(
    (e) => e.name === 'RunTask' && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`) && !isHarness(e),
  );
  const longest = tasks.sort((a, b) => (b.tdur ?? b.dur ?? 0) - (a.tdur ?? a.dur ?? 0))[0];
  if (!longest?.ts || !longest.dur) return;
  const end = longest.ts + longest.dur;
  const byName = new Map<string, number>();
  for (const e of events) {
    if (e.pid !== longest.pid || e.tid !== longest.tid || e.ph !== 'X' || e === longest) continue;
    if (e.ts === undefined || e.ts < longest.ts || e.ts > end) continue;
    byName.set(e.name, (byName.get(e.name) ?? 0) + (e.dur ?? 0));
  }
  const top = [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  console.error(
    `[bench] longest task ${((longest.tdur ?? longest.dur) / 1000).toFixed(1)} ms: ${top
      .map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`)
      .join(', ')}`,
  );
}

// ---- Measurements ---------------------------------------------------------------------------

interface StreamRun {
  mainThreadMs: number;
  longestTaskMs: number;
}

/** A fresh chat page with one prompt and an empty reply that is streaming, painted. */
async function openStreamingTurn(harness: ChatHarness) {
  const chat = await harness.openPage({ viewport: { width: 420, height: 800 } });
  try {
    await chat.waitForPosted('ready');
    await chat.send(initMessage([userTurn('Walk me through the configuration.')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    await chat.nextFrames();
    return { chat, turn };
  } catch (error) {
    await chat.close();
    throw error;
  }
}

async function streamOnce(harness: ChatHarness, text: string): Promise<StreamRun> {
  const { chat, turn } = await openStreamingTurn(harness);
  try {
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    await chat.streamText(turn.id, text, {
      charsPerDelta: CHARS_PER_DELTA,
      deltasPerFrame: DELTAS_PER_FRAME,
    });
    await chat.send({ type: 'turnUpdated', turn: { ...turn, content: text, status: 'complete' } });
    await chat.nextFrames();
    const { totalMs, longestMs } = mainThreadTasks(await harness.browser.stopTracing());
    const codeBlocks = await chat.page.locator(`[data-turn-id="${turn.id}"] .code-block`).count();
    if (codeBlocks === 0) throw new Error('the streamed reply did not render');
    return { mainThreadMs: totalMs, longestTaskMs: longestMs };
  } finally {
    await chat.close();
  }
}

/** What the page-side functions below touch (this file compiles without the DOM library). */
interface PagePoster {
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: { querySelector(selector: string): unknown };
}

interface BigChunkRun {
  /** Longest task while the chunks arrive. */
  streamingLongestMs: number;
  /** Longest task from the final `turnUpdated` until the reply is fully rendered and highlighted. */
  endLongestMs: number;
}

/**
 * The 200 KB reply in 16 KiB deltas, one per frame; then the end of the reply. Each phase has
 * its own trace, so a slow end is not hidden in the streaming figure and the other way round.
 */
async function streamBigChunksOnce(harness: ChatHarness, text: string): Promise<BigChunkRun> {
  const { chat, turn } = await openStreamingTurn(harness);
  try {
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    await chat.streamText(turn.id, text, { charsPerDelta: BIG_DELTA, deltasPerFrame: 1 });
    await chat.nextFrames(4);
    const streaming = mainThreadTasks(await harness.browser.stopTracing());

    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    await chat.page.evaluate(
      async ({ message, id }) => {
        const page = globalThis as unknown as PagePoster;
        const frame = (): Promise<void> =>
          new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
        page.postMessage(message, '*');
        // Rendered: no live (unfinished) tail, and no work left for later frames or idle time.
        const selector = `[data-turn-id="${id}"]`;
        for (;;) {
          await frame();
          if (
            page.document.querySelector(`${selector}:not(.is-streaming)`) &&
            !page.document.querySelector(`${selector} .md-live > *`) &&
            !page.document.querySelector(
              `${selector}[data-render-pending], ${selector} [data-highlight-pending]`,
            )
          )
            break;
        }
        await frame();
      },
      { message: { type: 'turnUpdated', turn: { ...turn, content: text, status: 'complete' } }, id: turn.id },
    );
    const ending = mainThreadTasks(await harness.browser.stopTracing());
    const codeBlocks = await chat.page.locator(`[data-turn-id="${turn.id}"] .code-block`).count();
    if (codeBlocks === 0) throw new Error('the streamed reply did not render');
    return { streamingLongestMs: streaming.longestMs, endLongestMs: ending.longestMs };
  } finally {
    await chat.close();
  }
}

interface OpenRun {
  newestPaintedMs: number;
  allRenderedMs: number;
  longestTaskMs: number;
}

/** What the page-side timing function touches (this file compiles without the DOM library). */
interface BenchPage {
  performance: { now(): number };
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: {
    querySelector(selector: string): unknown;
    querySelectorAll(selector: string): { length: number };
  };
}

async function openLongChatOnce(harness: ChatHarness, turns: Turn[]): Promise<OpenRun> {
  const chat = await harness.openPage({ viewport: { width: 420, height: 800 } });
  try {
    await chat.waitForPosted('ready');
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    const timings = await chat.page.evaluate(
      async ({ message, newestId, total }) => {
        const page = globalThis as unknown as BenchPage;
        const frame = (): Promise<void> =>
          new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
        const started = page.performance.now();
        page.postMessage(message, '*');
        while (!page.document.querySelector(`[data-turn-id="${newestId}"]`)) await frame();
        // The frame that showed it has been painted once the next one begins.
        await frame();
        const newestPaintedMs = page.performance.now() - started;
        while (page.document.querySelectorAll('.turn').length < total) await frame();
        return { newestPaintedMs, allRenderedMs: page.performance.now() - started };
      },
      { message: initMessage(turns), newestId: turns[turns.length - 1].id, total: turns.length },
    );
    const { longestMs } = mainThreadTasks(await harness.browser.stopTracing());
    return { ...timings, longestTaskMs: longestMs };
  } finally {
    await chat.close();
  }
}

/** A longest-task figure against the long-task limit. */
export function longTaskRow(name: string, longestMs: number): BenchRow {
  return {
    name,
    value: round(longestMs, 1),
    unit: 'ms',
    goal: `≤ ${LONG_TASK_MS} ms (no long task)`,
    ratio: round(longestMs / LONG_TASK_MS, 2),
    met: longestMs <= LONG_TASK_MS,
  };
}

export async function benchWebview(): Promise<SectionResult> {
  const harness = await launchChatHarness();
  try {
    const reply100 = realisticReply(100 * 1024);
    const reply200 = realisticReply(200 * 1024);
    const runs100: StreamRun[] = [];
    const runs200: StreamRun[] = [];
    // Alternating sizes spreads any drift in machine load over both.
    for (let run = 0; run < RUNS; run++) {
      runs100.push(await streamOnce(harness, reply100));
      runs200.push(await streamOnce(harness, reply200));
    }
    const cost100 = median(runs100.map((run) => run.mainThreadMs));
    const cost200 = median(runs200.map((run) => run.mainThreadMs));
    const longestStreaming = median(runs200.map((run) => run.longestTaskMs));
    const growth = cost200 / cost100;

    const bigChunkRuns: BigChunkRun[] = [];
    for (let run = 0; run < RUNS; run++) bigChunkRuns.push(await streamBigChunksOnce(harness, reply200));
    const longestBigChunks = median(bigChunkRuns.map((run) => run.streamingLongestMs));
    const longestEnd = median(bigChunkRuns.map((run) => run.endLongestMs));

    const turns = longConversation(LONG_CHAT_TURNS, LONG_CHAT_BYTES);
    const chatMB = conversationChars(turns) / (1024 * 1024);
    const opens: OpenRun[] = [];
    for (let run = 0; run < RUNS; run++) opens.push(await openLongChatOnce(harness, turns));
    const newestPainted = median(opens.map((run) => run.newestPaintedMs));
    const longestOpening = median(opens.map((run) => run.longestTaskMs));

    const rows: BenchRow[] = [
      { name: 'webview: stream 100 KB reply, main-thread time', value: round(cost100, 1), unit: 'ms' },
      {
        name: 'webview: stream 200 KB reply, main-thread time',
        value: round(cost200, 1),
        unit: 'ms',
        peer: '100 KB reply',
        ratio: round(growth, 2),
        goal: '≈ 2× (linear)',
        met: growth < 2.6,
      },
      longTaskRow('webview: longest main-thread task, streaming 200 KB (64-char deltas)', longestStreaming),
      longTaskRow('webview: longest main-thread task, streaming 200 KB in 16 KiB chunks', longestBigChunks),
      longTaskRow('webview: longest main-thread task, when that 200 KB reply ends', longestEnd),
      {
        name: `webview: reopen ${chatMB.toFixed(1)} MB 1,000-turn chat, newest turn painted`,
        value: round(newestPainted, 1),
        unit: 'ms',
        goal: '< 200 ms',
        ratio: round(newestPainted / 200, 2),
        met: newestPainted < 200,
      },
      {
        name: `webview: reopen ${chatMB.toFixed(1)} MB 1,000-turn chat, all turns rendered (idle)`,
        value: round(median(opens.map((run) => run.allRenderedMs)), 0),
        unit: 'ms',
      },
      longTaskRow(
        `webview: longest main-thread task, reopening the ${chatMB.toFixed(1)} MB chat`,
        longestOpening,
      ),
    ];
    return {
      rows,
      notes: [
        `webview: ${CHARS_PER_DELTA}-character deltas, ${DELTAS_PER_FRAME} per frame, or ${BIG_DELTA / 1024} KiB deltas, one per frame; median of ${RUNS} runs; main-thread CPU time of the tasks (RunTask on CrRendererMain) in a Chromium trace. Long-task ratios are against the ${LONG_TASK_MS} ms limit.`,
      ],
    };
  } finally {
    await harness.close();
  }
}
