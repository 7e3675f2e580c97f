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
 * Text is queued by `append` (cheap, once per message) and rendered by `render` (by the caller's
 * scheduler, in the time a frame leaves), in steps sized to that time: a step takes as many whole
 * blocks as the time left is likely to render, at the speed recent steps had, so a long tail (a
 * 16 KiB network read, a restored reply) is caught up a few paragraphs and code blocks at a time,
 * over as few frames as it can, and no step runs much past the deadline. While it catches up,
 * code is highlighted after the text, in idle time (see `highlightLater`).
 */
import type { Token } from 'markdown-it';
import { h } from './dom';
import { inputPending } from './frameBudget';
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
 * Pages go into chapters of this many, skipped off screen the same way. The browser still
 * visits every skipped box in each frame (its visibility observer, layout, pre-paint and
 * paint), so a 1 MB reply's 800 pages made each frame cost several milliseconds more than a
 * short reply's; 50 chapters cost a sixteenth of that.
 */
const PAGES_PER_CHAPTER = 16;

/**
 * The least Markdown (characters) one step parses and renders: well under a millisecond of
 * markdown-it, DOMPurify and DOM building. A step takes more when the time left allows it.
 */
const STEP_CHARS = 1024;
/** The most one step takes, however much time is left (an unbounded deadline, a fast machine). */
const MAX_STEP_CHARS = 32 * 1024;
/** A step is sized to this share of the time left, for the steps that run slower than the last. */
const STEP_SHARE = 0.6;
/** Cost of a character before any step was measured (ms): 2 ms per KB, a slow machine's. */
const FIRST_MS_PER_CHAR = 0.002;

/** A line that may define a link reference (`[label]: url`); see `rememberReferences`. */
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:/m;

export class StreamingMarkdown {
  readonly element: HTMLElement;
  private readonly stable = h('div', { className: 'md-stable' });
  private chapter?: HTMLElement;
  private page?: HTMLElement;
  private readonly live = h('div', { className: 'md-live' });
  /** Link reference definitions (`[label]: url`) from the stable part, for later blocks to use. */
  private references: RenderEnv['references'] = {};
  private pending: string[] = [];
  private tail = '';
  private receivedLength = 0;
  /** Characters the next step parses; grows while one block is longer. */
  private stepChars = STEP_CHARS;
  /** The last render ran out of time with text left to render. */
  private behind = false;
  /**
   * What a character of a step cost lately (ms), the slowest recent step counting most: it sizes
   * steps to the time left, and keeps a render from starting one it has no time left for.
   */
  private msPerChar = FIRST_MS_PER_CHAR;

  constructor(className: string) {
    this.element = h('div', { className: `markdown-body ${className}` }, this.stable, this.live);
  }

  get hasText(): boolean {
    return this.receivedLength > 0;
  }

  append(text: string): void {
    if (!text) return;
    this.pending.push(text);
    this.receivedLength += text.length;
  }

  /** Starts over with `text` (the host replaced the text rather than extending it). */
  reset(text: string): void {
    this.stable.replaceChildren();
    this.chapter = undefined;
    this.page = undefined;
    this.live.replaceChildren();
    this.references = {};
    this.pending = [];
    this.tail = '';
    this.receivedLength = 0;
    this.stepChars = STEP_CHARS;
    this.behind = false;
    this.append(text);
  }

  /**
   * Renders what arrived since the last call, until `deadline` (a `performance.now()` time), or
   * until input is waiting: text is parsed in steps sized to the time left, so a big delta, or a
   * long reply restored at once, never becomes one long task. Returns false when text is left
   * for another call. `complete`: no more text will come, so the whole tail becomes stable and
   * every code fence counts as closed (and is highlighted).
   */
  render(complete: boolean, deadline = Infinity): boolean {
    if (this.pending.length > 0) {
      this.tail += this.pending.join('');
      this.pending = [];
    } else if (!this.behind && (!complete || this.tail === '')) {
      return true;
    }
    // More than one small step's worth: text first, code colours once the text has caught up.
    const catchingUp = this.tail.length > STEP_CHARS;
    for (let first = true; ; first = false) {
      // Out of time before the first step (the caller spent the frame on other turns): all of it
      // waits for the next call. After it, a step too small to be worth it, or input waiting,
      // stops the render too: the deadline is what the caller's task may cost.
      const started = performance.now();
      const left = deadline - started;
      if (left <= 0 || (!first && (left < this.msPerChar * STEP_CHARS || inputPending()))) {
        this.behind = true;
        // The live block was moved into the stable part, or lies beyond what was parsed.
        if (!first) this.live.replaceChildren();
        return false;
      }
      const fits = Number.isFinite(left) ? Math.floor((left * STEP_SHARE) / this.msPerChar) : MAX_STEP_CHARS;
      const stepChars = Math.max(this.stepChars, Math.min(MAX_STEP_CHARS, fits));
      if (this.tail.length <= stepChars) {
        this.renderWholeTail(complete, catchingUp);
        this.behind = false;
        return true;
      }
      const parsed = this.renderStep(stepChars);
      // The slowest recent step, fading: one slow step (a table, a grammar's first use, a
      // collection) counts for a few steps, not for the rest of the reply.
      const msPerChar = (performance.now() - started) / Math.max(parsed, 1);
      this.msPerChar = Math.max(msPerChar, this.msPerChar * 0.75, FIRST_MS_PER_CHAR / 16);
    }
  }

  /** Whether text received is still waiting to be rendered. */
  get isBehind(): boolean {
    return this.behind || this.pending.length > 0;
  }

  /**
   * Renders the stable blocks in the tail's first `size` characters (up to a line end), and
   * returns how many characters it parsed. When one block is longer than that, the next step
   * takes twice as much, until the block fits.
   */
  private renderStep(size: number): number {
    // Up to the first line end after `size`; when the text after it is one unfinished line, up
    // to the last line end before it. (Taking the whole tail there would leave no cut and make
    // the next step render everything at once: a long task, and after that a step size that
    // never came back down.)
    const after = this.tail.indexOf('\n', size);
    const before = this.tail.lastIndexOf('\n', size);
    const end = after >= 0 ? after + 1 : before > 0 ? before + 1 : this.tail.length;
    const prefix = this.tail.slice(0, end);
    const tokens = parseMarkdown(prefix, { references: { ...this.references } });
    const cut = end < this.tail.length ? findStableCut(prefix, tokens) : undefined;
    if (!cut) {
      this.stepChars = Math.max(size * 2, end + 1);
      return end;
    }
    this.appendStable(renderTokens(tokens.slice(0, cut.tokenIndex), { highlightLater: true }));
    this.rememberReferences(prefix.slice(0, cut.offset));
    this.tail = this.tail.slice(cut.offset);
    this.stepChars = STEP_CHARS;
    return end;
  }

  private renderWholeTail(complete: boolean, catchingUp: boolean): void {
    const tokens = parseMarkdown(this.tail, { references: { ...this.references } });
    const env: RenderEnv = { highlightLater: catchingUp };
    if (complete) {
      this.appendStable(renderTokens(tokens, env));
      this.live.replaceChildren();
      this.tail = '';
      return;
    }
    const cut = findStableCut(this.tail, tokens);
    const liveTokens = cut ? tokens.slice(cut.tokenIndex) : tokens;
    if (cut) this.appendStable(renderTokens(tokens.slice(0, cut.tokenIndex), env));
    this.live.replaceChildren(renderTokens(liveTokens, { ...env, isFenceOpen: fenceChecker(this.tail) }));
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
        if (!this.chapter || this.chapter.childNodes.length >= PAGES_PER_CHAPTER) {
          this.chapter = h('div', { className: 'md-chapter' });
          this.stable.append(this.chapter);
        }
        this.page = h('div', { className: 'md-page' });
        this.chapter.append(this.page);
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
