/**
 * The scrolling list of turns. It keeps every turn's data, but only the turns near the viewport
 * have DOM: a long conversation shows its newest turns at once, renders a bounded number of older
 * ones, newest first, in idle time, and stands the rest in with placeholders of their measured
 * (or estimated) height. A placeholder that comes within a screen of the viewport is rendered on
 * the next frame; rendered turns far from the viewport go back to placeholders once more than
 * MAX_RENDERED_TURNS are rendered, so the page's memory stays bounded however long the chat.
 * Streamed text is rendered at most once per animation frame, for the turns that changed.
 */
import type { AgentProgress, AgentStep } from '../core/agent/types';
import type { Turn } from '../core/protocol/chatProtocol';
import { BottomStick } from './bottomStick';
import { h, iconButton, whenIdle } from './dom';
import { FRAME_WORK_MS, mustYield, sliceDeadline, watchInput } from './frameBudget';
import { attachTranscriptActions } from './transcriptActions';
import { AssistantTurnView, createTurnView, FailedTurnView } from './turnView';
import type { TurnView } from './turnView';
import { welcomeView } from './welcome';

export interface TranscriptEvents {
  editTurn(turnId: string, text: string): void;
  streamingChanged(streaming: boolean): void;
  turnCountChanged(count: number): void;
}

interface TurnEntry {
  /** The turn as last received; a rendered turn's view holds the live copy. */
  turn: Turn;
  view?: TurnView;
  /** What stands in the list for a turn that is not rendered (exactly one of view, placeholder). */
  placeholder?: HTMLElement;
  /** The height the turn's view last took, to size its placeholder. */
  height?: number;
}

/** Rendering the newest turns of a conversation is synchronous up to this budget... */
const INITIAL_RENDER_BUDGET_MS = 16;
const INITIAL_MIN_TURNS = 2;
/** ...and the rest waits for idle time, in slices short enough not to delay input. */
const IDLE_SLICE_MS = 10;
/**
 * Rendering time inside an animation frame's own task: style, layout and paint of what was
 * rendered follow in that task, so this stays well under the 16 ms of one frame. A backlog gets
 * the rest of the frame's budget in a task of its own (see `backlog` and `frameBudget.ts`).
 */
const FRAME_BUDGET_MS = 4;
/**
 * Turns kept rendered beyond the ones near the viewport; more are rendered only when scrolled
 * to, and the farthest are dropped again. Small chats stay fully rendered.
 */
const MAX_RENDERED_TURNS = 60;
/** Placeholders this close to the viewport (a screen above and below) are rendered. */
const RENDER_MARGIN = '100% 0px 100% 0px';
/** Rendered turns this close to the viewport are never dropped. */
const KEEP_MARGIN = '300% 0px 300% 0px';

export class Transcript {
  readonly element: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly list = h('div', { className: 'turn-list' });
  private readonly welcomeSlot = h('div', { className: 'welcome-slot' });
  private readonly jumpToBottom = iconButton({
    icon: 'arrow-down',
    label: 'Scroll to the latest message',
    className: 'jump-to-bottom',
  });

  private readonly entries = new Map<string, TurnEntry>();
  private order: string[] = [];
  /** Older turns still to render in idle time, oldest first; the last one is rendered next. */
  private notYetRendered: string[] = [];
  /** Placeholders near the viewport, to render on the next frame. */
  private readonly wanted = new Set<string>();
  /** Rendered turns near the viewport (KEEP_MARGIN). */
  private readonly kept = new Set<string>();
  private renderedCount = 0;
  private readonly idOf = new WeakMap<Element, string>();
  /** Views whose place the keep observer has reported (a view just created has none yet). */
  private readonly placed = new WeakSet<Element>();
  private readonly nearObserver: IntersectionObserver;
  private readonly keepObserver: IntersectionObserver;
  /** Bumped by every conversation switch, so idle work for the previous one stops. */
  private generation = 0;
  private readonly dirtyViews = new Set<TurnView>();
  /**
   * Dirty views with more text waiting than a step renders (a 16 KiB read, a restored reply, a
   * render that ran out of time). The frame renders a first part of it (what arrived shows in
   * the frame it arrived for); the rest is rendered in a task of its own after each frame
   * (`renderBacklogSoon`), until FRAME_WORK_MS of the frame are used: a frame's task then holds
   * the layout and paint of what the last task rendered and a little rendering, not all of it,
   * so neither task grows past a frame.
   */
  private readonly backlog = new Set<TurnView>();
  private frameRequested = false;
  private idleRequested = false;
  private backlogRequested = false;
  /** When the last animation frame began (its `requestAnimationFrame` timestamp). */
  private frameStart = 0;
  private readonly bottom: BottomStick;
  private readonly streamingIds = new Set<string>();
  private lastUserTurnId?: string;
  private hasApiKey = true;
  /** The awaiting card last given the focus. */
  private focusedAwaiting?: HTMLElement;
  /** Whether rendering is behind what was received (mirrored in `aria-busy`). */
  private busy = false;

  constructor(private readonly events: TranscriptEvents) {
    this.scroller = h(
      'div',
      { className: 'transcript', attrs: { role: 'log', 'aria-label': 'Conversation', tabindex: '0' } },
      this.welcomeSlot,
      this.list,
    );
    this.element = h('div', { className: 'transcript-frame' }, this.scroller, this.jumpToBottom);
    this.bottom = new BottomStick(this.scroller, this.list, (pinned) =>
      this.jumpToBottom.classList.toggle('is-visible', !pinned),
    );
    this.jumpToBottom.addEventListener('click', () => this.bottom.pin());
    watchInput(document);
    this.nearObserver = new IntersectionObserver((records) => this.placeholdersMoved(records), {
      root: this.scroller,
      rootMargin: RENDER_MARGIN,
    });
    this.keepObserver = new IntersectionObserver((records) => this.viewsMoved(records), {
      root: this.scroller,
      rootMargin: KEEP_MARGIN,
    });
    attachTranscriptActions(this.scroller, {
      turnById: (id) => this.turnById(id),
      editTurn: (turnId, text) => this.events.editTurn(turnId, text),
    });
    this.refreshWelcome();
  }

  turnById(id: string): Turn | undefined {
    const entry = this.entries.get(id);
    return entry?.view?.turn ?? entry?.turn;
  }

  setHasApiKey(hasApiKey: boolean): void {
    this.hasApiKey = hasApiKey;
    this.refreshWelcome();
  }

  showConversation(turns: Turn[]): void {
    this.generation++;
    this.entries.clear();
    this.dirtyViews.clear();
    this.backlog.clear();
    this.streamingIds.clear();
    this.lastUserTurnId = undefined;
    this.nearObserver.disconnect();
    this.keepObserver.disconnect();
    this.wanted.clear();
    this.kept.clear();
    this.renderedCount = 0;
    const placeholders: HTMLElement[] = [];
    for (const turn of turns) {
      const entry: TurnEntry = { turn };
      this.entries.set(turn.id, entry);
      placeholders.push(this.placeholderFor(turn.id, entry));
      if (turn.role === 'assistant' && turn.status === 'streaming') this.streamingIds.add(turn.id);
    }
    this.list.replaceChildren(...placeholders);
    this.order = turns.map((turn) => turn.id);
    this.notYetRendered = this.order.slice();
    this.refreshLastUserTurn();
    this.renderNewestTurns();
    this.afterStructureChange();
    this.bottom.pin();
    if (this.notYetRendered.length > 0) this.renderOlderWhenIdle(this.generation);
    this.syncBusy();
  }

  addTurn(turn: Turn): void {
    if (this.entries.has(turn.id)) {
      this.updateTurn(turn);
      return;
    }
    this.entries.set(turn.id, { turn });
    this.order.push(turn.id);
    if (turn.role === 'assistant' && turn.status === 'streaming') this.streamingIds.add(turn.id);
    this.refreshLastUserTurn();
    this.list.append(this.createView(turn.id).element);
    this.afterStructureChange();
    this.dropFarTurns();
    // A new prompt always brings the view down to it.
    if (turn.role === 'user') this.bottom.pin();
    else this.bottom.follow();
  }

  appendDelta(id: string, content: string | undefined, reasoning: string | undefined): void {
    const entry = this.entries.get(id);
    if (!entry || entry.turn.role !== 'assistant') return;
    if (entry.view instanceof AssistantTurnView) {
      const view = entry.view;
      this.guard(view, () => view.appendDelta(content, reasoning));
    } else {
      entry.turn = {
        ...entry.turn,
        content: entry.turn.content + (content ?? ''),
        reasoning: entry.turn.reasoning + (reasoning ?? ''),
      };
    }
  }

  /** A step of an agent turn changed: its cards update in place. */
  applyAgentStep(turnId: string, index: number, step: AgentStep, progress: AgentProgress): void {
    const entry = this.entries.get(turnId);
    if (!entry || entry.turn.role !== 'assistant') return;
    const view = entry.view;
    if (view instanceof AssistantTurnView) {
      this.guard(view, () => view.applyStep(index, step, progress));
    } else {
      const steps = (entry.turn.steps ?? []).slice();
      steps[index] = step;
      for (let fill = 0; fill < steps.length; fill++) steps[fill] ??= { content: '', calls: [] };
      entry.turn = { ...entry.turn, steps, agent: progress };
    }
    this.focusAwaitingCard();
    this.bottom.follow();
  }

  /**
   * Moves the focus to the first card that waits for the user, once per card: the card itself,
   * not its "Allow" button, so a key pressed for something else approves nothing. Only while the
   * view has the focus already: a focus() in here from outside pulls the workbench's keyboard focus
   * into the view, away from the editor or terminal the user is typing in (VS Code then also drops
   * that editor's ghost text).
   */
  private focusAwaitingCard(): void {
    let first: HTMLElement | undefined;
    for (const id of this.order) {
      const view = this.entries.get(id)?.view;
      if (view instanceof AssistantTurnView) {
        first = view.awaitingCard?.element;
        if (first) break;
      }
    }
    if (!first || first === this.focusedAwaiting) return;
    this.focusedAwaiting = first;
    if (document.hasFocus() && !first.contains(document.activeElement)) first.focus({ preventScroll: false });
  }

  updateTurn(turn: Turn): void {
    const entry = this.entries.get(turn.id);
    if (!entry) {
      this.addTurn(turn);
      return;
    }
    entry.turn = turn;
    const view = entry.view;
    // A turn that could not render gets a new chance with every update.
    if (view instanceof FailedTurnView) this.createView(turn.id);
    else if (view) this.guard(view, () => view.update(turn));
    else if (entry.placeholder && entry.height === undefined)
      entry.placeholder.style.height = `${estimatedHeight(turn)}px`;
    if (turn.role === 'assistant' && turn.status === 'streaming') this.streamingIds.add(turn.id);
    else this.streamingIds.delete(turn.id);
    this.afterStructureChange();
    if (turn.role === 'assistant' && turn.steps?.length) this.focusAwaitingCard();
  }

  removeTurns(ids: string[]): void {
    const removed = new Set(ids);
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry?.view) this.unobserveView(entry.view);
      entry?.view?.element.remove();
      if (entry?.placeholder) this.nearObserver.unobserve(entry.placeholder);
      entry?.placeholder?.remove();
      this.entries.delete(id);
      this.streamingIds.delete(id);
      this.wanted.delete(id);
      this.kept.delete(id);
    }
    this.order = this.order.filter((id) => !removed.has(id));
    this.notYetRendered = this.notYetRendered.filter((id) => !removed.has(id));
    this.refreshLastUserTurn();
    this.afterStructureChange();
    this.syncBusy();
  }

  /**
   * Creates and renders the view of a turn (or, if it cannot render, its failure note), in the
   * place of its placeholder or previous view when it has one.
   */
  private createView(id: string, deadline = performance.now() + FRAME_BUDGET_MS): TurnView {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`No turn ${id}`);
    let view: TurnView;
    try {
      view = createTurnView(entry.turn, (dirty) => this.markDirty(dirty));
      if (!view.render(deadline)) this.markDirty(view);
    } catch (error) {
      view = this.failedView(entry.turn, error);
    }
    const previous = entry.placeholder ?? entry.view?.element;
    if (entry.placeholder) {
      this.nearObserver.unobserve(entry.placeholder);
      entry.placeholder = undefined;
      this.wanted.delete(id);
    }
    if (entry.view) this.unobserveView(entry.view);
    else this.renderedCount++;
    previous?.replaceWith(view.element);
    entry.view = view;
    this.idOf.set(view.element, id);
    this.keepObserver.observe(view.element);
    if (id === this.lastUserTurnId) view.element.classList.add('is-last-user');
    return view;
  }

  private unobserveView(view: TurnView): void {
    this.keepObserver.unobserve(view.element);
    this.dirtyViews.delete(view);
    this.backlog.delete(view);
  }

  /** A placeholder for a turn without a view, sized as the turn last was (or an estimate). */
  private placeholderFor(id: string, entry: TurnEntry): HTMLElement {
    const placeholder = h('div', { className: 'turn-placeholder', attrs: { 'aria-hidden': 'true' } });
    placeholder.style.height = `${entry.height ?? estimatedHeight(entry.turn)}px`;
    entry.placeholder = placeholder;
    this.idOf.set(placeholder, id);
    this.nearObserver.observe(placeholder);
    return placeholder;
  }

  private placeholdersMoved(records: IntersectionObserverEntry[]): void {
    for (const record of records) {
      const id = this.idOf.get(record.target);
      if (id === undefined || this.entries.get(id)?.placeholder !== record.target) continue;
      if (record.isIntersecting) this.wanted.add(id);
      else this.wanted.delete(id);
    }
    if (this.wanted.size > 0) this.requestFrame();
    this.syncBusy();
  }

  private viewsMoved(records: IntersectionObserverEntry[]): void {
    for (const record of records) {
      const id = this.idOf.get(record.target);
      const entry = id === undefined ? undefined : this.entries.get(id);
      if (id === undefined || entry?.view?.element !== record.target) continue;
      // Off screen, content-visibility keeps the size the turn last had on screen.
      if (record.boundingClientRect.height > 0) entry.height = record.boundingClientRect.height;
      this.placed.add(record.target);
      if (record.isIntersecting) this.kept.add(id);
      else this.kept.delete(id);
    }
    this.dropFarTurns();
  }

  /**
   * Over MAX_RENDERED_TURNS, the rendered turns farthest from the viewport give way to
   * placeholders, except those still changing or holding what the user works with.
   */
  private dropFarTurns(): void {
    if (this.renderedCount <= MAX_RENDERED_TURNS) return;
    let nearest = this.order.length - 1;
    let farthest = 0;
    const index = new Map<string, number>();
    this.order.forEach((id, position) => {
      index.set(id, position);
      if (this.kept.has(id)) {
        nearest = Math.min(nearest, position);
        farthest = Math.max(farthest, position);
      }
    });
    const distance = (id: string): number => {
      const position = index.get(id) ?? 0;
      return position < nearest ? nearest - position : Math.max(0, position - farthest);
    };
    const candidates = this.order.filter((id) => this.canDrop(id)).sort((a, b) => distance(b) - distance(a));
    for (const id of candidates) {
      if (this.renderedCount <= MAX_RENDERED_TURNS) break;
      this.dropView(id);
    }
  }

  private canDrop(id: string): boolean {
    const view = this.entries.get(id)?.view;
    // A view still rendering may go too: it is rebuilt from its turn when scrolled to again.
    if (!view || !this.placed.has(view.element) || this.kept.has(id) || this.streamingIds.has(id))
      return false;
    if (view.turn.role === 'assistant' && view.turn.media) return false;
    if (view.element.contains(document.activeElement)) return false;
    return !(view instanceof AssistantTurnView && view.awaitingCard);
  }

  private dropView(id: string): void {
    const entry = this.entries.get(id);
    const view = entry?.view;
    if (!entry || !view) return;
    this.unobserveView(view);
    entry.turn = view.turn;
    entry.view = undefined;
    this.renderedCount--;
    view.element.replaceWith(this.placeholderFor(id, entry));
  }

  private failedView(turn: Turn, error: unknown): FailedTurnView {
    console.error(`Gateway AI: turn ${turn.id} could not be rendered:`, error);
    return new FailedTurnView(turn);
  }

  /** Runs `work` on a view; if it throws, the view gives way to a placeholder. */
  private guard(view: TurnView, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.replaceView(view, this.failedView(view.turn, error));
    }
  }

  private replaceView(old: TurnView, replacement: TurnView): void {
    const entry = this.entries.get(old.id);
    if (!entry || entry.view !== old) return;
    entry.view = replacement;
    this.unobserveView(old);
    this.idOf.set(replacement.element, old.id);
    this.keepObserver.observe(replacement.element);
    this.syncBusy();
    if (old.element.isConnected) old.element.replaceWith(replacement.element);
    replacement.element.classList.toggle('is-last-user', old.id === this.lastUserTurnId);
  }

  private renderNewestTurns(): void {
    const deadline = performance.now() + INITIAL_RENDER_BUDGET_MS;
    let rendered = 0;
    while (this.notYetRendered.length > 0 && (rendered < INITIAL_MIN_TURNS || performance.now() < deadline)) {
      // A long turn renders as much as the budget allows; the rest follows in the next frames.
      this.createView(this.notYetRendered.pop() as string, deadline);
      rendered++;
    }
    if (this.renderedCount >= MAX_RENDERED_TURNS) this.notYetRendered = [];
  }

  /** Older turns, newest first, up to MAX_RENDERED_TURNS; the rest wait to be scrolled to. */
  private renderOlderWhenIdle(generation: number): void {
    whenIdle((deadline) => {
      if (generation !== this.generation) return;
      const sliceEnd = performance.now() + Math.min(IDLE_SLICE_MS, deadline.timeRemaining());
      do {
        const id = this.notYetRendered.pop();
        if (id === undefined) break;
        // Scroll anchoring keeps what the user is reading in place while older turns appear above.
        if (this.entries.get(id)?.placeholder) this.createView(id, sliceEnd);
      } while (performance.now() < sliceEnd && this.renderedCount < MAX_RENDERED_TURNS);
      if (this.renderedCount >= MAX_RENDERED_TURNS) this.notYetRendered = [];
      this.bottom.follow();
      if (this.notYetRendered.length > 0) this.renderOlderWhenIdle(generation);
      this.syncBusy();
    });
  }

  private markDirty(view: TurnView): void {
    this.dirtyViews.add(view);
    this.requestFrame();
    this.syncBusy();
  }

  /**
   * `aria-busy` on the log while what was received is not all rendered yet (older turns waiting
   * for idle time, text waiting for the next frame), so assistive technology and anything else
   * reading the transcript can wait for it to settle.
   */
  private syncBusy(): void {
    const busy = this.dirtyViews.size > 0 || this.notYetRendered.length > 0 || this.wanted.size > 0;
    if (busy === this.busy) return;
    this.busy = busy;
    this.scroller.setAttribute('aria-busy', String(busy));
  }

  private requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame((frameStart) => this.renderFrame(frameStart));
  }

  /**
   * Renders what changed, within the frame's budget; views with text left stay dirty for the
   * next frame (oldest change first, so every turn gets its turn).
   */
  private renderFrame(frameStart: number): void {
    this.frameRequested = false;
    this.frameStart = frameStart;
    const deadline = performance.now() + FRAME_BUDGET_MS;
    // Placeholders scrolled near come first: the user is looking for them. At least one per
    // frame, newest first, so scrolling up never waits on a busy stream.
    let first = true;
    for (const id of [...this.wanted].reverse()) {
      if (!first && performance.now() >= deadline) break;
      first = false;
      if (this.entries.get(id)?.placeholder) this.createView(id, deadline);
      this.wanted.delete(id);
    }
    this.renderDirty(deadline);
    // Turns rendered while the user scrolled fast may have left the viewport already.
    this.dropFarTurns();
    if (this.dirtyViews.size > 0 || this.wanted.size > 0) this.requestFrame();
    if (this.backlog.size > 0) this.renderBacklogSoon();
    // A big backlog also uses the idle time between frames.
    if (this.dirtyViews.size > 0) this.renderWhenIdle();
    this.syncBusy();
    this.bottom.follow();
  }

  /** Renders dirty views until `deadline`, or until input is waiting. */
  private renderDirty(deadline: number): void {
    for (const view of [...this.dirtyViews]) {
      if (mustYield(deadline)) break;
      this.dirtyViews.delete(view);
      this.backlog.delete(view);
      if (this.entries.get(view.id)?.view !== view) continue;
      let done = true;
      this.guard(view, () => {
        done = view.render(deadline);
      });
      if (!done) {
        this.dirtyViews.add(view);
        this.backlog.add(view);
      }
    }
  }

  /**
   * The rest of the frame's budget for the backlog, in a task right after the frame (see
   * `backlog`): until FRAME_WORK_MS after the frame began, or a minimum slice.
   */
  private renderBacklogSoon(): void {
    if (this.backlogRequested) return;
    this.backlogRequested = true;
    setTimeout(() => {
      this.backlogRequested = false;
      if (this.backlog.size === 0) return;
      this.renderDirty(sliceDeadline(this.frameStart));
      this.syncBusy();
      // The next frame shows it, and follows it to the bottom.
      this.requestFrame();
    }, 0);
  }

  private renderWhenIdle(): void {
    if (this.idleRequested) return;
    this.idleRequested = true;
    whenIdle((idle) => {
      this.idleRequested = false;
      const budget = Math.min(FRAME_WORK_MS, idle.timeRemaining());
      if (budget <= 0 || this.dirtyViews.size === 0) return;
      this.renderDirty(performance.now() + budget);
      this.syncBusy();
    });
  }

  private refreshLastUserTurn(): void {
    let lastUser: string | undefined;
    for (let index = this.order.length - 1; index >= 0; index--) {
      if (this.entries.get(this.order[index])?.turn.role === 'user') {
        lastUser = this.order[index];
        break;
      }
    }
    if (lastUser === this.lastUserTurnId) return;
    if (this.lastUserTurnId)
      this.entries.get(this.lastUserTurnId)?.view?.element.classList.remove('is-last-user');
    if (lastUser) this.entries.get(lastUser)?.view?.element.classList.add('is-last-user');
    this.lastUserTurnId = lastUser;
  }

  private refreshWelcome(): void {
    if (this.order.length === 0) this.welcomeSlot.replaceChildren(welcomeView(this.hasApiKey));
    else if (this.welcomeSlot.firstChild) this.welcomeSlot.replaceChildren();
  }

  private afterStructureChange(): void {
    this.refreshWelcome();
    this.events.streamingChanged(this.streamingIds.size > 0);
    this.events.turnCountChanged(this.order.length);
  }
}

/** Line height and characters per line of a reply in a narrow panel, for placeholders' sizes. */
const LINE_PX = 20;
const CHARS_PER_LINE = 60;

/**
 * About how tall a turn not yet rendered will be: its lines of text, tool cards and a header.
 * Scroll anchoring absorbs the difference when it renders.
 */
export function estimatedHeight(turn: Turn): number {
  const text = turn.content;
  let lines = 0;
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf('\n', start);
    const length = (end < 0 ? text.length : end) - start;
    lines += Math.max(1, Math.ceil(length / CHARS_PER_LINE));
    if (end < 0) break;
    start = end + 1;
  }
  const cards =
    turn.role === 'assistant'
      ? (turn.steps ?? []).reduce((sum, step) => sum + step.calls.length, 0) + (turn.toolCalls?.length ?? 0)
      : 0;
  return 40 + lines * LINE_PX + cards * 36;
}
