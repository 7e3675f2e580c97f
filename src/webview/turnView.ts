/**
 * One turn of the conversation on screen. User turns are plain text (never Markdown: it is what
 * the user typed). Assistant turns stream: text arrives through `appendDelta`, is rendered by
 * `render` on the next animation frame, and everything else is rebuilt by `update`.
 */
import type { AssistantTurn, Turn, UserTurn } from '../core/protocol/chatProtocol';
import { codicon, h, iconButton, spinner } from './dom';
import { StreamingMarkdown } from './streamingRenderer';
import { renderTurnContext } from './turnContext';
import { citationsView, errorView, footerView, toolCallsView, TURN_ACTIONS } from './turnParts';
import { MediaCardView } from './mediaCard';
import { AgentStepsView } from './agentSteps';
import type { ToolCard } from './toolCard';
import type { AgentProgress, AgentStep } from '../core/agent/types';
import type { TurnView } from './turnViewType';

export type { TurnView } from './turnViewType';

export class UserTurnView implements TurnView {
  readonly element: HTMLElement;
  private readonly text: HTMLElement;
  /** What the prompt carried, and whether it is left out of requests. */
  private readonly context = h('div', { className: 'turn-context' });
  /** *Restore to here* and *Redo*, or why there is no checkpoint. */
  private readonly checkpoint = h('div', { className: 'turn-checkpoint' });

  constructor(public turn: UserTurn) {
    this.text = h('div', { className: 'user-text', text: turn.content });
    const header = h(
      'div',
      { className: 'turn-header' },
      codicon('account'),
      h('span', { className: 'turn-author', text: 'You' }),
      iconButton({
        icon: 'edit',
        label: 'Edit and resend',
        action: TURN_ACTIONS.edit,
        className: 'edit-button',
      }),
    );
    this.element = h(
      'article',
      { className: 'turn turn-user', attrs: { 'aria-label': 'You' } },
      header,
      this.text,
      this.context,
      this.checkpoint,
    );
    this.element.dataset.turnId = turn.id;
    renderTurnContext(this.element, this.context, turn);
    this.renderCheckpoint(turn);
  }

  private renderCheckpoint(turn: UserTurn): void {
    const parts: HTMLElement[] = [];
    if (turn.checkpoint)
      parts.push(
        iconButton({
          icon: 'history',
          label: 'Restore the workspace files to how they were before this message',
          text: 'Restore to here',
          action: TURN_ACTIONS.restore,
          className: 'checkpoint-restore',
        }),
      );
    if (turn.redoCheckpoint)
      parts.push(
        iconButton({
          icon: 'redo',
          label: 'Put the files forward again, as they were before the restore',
          text: 'Redo',
          action: TURN_ACTIONS.redo,
          className: 'checkpoint-redo',
        }),
      );
    if (!turn.checkpoint && turn.checkpointNote)
      parts.push(h('span', { className: 'checkpoint-note', text: `No checkpoint: ${turn.checkpointNote}` }));
    this.checkpoint.replaceChildren(...parts);
    this.checkpoint.hidden = parts.length === 0;
  }

  get id(): string {
    return this.turn.id;
  }

  update(turn: Turn): void {
    if (turn.role !== 'user') return;
    if (turn.content !== this.turn.content) this.text.textContent = turn.content;
    if (turn.leftOut !== this.turn.leftOut || turn.attachments !== this.turn.attachments)
      renderTurnContext(this.element, this.context, turn);
    if (
      turn.checkpoint !== this.turn.checkpoint ||
      turn.redoCheckpoint !== this.turn.redoCheckpoint ||
      turn.checkpointNote !== this.turn.checkpointNote
    )
      this.renderCheckpoint(turn);
    this.turn = turn;
  }

  render(): boolean {
    return true;
  }
}

/** The collapsible "Reasoning" block: open while only reasoning streams, then folded away. */
class ReasoningBlock {
  readonly element: HTMLDetailsElement;
  readonly markdown = new StreamingMarkdown('reasoning-body');
  private readonly summaryLabel = h('span', { className: 'reasoning-label' });
  /** Once the user opens or closes the block, it stays the way they left it. */
  private userToggled = false;

  constructor(open: boolean) {
    const summary = h('summary', {}, this.summaryLabel);
    summary.addEventListener('click', () => {
      this.userToggled = true;
    });
    this.element = h('details', { className: 'reasoning' }, summary, this.markdown.element);
    this.element.open = open;
  }

  refresh(thinking: boolean, answerStarted: boolean): void {
    this.summaryLabel.replaceChildren(
      thinking ? spinner() : codicon('lightbulb'),
      h('span', { text: thinking ? 'Thinking…' : 'Reasoning' }),
    );
    if (answerStarted && this.element.open && !this.userToggled) this.element.open = false;
  }
}

export class AssistantTurnView implements TurnView {
  readonly element: HTMLElement;
  turn: AssistantTurn;
  private readonly content = new StreamingMarkdown('reply');
  private reasoning?: ReasoningBlock;
  /** Tool calls, citations, error and footer: rebuilt by `update`. */
  private readonly details = h('div', { className: 'turn-details' });
  /** Whether the reply is left out of requests. */
  private readonly context = h('div', { className: 'turn-context' });
  /** The agent loop's steps and their tool cards, before the answer; its counter and undo after. */
  private readonly agent: AgentStepsView;

  constructor(
    turn: AssistantTurn,
    private readonly requestRender: (view: TurnView) => void,
  ) {
    this.turn = { ...turn };
    this.agent = new AgentStepsView(turn.id);
    this.element = h(
      'article',
      { className: 'turn turn-assistant', attrs: { 'aria-label': 'Reply' } },
      this.agent.element,
      this.content.element,
      this.agent.summary,
      this.details,
      this.context,
    );
    this.element.dataset.turnId = turn.id;
    this.appendReasoning(turn.reasoning);
    this.agent.sync(turn.steps);
    this.content.append(turn.content);
    this.rebuildDetails();
  }

  /** The first tool card waiting for the user, if any. */
  get awaitingCard(): ToolCard | undefined {
    return this.agent.awaitingCard;
  }

  /** One step changed (its text ended, or a call changed state): only its part is touched. */
  applyStep(index: number, step: AgentStep, progress: AgentProgress): void {
    const steps = (this.turn.steps ?? []).slice();
    steps[index] = step;
    for (let fill = 0; fill < steps.length; fill++) steps[fill] ??= { content: '', calls: [] };
    this.turn.steps = steps;
    this.turn.agent = progress;
    if (this.agent.setStep(index, step)) this.requestRender(this);
    this.agent.syncSummary(this.turn, progress);
  }

  get id(): string {
    return this.turn.id;
  }

  appendDelta(content: string | undefined, reasoning: string | undefined): void {
    if (content) {
      this.turn.content += content;
      this.content.append(content);
    }
    if (reasoning) {
      this.turn.reasoning += reasoning;
      this.appendReasoning(reasoning);
    }
    this.requestRender(this);
  }

  update(turn: Turn): void {
    if (turn.role !== 'assistant') return;
    const previous = this.turn;
    this.turn = { ...turn };
    syncText(this.content, previous.content, turn.content);
    if (this.reasoning) syncText(this.reasoning.markdown, previous.reasoning, turn.reasoning);
    else this.appendReasoning(turn.reasoning);
    this.agent.sync(turn.steps);
    this.rebuildDetails();
    this.requestRender(this);
  }

  render(deadline = Infinity): boolean {
    const complete = this.turn.status !== 'streaming';
    let done = this.agent.render(deadline);
    if (this.reasoning) {
      // An agent step that ends takes its reasoning along; the next step's starts afresh.
      this.reasoning.element.hidden = !this.reasoning.markdown.hasText;
      if (done) done = this.reasoning.markdown.render(complete, deadline);
      this.reasoning.refresh(!complete && !this.content.hasText, this.content.hasText || complete);
    }
    if (done) done = this.content.render(complete, deadline);
    // The bench and tests wait for this to go before they call a reply fully rendered.
    this.element.toggleAttribute('data-render-pending', !done);
    return done;
  }

  private appendReasoning(text: string): void {
    if (!text) return;
    if (!this.reasoning) {
      const onlyReasoningSoFar = this.turn.status === 'streaming' && !this.content.hasText;
      this.reasoning = new ReasoningBlock(onlyReasoningSoFar);
      // Just above the answer: after an agent's steps, it is the current step's thinking.
      this.content.element.before(this.reasoning.element);
    }
    this.reasoning.markdown.append(text);
  }

  private rebuildDetails(): void {
    const turn = this.turn;
    this.element.classList.toggle('is-streaming', turn.status === 'streaming');
    // Screen readers wait for aria-busy to clear instead of reading every streamed fragment.
    this.element.setAttribute('aria-busy', String(turn.status === 'streaming'));
    const parts = [
      toolCallsView(turn.toolCalls),
      citationsView(turn.citations),
      errorView(turn.error),
      footerView(turn),
    ];
    this.details.replaceChildren(...parts.filter((part): part is HTMLElement => part !== undefined));
    this.agent.syncSummary(turn, turn.agent);
    renderTurnContext(this.element, this.context, turn);
  }
}

/** Brings streamed text in line with the host's copy: extend it, or start over if it diverged. */
function syncText(markdown: StreamingMarkdown, shown: string, latest: string): void {
  if (latest === shown) return;
  if (latest.startsWith(shown)) markdown.append(latest.slice(shown.length));
  else markdown.reset(latest);
}

/**
 * What a turn that failed to render shows instead: a short note and a way to get its text
 * out. The rest of the chat renders as usual.
 */
export class FailedTurnView implements TurnView {
  readonly element: HTMLElement;

  constructor(public turn: Turn) {
    this.element = h(
      'article',
      {
        className: `turn turn-failed turn-${turn.role}`,
        attrs: { 'aria-label': turn.role === 'user' ? 'You' : 'Reply' },
      },
      h(
        'div',
        { className: 'turn-failed-note' },
        codicon('warning'),
        h('span', { text: 'This message could not be shown.' }),
        iconButton({ icon: 'copy', label: 'Copy raw text', text: 'Copy raw', action: TURN_ACTIONS.copyRaw }),
      ),
    );
    this.element.dataset.turnId = turn.id;
  }

  get id(): string {
    return this.turn.id;
  }

  update(turn: Turn): void {
    this.turn = turn;
  }

  render(): boolean {
    return true;
  }
}

/** The text "Copy raw" copies: the turn's own text, or all of it when it has none. */
export function rawTextOf(turn: Turn): string {
  if (turn.content) return turn.content;
  return turn.role === 'assistant' && turn.reasoning ? turn.reasoning : JSON.stringify(turn, null, 2);
}

export function createTurnView(turn: Turn, requestRender: (view: TurnView) => void): TurnView {
  if (turn.role === 'assistant' && turn.media) return new MediaCardView(turn, turn.media);
  return turn.role === 'user' ? new UserTurnView(turn) : new AssistantTurnView(turn, requestRender);
}
