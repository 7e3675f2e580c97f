/**
 * The agent loop's part of a reply: each step's text and a card per tool call, the turn's live
 * counter (steps, tokens, cost), and *Undo this turn* once it has edited files.
 *
 * A turn may have fifty steps or more, and the host sends the whole turn again whenever a step
 * ends. So nothing is rebuilt wholesale: a step's Markdown is rendered once (it never changes
 * after the step ends), cards are kept by call id and update only the parts whose data changed,
 * and a step whose data is the same object as before is skipped.
 */
import type { AgentPause, AgentProgress, AgentStep, ToolCallRecord } from '../core/agent/types';
import type { AssistantTurn } from '../core/protocol/chatProtocol';
import { pauseSubject } from '../core/agent/agentRequest';
import { COST_NOT_REPORTED, ESTIMATE_NOTE, formatCost } from '../core/util/text';
import { codicon, h, iconButton, spinner } from './dom';
import { StreamingMarkdown } from './streamingRenderer';
import { ToolCard } from './toolCard';
import { postToHost } from './vscodeApi';

/** Refreshes the elapsed time of running cards once a second, while any is on screen. */
const runningCards = new Set<ToolCard>();
let ticker: ReturnType<typeof setInterval> | undefined;

function watchRunning(card: ToolCard): void {
  if (card.state === 'running') runningCards.add(card);
  else runningCards.delete(card);
  if (runningCards.size > 0 && ticker === undefined) {
    ticker = setInterval(() => {
      const now = Date.now();
      for (const running of runningCards) {
        if (running.state !== 'running' || !running.element.isConnected) runningCards.delete(running);
        else running.tick(now);
      }
      if (runningCards.size === 0) {
        clearInterval(ticker);
        ticker = undefined;
      }
    }, 1000);
  }
}

class StepView {
  readonly element: HTMLElement;
  readonly markdown = new StreamingMarkdown('step-text');
  private readonly cards = new Map<string, ToolCard>();
  private readonly cardList = h('div', { className: 'tool-cards' });
  private readonly reasoning = h('details', { className: 'step-reasoning' });
  private step?: AgentStep;

  constructor(private readonly turnId: string) {
    this.reasoning.hidden = true;
    this.element = h(
      'div',
      { className: 'agent-step' },
      this.reasoning,
      this.markdown.element,
      this.cardList,
    );
  }

  /** Returns whether its Markdown has text left to render. */
  update(step: AgentStep): boolean {
    const previous = this.step;
    if (previous === step) return false;
    this.step = step;
    if (previous?.reasoning !== step.reasoning && step.reasoning) {
      // The model's thinking before the calls, folded; plain text (it is never a reply).
      this.reasoning.replaceChildren(
        h('summary', {}, codicon('lightbulb'), h('span', { text: 'Reasoning' })),
        h('div', { className: 'step-reasoning-text', text: step.reasoning }),
      );
      this.reasoning.hidden = false;
    }
    let pending = false;
    if (previous?.content !== step.content) {
      this.markdown.reset(step.content);
      pending = true;
    }
    this.syncCards(step.calls);
    return pending;
  }

  get awaitingCard(): ToolCard | undefined {
    for (const card of this.cards.values()) if (card.isAwaiting) return card;
    return undefined;
  }

  private syncCards(calls: ToolCallRecord[]): void {
    let before: Element | null = this.cardList.firstElementChild;
    const seen = new Set<string>();
    for (const call of calls) {
      seen.add(call.id);
      let card = this.cards.get(call.id);
      if (card) card.update(call);
      else {
        card = new ToolCard(this.turnId, call);
        this.cards.set(call.id, card);
      }
      watchRunning(card);
      // Keep the host's order without moving cards that are already in place.
      if (card.element !== before) this.cardList.insertBefore(card.element, before);
      before = card.element.nextElementSibling;
    }
    for (const [id, card] of this.cards)
      if (!seen.has(id)) {
        card.element.remove();
        this.cards.delete(id);
        runningCards.delete(card);
      }
  }
}

export class AgentStepsView {
  /** The steps, before the final answer. */
  readonly element = h('div', { className: 'agent-steps' });
  /** The counter and *Undo this turn*, after the answer. */
  readonly summary = h('div', { className: 'agent-summary' });
  private readonly steps: StepView[] = [];
  /** Steps whose Markdown still has text to render. */
  private readonly pending = new Set<StepView>();
  private summaryKey = '';
  private undoButton?: HTMLButtonElement;

  constructor(private readonly turnId: string) {
    this.element.hidden = true;
    this.summary.hidden = true;
  }

  /** Brings the steps in line with the turn's; returns whether Markdown waits to be rendered. */
  sync(steps: AgentStep[] | undefined): boolean {
    const list = steps ?? [];
    list.forEach((step, index) => this.setStep(index, step));
    for (const extra of this.steps.splice(list.length)) {
      extra.element.remove();
      this.pending.delete(extra);
    }
    this.element.hidden = this.steps.length === 0;
    return this.pending.size > 0;
  }

  setStep(index: number, step: AgentStep): boolean {
    let view = this.steps[index];
    if (!view) {
      // A step may arrive before the ones before it (messages are not lost, but be tolerant).
      while (this.steps.length <= index) {
        const created = new StepView(this.turnId);
        this.steps.push(created);
        this.element.append(created.element);
      }
      view = this.steps[index];
    }
    if (view.update(step)) this.pending.add(view);
    this.element.hidden = false;
    return this.pending.size > 0;
  }

  /** Renders steps' text until `deadline`; false when some is left for the next frame. */
  render(deadline: number): boolean {
    for (const view of this.pending) {
      if (!view.markdown.render(true, deadline)) return false;
      this.pending.delete(view);
    }
    return true;
  }

  /** The first card waiting for the user's answer, in the order of the steps. */
  get awaitingCard(): ToolCard | undefined {
    for (const view of this.steps) {
      const card = view.awaitingCard;
      if (card) return card;
    }
    return undefined;
  }

  /** The live counter while the loop runs; the totals and *Undo this turn* once it ended. */
  syncSummary(turn: AssistantTurn, progress: AgentProgress | undefined): void {
    const streaming = turn.status === 'streaming';
    const edited = turn.edited ?? [];
    const key = JSON.stringify([streaming, progress, edited, turn.undone]);
    if (key === this.summaryKey) {
      // The host answered an undo without undoing (the user kept their own changes): try again.
      if (this.undoButton) this.undoButton.disabled = false;
      return;
    }
    this.summaryKey = key;
    const parts: HTMLElement[] = [];
    if (progress && (streaming || progress.steps > 0)) parts.push(counterView(progress, streaming));
    if (progress?.pause && streaming)
      parts.push(pauseView(turn.id, progress.pause, progress.costEstimated === true));
    this.undoButton = undefined;
    if (edited.length > 0 && !streaming) {
      const undo = undoView(turn.id, edited, turn.undone === true);
      this.undoButton = undo.button;
      parts.push(undo.element);
    }
    this.summary.replaceChildren(...parts);
    this.summary.hidden = parts.length === 0;
  }
}

function counterView(progress: AgentProgress, running: boolean): HTMLElement {
  const tokens = progress.promptTokens + progress.completionTokens;
  const facts = [
    `${progress.steps} ${progress.steps === 1 ? 'step' : 'steps'}`,
    `${tokens.toLocaleString('en-US')} tokens`,
    ...(progress.cost !== undefined || progress.costCap !== undefined
      ? [
          // `~`: part of it is tokens × the catalog's price, where the gateway reported no cost.
          `${progress.costEstimated ? '~' : ''}${formatCost(progress.cost ?? 0)}${
            progress.costCap !== undefined ? ` of ${formatCost(progress.costCap)}` : ''
          }${progress.costEstimated ? ' (estimated)' : ''}`,
        ]
      : []),
    // Tokens but no cost and no price: the cost is unknown, not $0.
    ...(progress.costUnreported && progress.cost === undefined ? [COST_NOT_REPORTED] : []),
  ].join(' · ');
  return h(
    'div',
    {
      className: `agent-counter${running ? ' is-running' : ''}`,
      // Not a live region: it changes with every step, and the cards are what matters.
      attrs: { title: 'This turn so far: steps, tokens and cost' },
    },
    running ? spinner() : codicon('pulse'),
    h('span', { text: running ? `Working: ${facts}` : facts }),
  );
}

/** A turn paused at a cap: what was spent against which cap, and Continue or Stop. */
function pauseView(turnId: string, pause: AgentPause, estimated: boolean): HTMLElement {
  const base =
    pause.kind === 'steps'
      ? `The turn has taken ${pause.spent} steps, the limit (gateway.agent.maxSteps). Continue for as many again?`
      : pause.kind === 'turnCost'
        ? `This turn has spent ${formatCost(pause.spent)}; ${pauseSubject(pause)} would pass its cap of ${formatCost(pause.cap)} (gateway.agent.maxTurnCost). Continue for another ${formatCost(pause.cap)}?`
        : `Today's spending is ${formatCost(pause.spent)}; ${pauseSubject(pause)} would pass the daily cap of ${formatCost(pause.cap)} (gateway.agent.maxDailyCost). Continue this turn?`;
  const message =
    estimated && pause.kind !== 'steps' ? `${base} (Part of the spending is ${ESTIMATE_NOTE}.)` : base;
  const decide = (choice: 'continue' | 'stop', buttons: HTMLButtonElement[]) => {
    for (const button of buttons) button.disabled = true;
    postToHost({ type: 'agentPauseDecision', turnId, choice });
  };
  const goOn = iconButton({ icon: 'debug-continue', label: 'Continue the turn', text: 'Continue' });
  const stop = iconButton({ icon: 'debug-stop', label: 'Stop the turn here', text: 'Stop' });
  goOn.classList.add('agent-pause-continue');
  stop.classList.add('agent-pause-stop');
  goOn.addEventListener('click', () => decide('continue', [goOn, stop]));
  stop.addEventListener('click', () => decide('stop', [goOn, stop]));
  return h(
    'div',
    { className: `agent-pause kind-${pause.kind}`, attrs: { role: 'alert' } },
    codicon(pause.kind === 'steps' ? 'debug-pause' : 'credit-card'),
    h('span', { className: 'agent-pause-message', text: message }),
    h('div', { className: 'agent-pause-actions' }, goOn, stop),
  );
}

function undoView(
  turnId: string,
  files: string[],
  undone: boolean,
): { element: HTMLElement; button?: HTMLButtonElement } {
  const count = `${files.length} ${files.length === 1 ? 'file' : 'files'}`;
  const list = h(
    'details',
    { className: 'agent-edited-files' },
    h('summary', { text: undone ? `Restored ${count}` : `Changed ${count}` }),
    h('ul', {}, ...files.map((file) => h('li', { text: file }))),
  );
  const box = h('div', { className: `agent-undo${undone ? ' is-undone' : ''}` }, list);
  if (undone) {
    box.prepend(
      h('span', { className: 'agent-undone-note' }, codicon('discard'), h('span', { text: 'Undone' })),
    );
    return { element: box };
  }
  const button = iconButton({
    icon: 'discard',
    label: `Undo this turn: restore ${count} as they were before it`,
    text: 'Undo this turn',
  });
  button.addEventListener('click', () => {
    button.disabled = true;
    postToHost({ type: 'undoTurn', turnId });
  });
  box.prepend(button);
  return { element: box, button };
}
