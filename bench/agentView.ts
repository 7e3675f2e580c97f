/**
 * Rendering an agent turn in the chat webview: a 50-step turn, each step's text streamed as the
 * host streams it, then the step ending (`turnUpdated` with the whole turn, its steps so far and
 * their results), then an `agentStep` per state change of each of its two calls (a read that
 * runs and ends; every fifth step an edit that first waits for approval), and the final answer.
 * The peer is the same page rendering a turn without tools carrying the same text (every step's
 * text and the answer, streamed the same way), measured in the same run.
 *
 * The figure is the renderer main thread's longest task in a Chromium trace (thread CPU time),
 * against the 50 ms that makes a task "long". Messages are built and posted inside the page
 * (`postMessage`, which also serializes them on that thread: a little more than VS Code's
 * delivery costs the webview), paced by animation frames as the host paces them.
 */
import type { AgentStep, ToolCallRecord } from '../src/core/agent/types';
import { assistantTurn, initMessage, launchChatHarness, userTurn } from '../test/webview/harness';
import type { ChatHarness } from '../test/webview/harness';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';
import { LONG_TASK_MS, longTaskRow, mainThreadTasks, realisticReply, TRACE_CATEGORIES } from './webview';

const RUNS = 3;
const STEPS = 50;
const STEP_TEXT_CHARS = 700;
const ANSWER_CHARS = 3000;
/** A file read's result as the card keeps it (the card's cap is 8,000 characters). */
const RESULT_CHARS = 4000;
const CHARS_PER_DELTA = 64;
const DELTAS_PER_FRAME = 16;

/** One thing the page does, in order; `frame` waits for the next animation frame. */
type Op =
  | { op: 'stream'; text: string }
  | { op: 'stepEnded'; step: AgentStep }
  | { op: 'call'; index: number; call: ToolCallRecord }
  | { op: 'complete'; content: string }
  | { op: 'frame' };

function fileResult(step: number): string {
  const lines: string[] = [];
  for (let line = 1; lines.join('\n').length < RESULT_CHARS; line++)
    lines.push(
      `${String(line).padStart(4)}  export function handler${step}_${line}(input: Input): Output { return transform(input, ${line}); }`,
    );
  return lines.join('\n').slice(0, RESULT_CHARS);
}

function diffFor(step: number): string {
  const body = Array.from({ length: 30 }, (_, line) =>
    line % 3 === 0
      ? `-  const old${line} = load(${step});\n+  const next${line} = loadLazily(${step});`
      : `   keep(${line});`,
  );
  return [`--- a/src/module${step}.ts`, `+++ b/src/module${step}.ts`, `@@ -1,40 +1,40 @@`, ...body].join(
    '\n',
  );
}

/** What the host sends for a 50-step turn, and the text of its steps and answer. */
function agentScript(): { ops: Op[]; text: string } {
  const ops: Op[] = [];
  const texts: string[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let index = 0; index < STEPS; index++) {
    const content = realisticReply(STEP_TEXT_CHARS + index * 37).slice(index * 37);
    texts.push(content);
    ops.push({ op: 'stream', text: content });
    const read: ToolCallRecord = {
      id: `read-${index}`,
      name: 'readFile',
      arguments: JSON.stringify({ path: `src/module${index}.ts`, startLine: 1, endLine: 120 }),
      state: 'running',
      source: 'Gateway',
      startedAt: start + index * 1000,
    };
    const calls: ToolCallRecord[] = [read];
    const edits = index % 5 === 4;
    const edit: ToolCallRecord = {
      id: `edit-${index}`,
      name: 'editFile',
      arguments: JSON.stringify({ path: `src/module${index}.ts`, search: 'load(', replace: 'loadLazily(' }),
      state: 'awaitingApproval',
      source: 'Gateway',
      confirmation: { kind: 'edit', path: `src/module${index}.ts`, created: false, diff: diffFor(index) },
    };
    if (edits) calls.push(edit);
    ops.push({ op: 'stepEnded', step: { content, calls } }, { op: 'frame' });
    const doneRead = { ...read, state: 'done' as const, durationMs: 12, result: fileResult(index) };
    ops.push({ op: 'call', index, call: doneRead }, { op: 'frame' });
    if (edits) {
      const running = { ...edit, state: 'running' as const, startedAt: start + index * 1000 + 500 };
      ops.push({ op: 'frame' }, { op: 'call', index, call: running }, { op: 'frame' });
      ops.push({ op: 'call', index, call: { ...running, state: 'done', durationMs: 40, result: 'Edited.' } });
      ops.push({ op: 'frame' });
    }
  }
  const answer = realisticReply(ANSWER_CHARS);
  ops.push({ op: 'stream', text: answer }, { op: 'complete', content: answer });
  return { ops, text: [...texts, answer].join('\n\n') };
}

/** What the page-side interpreter touches (this file compiles without the DOM library). */
interface BenchPage {
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: {
    querySelector(selector: string): unknown;
    querySelectorAll(selector: string): { length: number };
  };
}

/** Plays `ops` in the page for the streaming turn `turn`, then waits until it is fully rendered. */
async function play(
  harness: ChatHarness,
  ops: Op[],
  cards: number,
): Promise<{ longestMs: number; totalMs: number }> {
  const chat = await harness.openPage({ viewport: { width: 420, height: 800 } });
  try {
    await chat.waitForPosted('ready');
    await chat.send(initMessage([userTurn('Make every module load lazily, and run the tests.')]));
    const turn = assistantTurn('', { status: 'streaming' });
    await chat.send({ type: 'turnAdded', turn });
    await chat.nextFrames();
    await harness.browser.startTracing(chat.page, { categories: TRACE_CATEGORIES });
    await chat.page.evaluate(
      async ({ script, base, charsPerDelta, deltasPerFrame, cardCount }) => {
        const page = globalThis as unknown as BenchPage;
        const frame = (): Promise<void> =>
          new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
        const steps: AgentStep[] = [];
        const progress = () => ({
          steps: steps.length,
          promptTokens: 1200 * steps.length,
          completionTokens: 150 * steps.length,
          cost: 0.002 * steps.length,
        });
        for (const item of script) {
          if (item.op === 'frame') await frame();
          else if (item.op === 'stream') {
            let sent = 0;
            for (let offset = 0; offset < item.text.length; offset += charsPerDelta) {
              const content = item.text.slice(offset, offset + charsPerDelta);
              page.postMessage({ type: 'turnDelta', id: base.id, content }, '*');
              if (++sent % deltasPerFrame === 0) await frame();
            }
          } else if (item.op === 'stepEnded') {
            steps.push(item.step);
            const turn = { ...base, steps: steps.slice(), agent: progress() };
            page.postMessage({ type: 'turnUpdated', turn }, '*');
          } else if (item.op === 'call') {
            const step = steps[item.index];
            steps[item.index] = {
              ...step,
              calls: step.calls.map((c) => (c.id === item.call.id ? item.call : c)),
            };
            page.postMessage(
              {
                type: 'agentStep',
                turnId: base.id,
                index: item.index,
                step: steps[item.index],
                progress: progress(),
              },
              '*',
            );
          } else {
            const turn = {
              ...base,
              content: item.content,
              status: 'complete',
              ...(steps.length ? { steps: steps.slice(), agent: progress() } : {}),
            };
            page.postMessage({ type: 'turnUpdated', turn }, '*');
          }
        }
        // Fully rendered: every card there, no text left for later frames.
        const selector = `[data-turn-id="${base.id}"]`;
        for (;;) {
          await frame();
          if (
            page.document.querySelectorAll(`${selector} .tool-card`).length === cardCount &&
            page.document.querySelector(`${selector}:not(.is-streaming)`) &&
            !page.document.querySelector(`${selector}[data-render-pending], ${selector} .hl-pending`)
          )
            break;
        }
        await frame();
      },
      {
        script: ops,
        base: turn,
        charsPerDelta: CHARS_PER_DELTA,
        deltasPerFrame: DELTAS_PER_FRAME,
        cardCount: cards,
      },
    );
    return mainThreadTasks(await harness.browser.stopTracing());
  } finally {
    await chat.close();
  }
}

export async function benchAgentView(): Promise<SectionResult> {
  const harness = await launchChatHarness();
  try {
    const { ops, text } = agentScript();
    const cards = ops.reduce((count, op) => count + (op.op === 'stepEnded' ? op.step.calls.length : 0), 0);
    const plain: Op[] = [
      { op: 'stream', text },
      { op: 'complete', content: text },
    ];
    const agentRuns: Array<{ longestMs: number; totalMs: number }> = [];
    const plainRuns: Array<{ longestMs: number; totalMs: number }> = [];
    // Alternating spreads any drift in machine load over both.
    for (let run = 0; run < RUNS; run++) {
      agentRuns.push(await play(harness, ops, cards));
      plainRuns.push(await play(harness, plain, 0));
    }
    const agentLongest = median(agentRuns.map((run) => run.longestMs));
    const plainLongest = median(plainRuns.map((run) => run.longestMs));
    const agentTotal = median(agentRuns.map((run) => run.totalMs));
    const plainTotal = median(plainRuns.map((run) => run.totalMs));
    const rows: BenchRow[] = [
      longTaskRow(
        `agent view: longest main-thread task, ${STEPS}-step turn with ${cards} tool cards`,
        agentLongest,
      ),
      longTaskRow(
        `agent view: longest main-thread task, the same text as a turn without tools`,
        plainLongest,
      ),
      {
        name: `agent view: main-thread time, ${STEPS}-step turn with its cards`,
        value: round(agentTotal, 0),
        unit: 'ms',
        peer: 'the same text without tools',
        ratio: round(agentTotal / plainTotal, 2),
      },
      {
        name: 'agent view: main-thread time, the same text without tools',
        value: round(plainTotal, 0),
        unit: 'ms',
      },
    ];
    return {
      rows,
      notes: [
        `agent view: ${STEPS} steps of ~${STEP_TEXT_CHARS} characters, each ending with turnUpdated (the whole turn) and an agentStep per call state change; a ${RESULT_CHARS}-character result per read, an edit awaiting approval every fifth step; ${CHARS_PER_DELTA}-character deltas, ${DELTAS_PER_FRAME} per frame; median of ${RUNS} runs, thread CPU time, against the ${LONG_TASK_MS} ms long-task limit.`,
      ],
    };
  } finally {
    await harness.close();
  }
}
