/**
 * How fast a long reply appears, beside the same bytes as plain text in a bare webview, measured
 * in the same run (headless Chromium through the test harness: the real bundle, page and CSP).
 *
 * The bytes arrive as a fast host delivers them: one 16 KiB delta (a network read posted whole)
 * per animation frame, and for the chat the final `turnUpdated` right after the last delta. The
 * bare page appends each delta as it comes (what an extension that shows plain text pays).
 * Each page is watched the same way: in every frame, at its start (requestAnimationFrame) and
 * after its layout (a ResizeObserver on the text's box), and a state counts once the frame that
 * showed it has been painted, that is at the next frame's start:
 * - first content: the first delta's text is on screen, from the moment it was posted;
 * - fully rendered: the reply's last line is on screen with nothing left to render, from the
 *   first delta.
 * The chat's longest main-thread task while that happens comes from a Chromium trace (thread
 * CPU time, as in the webview section).
 */
import type { ChatHarness } from '../test/webview/harness';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';
import {
  FRAME_TASK_MS,
  mainThreadTasks,
  openStreamingTurn,
  realisticReply,
  TRACE_CATEGORIES,
} from './webview';
import { launchChatHarness } from '../test/webview/harness';

const RUNS = 3;
const DELTA_CHARS = 16 * 1024;
/** The last line of every reply: its appearance is what "fully rendered" waits for. */
const LAST_LINE = 'The end of this reply.';

export interface AppearRun {
  /** From the first delta posted until the frame showing its text had been painted. */
  firstContentMs: number;
  /** From the first delta posted until the frame showing the last line had been painted. */
  fullMs: number;
  longestTaskMs: number;
  /** Main-thread CPU time while it happened. */
  mainThreadMs: number;
}

/** What the page-side function touches (this file compiles without the DOM library). */
interface WatchPage {
  performance: { now(): number };
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: { querySelector(selector: string): WatchElement | null };
  ResizeObserver: new (callback: () => void) => { observe(element: unknown): void; disconnect(): void };
}
interface WatchElement {
  textContent: string | null;
  lastElementChild: WatchElement | null;
  lastChild: WatchElement | null;
  previousSibling: WatchElement | null;
  querySelector(selector: string): WatchElement | null;
  hasAttribute(name: string): boolean;
  childNodes: { length: number };
}

interface WatchArgs {
  deltas: string[];
  /** Posted right after the last delta (the chat's end of reply), if any. */
  final?: unknown;
  id: string;
  /** 'chat' reads the chat's reply; 'bare' the bare page's log. */
  kind: 'chat' | 'bare';
  lastLine: string;
}

/**
 * Runs in the page: posts the deltas one per frame and times first content and the last line.
 * (A function of its own, so both pages are driven and watched by exactly the same code.)
 */
async function postAndWatch(args: WatchArgs): Promise<{ firstContentMs: number; fullMs: number }> {
  const page = globalThis as unknown as WatchPage;
  const frame = (): Promise<void> => new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
  const box =
    args.kind === 'chat'
      ? page.document.querySelector(`[data-turn-id="${args.id}"] .reply`)
      : page.document.querySelector('#log');
  if (!box) throw new Error('nothing to watch');
  const hasContent = (): boolean => (box.textContent ?? '').length > 0 || box.childNodes.length > 0;
  /** The text at the end of what is shown: the live block, else the last stable block. */
  const lastText = (): string => {
    if (args.kind === 'bare') {
      const last = box.lastChild;
      return `${last?.previousSibling?.textContent ?? ''}${last?.textContent ?? ''}`;
    }
    const live = box.querySelector('.md-live');
    if (live?.lastElementChild) return live.textContent ?? '';
    const stable = box.querySelector('.md-stable');
    return stable?.lastElementChild?.lastElementChild?.textContent ?? '';
  };
  const turn = args.kind === 'chat' ? page.document.querySelector(`[data-turn-id="${args.id}"]`) : null;
  const isFull = (): boolean =>
    lastText().trimEnd().endsWith(args.lastLine) && !(turn?.hasAttribute('data-render-pending') ?? false);

  let started = 0;
  let firstShown = false;
  let fullShown = false;
  let firstContentMs = NaN;
  let fullMs = NaN;
  const check = (): void => {
    if (!firstShown && hasContent()) firstShown = true;
    if (!fullShown && isFull()) fullShown = true;
  };
  // After layout in each frame: a state first seen here is painted in this frame.
  const observer = new page.ResizeObserver(check);
  observer.observe(box);
  await frame();
  started = page.performance.now();
  let next = 0;
  while (Number.isNaN(fullMs)) {
    if (next < args.deltas.length) {
      page.postMessage({ type: 'turnDelta', id: args.id, content: args.deltas[next] }, '*');
      next++;
      if (next === args.deltas.length && args.final) page.postMessage(args.final, '*');
    }
    // Seen at a frame's start (or after the last one's layout): painted by the time of the next.
    const firstBefore = firstShown;
    const fullBefore = fullShown;
    await frame();
    const now = page.performance.now();
    if (firstBefore && Number.isNaN(firstContentMs)) firstContentMs = now - started;
    if (fullBefore) fullMs = now - started;
    check();
    if (now - started > 120_000) throw new Error('the reply did not finish rendering in 2 minutes');
  }
  observer.disconnect();
  return { firstContentMs, fullMs };
}

/** A bare page that appends each delta's text as it arrives, and nothing else. */
const BARE_PAGE = `<!doctype html><html><body style="margin:0;font:13px sans-serif">
<div style="position:absolute;inset:0;overflow-y:auto;padding:8px 12px"><div id="log" style="white-space:pre-wrap"></div></div>
<script>
const log = document.getElementById('log');
addEventListener('message', (event) => {
  if (event.data.type !== 'turnDelta') return;
  log.append(event.data.content);
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
});
</script></body></html>`;

function deltasOf(text: string): string[] {
  const deltas: string[] = [];
  for (let offset = 0; offset < text.length; offset += DELTA_CHARS)
    deltas.push(text.slice(offset, offset + DELTA_CHARS));
  return deltas;
}

/** `size` characters of realistic Markdown ending in LAST_LINE. */
export function replyEndingInLastLine(size: number): string {
  const ending = `\n\n${LAST_LINE}\n`;
  return realisticReply(size - ending.length) + ending;
}

export async function appearChat(harness: ChatHarness, text: string): Promise<AppearRun> {
  const { chat, turn } = await openStreamingTurn(harness);
  try {
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    const timing = await chat.page.evaluate(postAndWatch, {
      deltas: deltasOf(text),
      final: { type: 'turnUpdated', turn: { ...turn, content: text, status: 'complete' } },
      id: turn.id,
      kind: 'chat' as const,
      lastLine: LAST_LINE,
    });
    const { longestMs, totalMs } = mainThreadTasks(await harness.browser.stopTracing());
    if (chat.errors().length > 0) throw new Error(chat.errors().join('\n'));
    return { ...timing, longestTaskMs: longestMs, mainThreadMs: totalMs };
  } finally {
    await chat.close();
  }
}

export async function appearBare(harness: ChatHarness, text: string): Promise<AppearRun> {
  const context = await harness.browser.newContext({ viewport: { width: 420, height: 800 } });
  try {
    const page = await context.newPage();
    await page.setContent(BARE_PAGE);
    await harness.browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const timing = await page.evaluate(postAndWatch, {
      deltas: deltasOf(text),
      id: 'bare',
      kind: 'bare' as const,
      lastLine: LAST_LINE,
    });
    const { longestMs, totalMs } = mainThreadTasks(await harness.browser.stopTracing());
    return { ...timing, longestTaskMs: longestMs, mainThreadMs: totalMs };
  } finally {
    await context.close();
  }
}

export async function benchRenderSpeed(): Promise<SectionResult> {
  const harness = await launchChatHarness();
  try {
    const reply200 = replyEndingInLastLine(200 * 1024);
    const reply1M = replyEndingInLastLine(1024 * 1024);
    const chat200: AppearRun[] = [];
    const bare200: AppearRun[] = [];
    const chat1M: AppearRun[] = [];
    // Interleaved, so a change in the machine's load falls on all three alike.
    for (let run = 0; run < RUNS; run++) {
      bare200.push(await appearBare(harness, reply200));
      chat200.push(await appearChat(harness, reply200));
      chat1M.push(await appearChat(harness, reply1M));
    }
    const full200 = median(chat200.map((run) => run.fullMs));
    const fullBare = median(bare200.map((run) => run.fullMs));
    const full1M = median(chat1M.map((run) => run.fullMs));
    const longest200 = median(chat200.map((run) => run.longestTaskMs));
    const longest1M = median(chat1M.map((run) => run.longestTaskMs));
    const first = median(chat200.map((run) => run.firstContentMs));
    const firstBare = median(bare200.map((run) => run.firstContentMs));
    const rows: BenchRow[] = [
      {
        name: 'webview: 200 KB Markdown reply at full speed, fully rendered',
        value: round(full200, 1),
        unit: 'ms',
        peer: `plain text, bare page ${round(fullBare, 1)} ms`,
        goal: '≤ 2× plain text',
        ratio: round(full200 / fullBare, 2),
        met: full200 <= 2 * fullBare,
      },
      {
        name: 'webview: longest main-thread task, that 200 KB reply',
        value: round(longest200, 1),
        unit: 'ms',
        peer: `plain text ${round(median(bare200.map((run) => run.longestTaskMs)), 1)} ms`,
        goal: `≤ ${FRAME_TASK_MS} ms (one frame)`,
        ratio: round(longest200 / FRAME_TASK_MS, 2),
        met: longest200 <= FRAME_TASK_MS,
      },
      {
        name: 'webview: 1 MB Markdown reply at full speed, fully rendered',
        value: round(full1M, 1),
        unit: 'ms',
        peer: `200 KB reply ${round(full200, 1)} ms`,
        goal: '≤ 5.5× 200 KB (linear)',
        ratio: round(full1M / full200, 2),
        met: full1M <= 5.5 * full200,
      },
      {
        name: 'webview: longest main-thread task, that 1 MB reply',
        value: round(longest1M, 1),
        unit: 'ms',
        goal: `≤ ${FRAME_TASK_MS} ms (one frame)`,
        ratio: round(longest1M / FRAME_TASK_MS, 2),
        met: longest1M <= FRAME_TASK_MS,
      },
      {
        name: 'webview: first content of that 200 KB reply, to the next frame',
        value: round(first, 1),
        unit: 'ms',
        peer: `plain text, bare page ${round(firstBare, 1)} ms`,
        goal: '≤ 1.1× plain text',
        ratio: round(first / firstBare, 2),
        met: first <= 1.1 * firstBare,
      },
    ];
    return {
      rows,
      notes: [
        `renderSpeed: ${DELTA_CHARS / 1024} KiB deltas, one per frame (the chat also gets the final turnUpdated after the last), beside a bare page that appends each delta as plain text, in the same run; median of ${RUNS} interleaved runs. A state counts from the first delta's post until the frame after the one that showed it (painted). Longest task: main-thread CPU time in a Chromium trace.`,
        `renderSpeed: runs (chat 200 KB / bare 200 KB / chat 1 MB, full ms): ${chat200.map((run) => round(run.fullMs, 0)).join(', ')} / ${bare200.map((run) => round(run.fullMs, 0)).join(', ')} / ${chat1M.map((run) => round(run.fullMs, 0)).join(', ')}`,
      ],
    };
  } finally {
    await harness.close();
  }
}
