/**
 * Times how long a long reply takes to appear, from inside the page, the same way for the chat
 * and for a bare page that shows the same bytes as plain text (the bench's renderSpeed section
 * and the webview tier's speed test both use it).
 *
 * The bytes arrive as a fast host delivers them: one 16 KiB delta (a network read posted whole)
 * per animation frame, and for the chat the final `turnUpdated` right after the last delta. The
 * bare page appends each delta as it comes. Each page is watched the same way: in every frame,
 * at its start (requestAnimationFrame) and after its layout (a ResizeObserver on the text's
 * box); a state counts once the frame that showed it has been painted, at the next frame's start.
 */

/** A fast network: the host posts each 16 KiB read as one delta. */
export const DELTA_CHARS = 16 * 1024;
/** The last line of every timed reply: its appearance is what "fully rendered" waits for. */
export const LAST_LINE = 'The end of this reply.';

/** What the page-side function touches (this file compiles without the DOM library). */
interface WatchPage {
  performance: { now(): number };
  postMessage(message: unknown, targetOrigin: string): void;
  requestAnimationFrame(callback: () => void): number;
  document: { querySelector(selector: string): WatchElement | null; visibilityState: string };
  ResizeObserver: new (callback: () => void) => { observe(element: unknown): void; disconnect(): void };
}
interface WatchElement {
  className: string;
  textContent: string | null;
  previousElementSibling: WatchElement | null;
  lastElementChild: WatchElement | null;
  lastChild: WatchElement | null;
  previousSibling: WatchElement | null;
  querySelector(selector: string): WatchElement | null;
  hasAttribute(name: string): boolean;
  childNodes: { length: number };
}

export interface WatchArgs {
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
export async function postAndWatch(args: WatchArgs): Promise<{ firstContentMs: number; fullMs: number }> {
  const page = globalThis as unknown as WatchPage;
  const frame = (): Promise<void> => new Promise((resolve) => page.requestAnimationFrame(() => resolve()));
  const box =
    args.kind === 'chat'
      ? page.document.querySelector(`[data-turn-id="${args.id}"] .reply`)
      : page.document.querySelector('#log');
  if (!box) throw new Error('nothing to watch');
  // A hidden page gets no animation frames: it would wait here forever.
  if (page.document.visibilityState !== 'visible') throw new Error('the page is hidden');
  const hasContent = (): boolean => (box.textContent ?? '').length > 0 || box.childNodes.length > 0;
  /** The text at the end of what is shown: the live block, else the last stable block. */
  const lastText = (): string => {
    if (args.kind === 'bare') {
      const last = box.lastChild;
      return `${last?.previousSibling?.textContent ?? ''}${last?.textContent ?? ''}`;
    }
    // Children only, never a query: a query over the reply walks every block rendered so far,
    // in each frame, and would add a cost growing with the reply to the chat's side.
    const live = box.lastElementChild;
    if (live?.lastElementChild) return live.textContent ?? '';
    // The last block of the last page (of the last group of pages, when pages are grouped).
    let last = live?.previousElementSibling?.lastElementChild ?? null;
    while (last?.className.startsWith('md-')) last = last.lastElementChild;
    return last?.textContent ?? '';
  };
  const turn = args.kind === 'chat' ? page.document.querySelector(`[data-turn-id="${args.id}"]`) : null;
  // Fully rendered includes the code's colours (`hl-pending` marks a block still waiting for
  // them: HIGHLIGHT_PENDING_CLASS of src/webview/highlight.ts). That query walks the reply, so it
  // runs only once the last line is there.
  const isFull = (): boolean =>
    lastText().trimEnd().endsWith(args.lastLine) &&
    !(turn?.hasAttribute('data-render-pending') ?? false) &&
    !(turn?.querySelector('.hl-pending') ?? null);

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
export const BARE_PAGE = `<!doctype html><html><body style="margin:0;font:13px sans-serif">
<div style="position:absolute;inset:0;overflow-y:auto;padding:8px 12px"><div id="log" style="white-space:pre-wrap"></div></div>
<script>
const log = document.getElementById('log');
addEventListener('message', (event) => {
  if (event.data.type !== 'turnDelta') return;
  log.append(event.data.content);
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
});
</script></body></html>`;

export function deltasOf(text: string): string[] {
  const deltas: string[] = [];
  for (let offset = 0; offset < text.length; offset += DELTA_CHARS)
    deltas.push(text.slice(offset, offset + DELTA_CHARS));
  return deltas;
}
