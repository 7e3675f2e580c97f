/**
 * The scrolling list of turns. It keeps every turn's data, but creates DOM lazily: a long
 * conversation shows its newest turns at once and renders older ones, newest first, in idle
 * time. Streamed text is rendered at most once per animation frame, for the turns that changed.
 */
import type { AgentProgress, AgentStep } from '../core/agent/types';
import type { Turn } from '../core/protocol/chatProtocol';
import { BottomStick } from './bottomStick';
import { h, iconButton, whenIdle } from './dom';
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
}

/** Rendering the newest turns of a conversation is synchronous up to this budget... */
const INITIAL_RENDER_BUDGET_MS = 16;
const INITIAL_MIN_TURNS = 2;
/** ...and the rest waits for idle time, in slices short enough not to delay input. */
const IDLE_SLICE_MS = 10;
/**
 * Rendering time per animation frame. Style, layout and paint of what was rendered follow in
 * the same task, so this stays well under the 50 ms that makes a task "long".
 */
const FRAME_BUDGET_MS = 10;

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
  /** Turns not rendered yet, oldest first; the last one is rendered next. */
  private notYetRendered: string[] = [];
  /** Bumped by every conversation switch, so idle work for the previous one stops. */
  private generation = 0;
  private readonly dirtyViews = new Set<TurnView>();
  private frameRequested = false;
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
    this.streamingIds.clear();
    this.lastUserTurnId = undefined;
    this.list.replaceChildren();
    for (const turn of turns) {
      this.entries.set(turn.id, { turn });
      if (turn.role === 'assistant' && turn.status === 'streaming') this.streamingIds.add(turn.id);
    }
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
   * not its "Allow" button, so a key pressed for something else approves nothing.
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
    if (!first.contains(document.activeElement)) first.focus({ preventScroll: false });
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
    if (view instanceof FailedTurnView) view.element.replaceWith(this.createView(turn.id).element);
    else if (view) this.guard(view, () => view.update(turn));
    if (turn.role === 'assistant' && turn.status === 'streaming') this.streamingIds.add(turn.id);
    else this.streamingIds.delete(turn.id);
    this.afterStructureChange();
    if (turn.role === 'assistant' && turn.steps?.length) this.focusAwaitingCard();
  }

  removeTurns(ids: string[]): void {
    const removed = new Set(ids);
    for (const id of ids) {
      this.entries.get(id)?.view?.element.remove();
      this.entries.delete(id);
      this.streamingIds.delete(id);
    }
    this.order = this.order.filter((id) => !removed.has(id));
    this.notYetRendered = this.notYetRendered.filter((id) => !removed.has(id));
    this.refreshLastUserTurn();
    this.afterStructureChange();
    this.syncBusy();
  }

  /** Creates and renders the view of a turn (or, if it cannot render, its placeholder). */
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
    entry.view = view;
    if (id === this.lastUserTurnId) view.element.classList.add('is-last-user');
    return view;
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
    this.dirtyViews.delete(old);
    this.syncBusy();
    if (old.element.isConnected) old.element.replaceWith(replacement.element);
    replacement.element.classList.toggle('is-last-user', old.id === this.lastUserTurnId);
  }

  private renderNewestTurns(): void {
    const deadline = performance.now() + INITIAL_RENDER_BUDGET_MS;
    const views: HTMLElement[] = [];
    while (
      this.notYetRendered.length > 0 &&
      (views.length < INITIAL_MIN_TURNS || performance.now() < deadline)
    ) {
      // A long turn renders as much as the budget allows; the rest follows in the next frames.
      views.unshift(this.createView(this.notYetRendered.pop() as string, deadline).element);
    }
    this.list.prepend(...views);
  }

  private renderOlderWhenIdle(generation: number): void {
    whenIdle((deadline) => {
      if (generation !== this.generation) return;
      const sliceEnd = performance.now() + Math.min(IDLE_SLICE_MS, deadline.timeRemaining());
      const views: HTMLElement[] = [];
      do {
        const id = this.notYetRendered.pop();
        if (id === undefined) break;
        views.unshift(this.createView(id, sliceEnd).element);
      } while (performance.now() < sliceEnd);
      // Scroll anchoring keeps what the user is reading in place while older turns appear above.
      this.list.prepend(...views);
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
    const busy = this.dirtyViews.size > 0 || this.notYetRendered.length > 0;
    if (busy === this.busy) return;
    this.busy = busy;
    this.scroller.setAttribute('aria-busy', String(busy));
  }

  private requestFrame(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => this.renderFrame());
  }

  /**
   * Renders what changed, within the frame's budget; views with text left stay dirty for the
   * next frame (oldest change first, so every turn gets its turn).
   */
  private renderFrame(): void {
    this.frameRequested = false;
    const deadline = performance.now() + FRAME_BUDGET_MS;
    for (const view of [...this.dirtyViews]) {
      if (performance.now() >= deadline) break;
      this.dirtyViews.delete(view);
      if (this.entries.get(view.id)?.view !== view) continue;
      let done = true;
      this.guard(view, () => {
        done = view.render(deadline);
      });
      if (!done) this.dirtyViews.add(view);
    }
    if (this.dirtyViews.size > 0) this.requestFrame();
    this.syncBusy();
    this.bottom.follow();
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
