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
 * Both streaming figures stand beside a peer measured in the same run: the same deltas, at the
 * same pace, appended as plain text to a `<pre>` in a bare page (what a webview that renders no
 * Markdown pays). One frame (16 ms) is the goal for the longest task while a reply streams.
 *
 * Opening: a 1,000-turn, 2 MB conversation (every fifth reply an agent's, with tool cards) is
 * posted as one `init`; the page measures, with `performance.now()`, the time until the newest
 * turn is in the DOM and a frame has been painted. Then the view is scrolled to the top and back
 * to the bottom, a screen a frame, and the renderer's heap (after a full GC) and DOM nodes
 * are read before and after: only turns near the viewport are rendered, so they should not grow.
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
/** One frame at 60 Hz: the longest a task may take while a reply streams. */
export const FRAME_TASK_MS = 16;
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
    // Every fifth reply is an agent's: a step with two finished tool cards before the answer.
    const steps =
      index % 5 === 0
        ? [
            {
              content: 'Reading the configuration first.',
              calls: [0, 1].map((call) => ({
                id: `call${index}-${call}`,
                name: call === 0 ? 'readFile' : 'searchText',
                arguments: JSON.stringify({ path: `src/module${index}/config.ts`, query: 'loader' }),
                state: 'done' as const,
                source: 'Gateway',
                result: `export const loader = "eager"; // module ${index}`,
              })),
            },
          ]
        : undefined;
    turns.push({ ...assistantTurn(reply.slice(0, replyChars), { steps }), id: `a${index}` });
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
 * Thread time (ms) of every main-thread task, bounded by wall time at every level of the task's
 * nested events: a thread cannot run longer than an event lasted, yet this machine's per-thread
 * clock now and then jumps by 10 to 15 ms inside an event (a 1.5 ms message task was seen with
 * 15.2 ms of thread time, a forced layout of 8.1 ms with 19.1 ms), which would count as a long
 * task. An event's time is its own thread time outside its children plus its children's
 * bounded times, and at most its wall time.
 */
function boundedTaskTimes(events: TraceEvent[], mainThreads: Set<string>): Map<TraceEvent, number> {
  const byThread = new Map<string, TraceEvent[]>();
  for (const event of events) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.ph !== 'X' || event.ts === undefined || event.dur === undefined || !mainThreads.has(thread))
      continue;
    const list = byThread.get(thread) ?? [];
    list.push(event);
    byThread.set(thread, list);
  }
  const bounded = new Map<TraceEvent, number>();
  for (const threadEvents of byThread.values()) {
    // Parents before their children: by start, then the longer first.
    threadEvents.sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || (b.dur ?? 0) - (a.dur ?? 0));
    const parent = new Map<TraceEvent, TraceEvent>();
    const stack: TraceEvent[] = [];
    const end = (event: TraceEvent) => (event.ts ?? 0) + (event.dur ?? 0);
    for (const event of threadEvents) {
      while (stack.length > 0 && end(event) > end(stack[stack.length - 1]) + 1) stack.pop();
      const top = stack[stack.length - 1];
      if (top) parent.set(event, top);
      stack.push(event);
    }
    // Children before their parents; `excess` is what the children's clocks over-counted.
    const excess = new Map<TraceEvent, number>();
    for (let index = threadEvents.length - 1; index >= 0; index--) {
      const event = threadEvents[index];
      const thread = event.tdur ?? event.dur ?? 0;
      const time = Math.max(0, Math.min(event.dur ?? 0, thread - (excess.get(event) ?? 0)));
      bounded.set(event, time);
      const up = parent.get(event);
      if (up) excess.set(up, (excess.get(up) ?? 0) + thread - time);
    }
  }
  return bounded;
}

/**
 * Total and longest task time (ms) of the renderer's main thread in a Chromium trace, in thread
 * CPU time: on a busy machine, wall time would also count the moments the thread waited for a
 * core, which measures the machine rather than the page.
 */
export function mainThreadTasks(traceJson: Buffer): {
  totalMs: number;
  longestMs: number;
  overFrame: number;
} {
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
  const bounded = boundedTaskTimes(events, mainThreads);
  const taskMs = (task: TraceEvent) => (bounded.get(task) ?? 0) / 1000;
  const perThread = new Map<string, { totalMs: number; longestMs: number; overFrame: number }>();
  for (const event of events) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.name !== 'RunTask' || event.ph !== 'X' || !mainThreads.has(thread)) continue;
    if (isHarness(event)) continue;
    const durationMs = taskMs(event);
    const stats = perThread.get(thread) ?? { totalMs: 0, longestMs: 0, overFrame: 0 };
    stats.totalMs += durationMs;
    stats.longestMs = Math.max(stats.longestMs, durationMs);
    if (durationMs > FRAME_TASK_MS) stats.overFrame++;
    perThread.set(thread, stats);
  }
  if (process.env.GATEWAY_BENCH_TRACE_DETAIL) {
    printLongestTask(events, mainThreads, isHarness, taskMs);
  }
  // The page's renderer is the busiest one (about:blank or spare renderers idle).
  return (
    [...perThread.values()].sort((a, b) => b.totalMs - a.totalMs)[0] ?? {
      totalMs: 0,
      longestMs: 0,
      overFrame: 0,
    }
  );
}

/** GATEWAY_BENCH_TRACE_DETAIL=1: what the longest main-thread task spent its time on (wall µs by event name). */
function printLongestTask(
  events: TraceEvent[],
  mainThreads: Set<string>,
  isHarness: (task: TraceEvent) => boolean,
  taskMs: (task: TraceEvent) => number,
): void {
  const tasks = events.filter(
    (e) => e.name === 'RunTask' && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`) && !isHarness(e),
  );
  const longest = tasks.sort((a, b) => taskMs(b) - taskMs(a))[0];
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
    `[bench] longest task ${taskMs(longest).toFixed(1)} ms: ${top
      .map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`)
      .join(', ')}`,
  );
}

// ---- Measurements ---------------------------------------------------------------------------

interface StreamRun {
  mainThreadMs: number;
  longestTaskMs: number;
  /** Tasks longer than one frame. */
  overFrame: number;
}

/** A fresh chat page with one prompt and an empty reply that is streaming, painted. */
export async function openStreamingTurn(harness: ChatHarness) {
  const chat = await harness.openPage({ viewport: { width: 420, height: 800 } });
  try {
    await chat.waitForPosted('ready');
    // A reply comes after the user typed a prompt: the panel has warmed up its renderer by then.
    await chat.page.waitForSelector('body[data-renderer-ready]', { state: 'attached' });
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
    const { totalMs, longestMs, overFrame } = mainThreadTasks(await harness.browser.stopTracing());
    const codeBlocks = await chat.page.locator(`[data-turn-id="${turn.id}"] .code-block`).count();
    if (codeBlocks === 0) throw new Error('the streamed reply did not render');
    return { mainThreadMs: totalMs, longestTaskMs: longestMs, overFrame };
  } finally {
    await chat.close();
  }
}

/**
 * The peer: a bare page that appends what arrived in each frame as a new block of plain text (no
 * Markdown, no highlighting), fed the same deltas at the same pace. Its longest task is what
 * any webview pays for the text itself on this machine, in this run.
 */
const PLAIN_TEXT_PAGE = `<!doctype html><html><body style="margin:0;font:13px sans-serif">
<div id="log" style="position:absolute;inset:0;overflow-y:auto;padding:8px 12px"></div>
<script>
const log = document.getElementById('log');
let pending = '';
let requested = false;
addEventListener('message', (event) => {
  if (event.data.type !== 'turnDelta') return;
  pending += event.data.content;
  if (requested) return;
  requested = true;
  requestAnimationFrame(() => {
    requested = false;
    const block = document.createElement('div');
    block.style.whiteSpace = 'pre-wrap';
    block.textContent = pending;
    log.append(block);
    pending = '';
    log.scrollTop = log.scrollHeight;
  });
});
</script></body></html>`;

async function streamPlainTextOnce(
  harness: ChatHarness,
  text: string,
  charsPerDelta: number,
  deltasPerFrame: number,
): Promise<StreamRun> {
  const context = await harness.browser.newContext({ viewport: { width: 420, height: 800 } });
  try {
    const page = await context.newPage();
    await page.setContent(PLAIN_TEXT_PAGE);
    await harness.browser.startTracing(page, { categories: TRACE_CATEGORIES });
    await page.evaluate(
      async ({ body, size, perFrame }) => {
        const globals = globalThis as unknown as PagePoster;
        const frame = (): Promise<void> =>
          new Promise((resolve) => globals.requestAnimationFrame(() => resolve()));
        let sentInFrame = 0;
        for (let offset = 0; offset < body.length; offset += size) {
          globals.postMessage(
            { type: 'turnDelta', id: 'peer', content: body.slice(offset, offset + size) },
            '*',
          );
          if (++sentInFrame >= perFrame) {
            sentInFrame = 0;
            await frame();
          }
        }
        await frame();
        await frame();
      },
      { body: text, size: charsPerDelta, perFrame: deltasPerFrame },
    );
    const { totalMs, longestMs, overFrame } = mainThreadTasks(await harness.browser.stopTracing());
    return { mainThreadMs: totalMs, longestTaskMs: longestMs, overFrame };
  } finally {
    await context.close();
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
            !page.document.querySelector(`${selector}[data-render-pending], ${selector} .hl-pending`)
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
  longestTaskMs: number;
  /** Renderer JS heap after a full GC (MB) and DOM nodes: just opened, and after scrolling end to end. */
  openedHeapMB: number;
  scrolledHeapMB: number;
  openedNodes: number;
  scrolledNodes: number;
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

/** The transcript's scroller, as the scrolling function below touches it. */
interface ScrollBox {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  dispatchEvent(event: unknown): boolean;
  getAttribute(name: string): string | null;
}

async function openLongChatOnce(harness: ChatHarness, turns: Turn[]): Promise<OpenRun> {
  const chat = await harness.openPage({ viewport: { width: 420, height: 800 } });
  try {
    await chat.waitForPosted('ready');
    const cdp = await chat.page.context().newCDPSession(chat.page);
    const memory = async (): Promise<{ heapMB: number; nodes: number }> => {
      await cdp.send('HeapProfiler.collectGarbage');
      const heap = await cdp.send('Runtime.getHeapUsage');
      const counters = await cdp.send('Memory.getDOMCounters');
      return { heapMB: heap.usedSize / (1024 * 1024), nodes: counters.nodes };
    };
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    const timings = await chat.page.evaluate(
      async ({ message, newestId }) => {
        const page = globalThis as unknown as BenchPage;
        const frame = (): Promise<void> =>
          new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
        const started = page.performance.now();
        page.postMessage(message, '*');
        while (!page.document.querySelector(`[data-turn-id="${newestId}"]`)) await frame();
        // The frame that showed it has been painted once the next one begins.
        await frame();
        const newestPaintedMs = page.performance.now() - started;
        while (page.document.querySelector('.transcript[aria-busy="true"]')) await frame();
        return { newestPaintedMs };
      },
      { message: initMessage(turns), newestId: turns[turns.length - 1].id },
    );
    const { longestMs } = mainThreadTasks(await harness.browser.stopTracing());
    const opened = await memory();

    await chat.page.evaluate(async () => {
      const page = globalThis as unknown as BenchPage & { WheelEvent: new (type: string) => unknown };
      const frame = (): Promise<void> =>
        new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
      const box = page.document.querySelector('.transcript') as ScrollBox;
      // A wheel event first, so the view counts the scroll as the user's and stops following.
      const scrollBy = (screens: number) => {
        box.dispatchEvent(new page.WheelEvent('wheel'));
        box.scrollTop += screens * box.clientHeight;
      };
      const settle = async () => {
        while (box.getAttribute('aria-busy') === 'true') await frame();
      };
      while (box.scrollTop > 0) {
        scrollBy(-1);
        await frame();
      }
      await settle();
      while (box.scrollTop + box.clientHeight < box.scrollHeight - 1) {
        scrollBy(1);
        await frame();
      }
      await settle();
    });
    const scrolled = await memory();
    return {
      ...timings,
      longestTaskMs: longestMs,
      openedHeapMB: opened.heapMB,
      scrolledHeapMB: scrolled.heapMB,
      openedNodes: opened.nodes,
      scrolledNodes: scrolled.nodes,
    };
  } finally {
    await chat.close();
  }
}

/** A longest-task figure while a reply streams: one frame, beside the plain-text peer if any. */
export function frameTaskRow(name: string, longestMs: number, peerMs?: number): BenchRow {
  return {
    name,
    value: round(longestMs, 1),
    unit: 'ms',
    ...(peerMs === undefined ? {} : { peer: `plain text ${round(peerMs, 1)} ms` }),
    goal: `≤ ${FRAME_TASK_MS} ms (one frame)`,
    ratio: round(longestMs / FRAME_TASK_MS, 2),
    met: longestMs <= FRAME_TASK_MS,
  };
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
    const plainRuns: StreamRun[] = [];
    // Alternating sizes (and the peer) spreads any drift in machine load over all of them.
    for (let run = 0; run < RUNS; run++) {
      runs100.push(await streamOnce(harness, reply100));
      runs200.push(await streamOnce(harness, reply200));
      plainRuns.push(await streamPlainTextOnce(harness, reply200, CHARS_PER_DELTA, DELTAS_PER_FRAME));
    }
    const longestPlain = median(plainRuns.map((run) => run.longestTaskMs));
    const cost100 = median(runs100.map((run) => run.mainThreadMs));
    const cost200 = median(runs200.map((run) => run.mainThreadMs));
    const longestStreaming = median(runs200.map((run) => run.longestTaskMs));
    const overFrameStreaming = median(runs200.map((run) => run.overFrame));
    const overFramePlain = median(plainRuns.map((run) => run.overFrame));
    const growth = cost200 / cost100;

    const bigChunkRuns: BigChunkRun[] = [];
    const plainChunkRuns: StreamRun[] = [];
    for (let run = 0; run < RUNS; run++) {
      bigChunkRuns.push(await streamBigChunksOnce(harness, reply200));
      plainChunkRuns.push(await streamPlainTextOnce(harness, reply200, BIG_DELTA, 1));
    }
    const longestPlainChunks = median(plainChunkRuns.map((run) => run.longestTaskMs));
    const longestBigChunks = median(bigChunkRuns.map((run) => run.streamingLongestMs));
    const longestEnd = median(bigChunkRuns.map((run) => run.endLongestMs));

    const turns = longConversation(LONG_CHAT_TURNS, LONG_CHAT_BYTES);
    const chatMB = conversationChars(turns) / (1024 * 1024);
    const opens: OpenRun[] = [];
    for (let run = 0; run < RUNS; run++) opens.push(await openLongChatOnce(harness, turns));
    const newestPainted = median(opens.map((run) => run.newestPaintedMs));
    const longestOpening = median(opens.map((run) => run.longestTaskMs));
    const openedHeap = median(opens.map((run) => run.openedHeapMB));
    const scrolledHeap = median(opens.map((run) => run.scrolledHeapMB));
    const openedNodes = median(opens.map((run) => run.openedNodes));
    const scrolledNodes = median(opens.map((run) => run.scrolledNodes));

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
      frameTaskRow(
        'webview: longest main-thread task, streaming 200 KB (64-char deltas)',
        longestStreaming,
        longestPlain,
      ),
      {
        name: 'webview: main-thread tasks over one frame, streaming 200 KB (64-char deltas)',
        value: overFrameStreaming,
        unit: 'tasks',
        peer: `plain text ${overFramePlain}`,
      },
      frameTaskRow(
        'webview: longest main-thread task, streaming 200 KB in 16 KiB chunks',
        longestBigChunks,
        longestPlainChunks,
      ),
      longTaskRow('webview: longest main-thread task, when that 200 KB reply ends', longestEnd),
      {
        name: `webview: reopen ${chatMB.toFixed(1)} MB 1,000-turn chat with tool cards, newest turn painted`,
        value: round(newestPainted, 1),
        unit: 'ms',
        goal: '< 200 ms',
        ratio: round(newestPainted / 200, 2),
        met: newestPainted < 200,
      },
      longTaskRow(
        `webview: longest main-thread task, reopening the ${chatMB.toFixed(1)} MB chat`,
        longestOpening,
      ),
      {
        name: 'webview: heap after scrolling that chat end to end (after GC)',
        value: round(scrolledHeap, 1),
        unit: 'MB',
        peer: `just opened ${round(openedHeap, 1)} MB`,
        goal: '≤ 1.5× just opened (bounded)',
        ratio: round(scrolledHeap / openedHeap, 2),
        met: scrolledHeap <= 1.5 * openedHeap,
      },
      {
        name: 'webview: DOM nodes after scrolling that chat end to end',
        value: Math.round(scrolledNodes),
        unit: 'nodes',
        peer: `just opened ${Math.round(openedNodes)}`,
        goal: '≤ 1.5× just opened (bounded)',
        ratio: round(scrolledNodes / openedNodes, 2),
        met: scrolledNodes <= 1.5 * openedNodes,
      },
    ];
    return {
      rows,
      notes: [
        `webview: ${CHARS_PER_DELTA}-character deltas, ${DELTAS_PER_FRAME} per frame, or ${BIG_DELTA / 1024} KiB deltas, one per frame; median of ${RUNS} runs; main-thread CPU time of the tasks (RunTask on CrRendererMain) in a Chromium trace. Streaming long-task ratios are against one frame (${FRAME_TASK_MS} ms), beside the same deltas appended as plain text to a bare page in the same run; the other long-task ratios are against the ${LONG_TASK_MS} ms limit. The 1,000-turn chat is scrolled to the top and back a screen a frame; heap is the renderer's V8 heap after a forced GC.`,
      ],
    };
  } finally {
    await harness.close();
  }
}
