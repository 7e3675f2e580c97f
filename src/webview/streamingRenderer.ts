/**
 * Markdown that grows while it streams, rendered in time linear in its length.
 *
 * The text is split into a stable part and a live tail. markdown-it parses only the tail; every
 * top-level block that is followed by another top-level block starting on a complete line can
 * no longer change (Markdown decides where a block ends line by line), so those blocks are
 * rendered once, appended to `stable` (in pages the browser can skip when off screen) and
 * dropped from the tail. The last block (an open paragraph, list or code fence) stays in the
 * tail and is re-rendered on the next frame. Each frame therefore costs about the size of the
 * last block, not the size of the whole reply. (One giant block, such as a single paragraph
 * without blank lines, is the exception: it is re-rendered whole until it ends.)
 *
 * Text is queued by `append` (cheap, once per message) and rendered by `render` (once per
 * animation frame, by the caller's scheduler), in steps of a few KB until the frame's time is
 * up; a long tail (a 16 KiB network read, a restored reply) is worked off over several frames.
 */
import type { Token } from 'markdown-it';
import { h } from './dom';
import { parseMarkdown, renderTokens } from './markdown';
import type { RenderEnv } from './markdown';

interface TopLevelBlock {
  tokenIndex: number;
  line: number;
}

function topLevelBlocks(tokens: Token[]): TopLevelBlock[] {
  const blocks: TopLevelBlock[] = [];
  tokens.forEach((token, tokenIndex) => {
    if (token.level === 0 && token.nesting >= 0 && token.map) blocks.push({ tokenIndex, line: token.map[0] });
  });
  return blocks;
}

/** Character offset where line `line` (0-based) of `text` starts. */
function lineOffset(text: string, line: number): number {
  let offset = 0;
  for (let current = 0; current < line; current++) {
    const newline = text.indexOf('\n', offset);
    if (newline < 0) return text.length;
    offset = newline + 1;
  }
  return offset;
}

/**
 * Where the tail can be cut: the start of its last top-level block that begins on a complete
 * line, if at least one block comes before it. A block that begins on the unfinished last line
 * may still turn out to be something else ("#" becoming "#hashtag"), so it never decides a cut.
 */
function findStableCut(tail: string, tokens: Token[]): { tokenIndex: number; offset: number } | undefined {
  const blocks = topLevelBlocks(tokens);
  const lastNewline = tail.lastIndexOf('\n');
  for (let index = blocks.length - 1; index >= 1; index--) {
    const offset = lineOffset(tail, blocks[index].line);
    if (offset <= lastNewline) return { tokenIndex: blocks[index].tokenIndex, offset };
  }
  return undefined;
}

/** A fence is open while the last line of its range is not a closing marker. */
function fenceChecker(source: string): (token: Token) => boolean {
  let lines: string[] | undefined;
  return (token) => {
    if (!token.map) return false;
    const [start, end] = token.map;
    if (end - 1 <= start) return true;
    lines ??= source.split('\n');
    const last = (lines[end - 1] ?? '').replace(/^[\s>]*/, '').trimEnd();
    const marker = token.markup;
    const isClosing = last.length >= marker.length && last[0] === marker[0] && /^(?:`+|~+)$/.test(last);
    return !isClosing;
  };
}

/**
 * Stable blocks go into pages of at most this many nodes, and pages off screen are skipped by
 * the browser (content-visibility in chat.css). Otherwise every frame of a long reply would
 * make the browser revisit all of its blocks (layout and paint bookkeeping): quadratic time.
 * Small pages also keep the page that grows at the bottom, laid out again each frame, cheap.
 */
const NODES_PER_PAGE = 16;

/**
 * Characters of Markdown parsed and rendered in one step: a millisecond or two of markdown-it,
 * DOMPurify and DOM building on a slow machine. A render stops between steps when its time is
 * up, so a step is what a frame can overrun its budget by.
 */
const STEP_CHARS = 1024;

/** A line that may define a link reference (`[label]: url`); see `rememberReferences`. */
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

export class StreamingMarkdown {
  readonly element: HTMLElement;
  private readonly stable = h('div', { className: 'md-stable' });
  private page?: HTMLElement;
  private readonly live = h('div', { className: 'md-live' });
  /** Link reference definitions (`[label]: url`) from the stable part, for later blocks to use. */
  private references: RenderEnv['references'] = {};
  private pending: string[] = [];
  private pendingChars = 0;
  private tail = '';
  private receivedLength = 0;
  /** Characters the next step parses; grows while one block is longer. */
  private stepChars = STEP_CHARS;
  /** The last render ran out of time with text left to render. */
  private behind = false;
  /** How long a step took lately (ms), so a render does not start one it has no time left for. */
  private stepMs = 0;

  constructor(className: string) {
    this.element = h('div', { className: `markdown-body ${className}` }, this.stable, this.live);
  }

  get hasText(): boolean {
    return this.receivedLength > 0;
  }

  append(text: string): void {
    if (!text) return;
    this.pending.push(text);
    this.pendingChars += text.length;
    this.receivedLength += text.length;
  }

  /** Starts over with `text` (the host replaced the text rather than extending it). */
  reset(text: string): void {
    this.stable.replaceChildren();
    this.page = undefined;
    this.live.replaceChildren();
    this.references = {};
    this.pending = [];
    this.pendingChars = 0;
    this.tail = '';
    this.receivedLength = 0;
    this.stepChars = STEP_CHARS;
    this.behind = false;
    this.append(text);
  }

  /**
   * Renders what arrived since the last call, until `deadline` (a `performance.now()` time):
   * text is parsed in steps of about STEP_CHARS, so a big delta, or a long reply restored at
   * once, never becomes one long task. Returns false when text is left for another call.
   * `complete`: no more text will come, so the whole tail becomes stable and every code fence
   * counts as closed (and is highlighted).
   */
  render(complete: boolean, deadline = Infinity): boolean {
    if (this.pending.length > 0) {
      this.tail += this.pending.join('');
      this.pending = [];
      this.pendingChars = 0;
    } else if (!this.behind && (!complete || this.tail === '')) {
      return true;
    }
    for (let first = true; ; first = false) {
      // Out of time before the first step (the caller spent the frame on other turns): all of it
      // waits for the next call. After it, a step that would likely end past the deadline waits
      // too: the deadline is what the caller's task may cost, not a point to start from.
      const started = performance.now();
      if (started + (first ? 0 : this.stepMs) >= deadline) {
        this.behind = true;
        // The live block was moved into the stable part, or lies beyond what was parsed.
        if (!first) this.live.replaceChildren();
        return false;
      }
      if (this.tail.length <= this.stepChars) {
        this.renderWholeTail(complete);
        this.behind = false;
        return true;
      }
      this.renderStep();
      // The slowest recent step, fading: one slow step (a table, a grammar's first use) counts
      // for a few steps, not for the rest of the reply.
      this.stepMs = Math.max(performance.now() - started, this.stepMs * 0.75);
    }
  }

  /** Whether text received is still waiting to be rendered. */
  get isBehind(): boolean {
    return this.behind || this.pending.length > 0;
  }

  /** More is waiting than one step renders: the last render ran out of time, or a big read came. */
  get hasBacklog(): boolean {
    return this.behind || this.pendingChars > STEP_CHARS;
  }

  /**
   * Renders the stable blocks in the tail's first STEP_CHARS (up to a line end). When one block
   * is longer than that, the next step takes twice as much, until the block fits.
   */
  private renderStep(): void {
    // Up to the first line end after stepChars; when the text after stepChars is one unfinished
    // line, up to the last line end before it. (Taking the whole tail there would leave no cut
    // and make the next step render everything at once: a long task, and after that a step size
    // that never came back down.)
    const after = this.tail.indexOf('\n', this.stepChars);
    const before = this.tail.lastIndexOf('\n', this.stepChars);
    const end = after >= 0 ? after + 1 : before > 0 ? before + 1 : this.tail.length;
    const prefix = this.tail.slice(0, end);
    const tokens = parseMarkdown(prefix, { references: { ...this.references } });
    const cut = end < this.tail.length ? findStableCut(prefix, tokens) : undefined;
    if (!cut) {
      this.stepChars = Math.max(this.stepChars * 2, end + 1);
      return;
    }
    this.appendStable(renderTokens(tokens.slice(0, cut.tokenIndex), {}));
    this.rememberReferences(prefix.slice(0, cut.offset));
    this.tail = this.tail.slice(cut.offset);
    this.stepChars = STEP_CHARS;
  }

  private renderWholeTail(complete: boolean): void {
    const tokens = parseMarkdown(this.tail, { references: { ...this.references } });
    if (complete) {
      this.appendStable(renderTokens(tokens, {}));
      this.live.replaceChildren();
      this.tail = '';
      return;
    }
    const cut = findStableCut(this.tail, tokens);
    const liveTokens = cut ? tokens.slice(cut.tokenIndex) : tokens;
    if (cut) this.appendStable(renderTokens(tokens.slice(0, cut.tokenIndex), {}));
    this.live.replaceChildren(renderTokens(liveTokens, { isFenceOpen: fenceChecker(this.tail) }));
    if (cut) {
      this.rememberReferences(this.tail.slice(0, cut.offset));
      this.tail = this.tail.slice(cut.offset);
      // The long block that made the steps grow (if one did) is behind us.
      this.stepChars = STEP_CHARS;
    }
  }

  private appendStable(fragment: DocumentFragment): void {
    let node = fragment.firstChild;
    while (node) {
      const next = node.nextSibling;
      if (!this.page || this.page.childNodes.length >= NODES_PER_PAGE) {
        this.page = h('div', { className: 'md-page' });
        this.stable.append(this.page);
      }
      this.page.append(node);
      node = next;
    }
  }

  /**
   * Each tail parse starts from the stable part's references only: a definition still arriving
   * in the tail ("[a]: https://exa") must not be remembered half-written. A reference used in
   * a block that was rendered before its definition arrived stays plain text (rare in replies).
   */
  private rememberReferences(stableText: string): void {
    if (!REFERENCE_DEFINITION.test(stableText)) return;
    const env: RenderEnv = { references: { ...this.references } };
    parseMarkdown(stableText, env);
    this.references = env.references;
  }
}
