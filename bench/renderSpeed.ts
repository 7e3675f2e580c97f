/**
 * How fast a long reply appears, beside the same bytes as plain text in a bare webview, measured
 * in the same run (headless Chromium through the test harness: the real bundle, page and CSP).
 * Both pages are fed and timed by the same page-side code (test/webview/replyTiming.ts):
 * - first content: the first delta's text is on screen, from the moment it was posted;
 * - fully rendered: the reply's last line is on screen with nothing left to render and every
 *   code block coloured, from the first delta.
 * The chat's longest main-thread task while that happens comes from a Chromium trace (thread
 * CPU time, as in the webview section).
 */
import type { ChatHarness } from '../test/webview/harness';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';
import {
  frameTaskRow,
  mainThreadTasks,
  openStreamingTurn,
  realisticReply,
  TRACE_CATEGORIES,
} from './webview';
import { launchChatHarness } from '../test/webview/harness';
import { BARE_PAGE, DELTA_CHARS, deltasOf, LAST_LINE, postAndWatch } from '../test/webview/replyTiming';

const RUNS = 3;

export interface AppearRun {
  /** From the first delta posted until the frame showing its text had been painted. */
  firstContentMs: number;
  /** From the first delta posted until the frame showing the last line had been painted. */
  fullMs: number;
  longestTaskMs: number;
  /** Main-thread CPU time while it happened. */
  mainThreadMs: number;
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

/** A time whose goal is at most `times` × a peer's, measured in the same run. */
function timesRow(
  name: string,
  valueMs: number,
  { peer, peerMs, times, why = '' }: { peer: string; peerMs: number; times: number; why?: string },
): BenchRow {
  return {
    name,
    value: round(valueMs, 1),
    unit: 'ms',
    peer: `${peer} ${round(peerMs, 1)} ms`,
    goal: `≤ ${times}× ${peer.split(',')[0]}${why}`,
    ratio: round(valueMs / peerMs, 2),
    met: valueMs <= times * peerMs,
  };
}

export async function benchRenderSpeed(): Promise<SectionResult> {
  const harness = await launchChatHarness();
  try {
    const reply200 = replyEndingInLastLine(200 * 1024);
    const reply1M = replyEndingInLastLine(1024 * 1024);
    const chat200: AppearRun[] = [];
    const bare200: AppearRun[] = [];
    const chat1M: AppearRun[] = [];
    // A first pair to warm up the browser (its first page is slow to start), not counted.
    await appearBare(harness, reply200);
    await appearChat(harness, reply200);
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
    const bareLongest = median(bare200.map((run) => run.longestTaskMs));
    const rows: BenchRow[] = [
      timesRow('webview: 200 KB Markdown reply at full speed, fully rendered', full200, {
        peer: 'plain text, bare page',
        peerMs: fullBare,
        times: 2,
      }),
      frameTaskRow('webview: longest main-thread task, that 200 KB reply', longest200, bareLongest),
      timesRow('webview: 1 MB Markdown reply at full speed, fully rendered', full1M, {
        peer: '200 KB reply',
        peerMs: full200,
        times: 5.5,
        why: ' (linear)',
      }),
      frameTaskRow('webview: longest main-thread task, that 1 MB reply', longest1M),
      timesRow('webview: first content of that 200 KB reply, to the next frame', first, {
        peer: 'plain text, bare page',
        peerMs: firstBare,
        times: 1.1,
      }),
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
