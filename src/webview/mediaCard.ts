/**
 * A media job's card in the transcript: the reply turn of a `/image …` prompt. The turn holds
 * only the job's id, kind and prompt; what the job is doing arrives as `mediaJob` messages and
 * is kept here per job, so a card rendered later (an older turn, a conversation reopened) shows
 * the latest state at once. Everything from outside is shown as text; results are local files,
 * by the resource URLs the host made.
 */
import type { AssistantTurn, Turn, WebviewMessage } from '../core/protocol/chatProtocol';
import { MEDIA_CARD_ACTIONS, REMOVED_STATUS } from '../core/protocol/mediaCardProtocol';
import type { MediaCardAction, MediaCardRef, MediaCardState } from '../core/protocol/mediaCardProtocol';
import { codicon, h, iconButton, spinner } from './dom';
import { COST_NOT_REPORTED, formatCost } from '../core/util/text';
import type { TurnView } from './turnViewType';

const states = new Map<string, MediaCardState>();
const views = new Map<string, Set<MediaCardView>>();
let ticker: ReturnType<typeof setInterval> | undefined;

const KIND_ICONS: Record<MediaCardRef['kind'], string> = {
  image: 'file-media',
  video: 'device-camera-video',
  audio: 'unmute',
  media: 'sparkle',
};

const BUTTONS: Record<MediaCardAction, { icon: string; label: string }> = {
  open: { icon: 'go-to-file', label: 'Open' },
  save: { icon: 'save', label: 'Save to Workspace' },
  insert: { icon: 'insert', label: 'Insert into Editor' },
  copyPath: { icon: 'copy', label: 'Copy Path' },
  rerun: { icon: 'refresh', label: 'Re-run' },
  variation: { icon: 'sparkle', label: 'Variation' },
};

const ACTION_PREFIX = 'media-';

function isRunning(state: MediaCardState | undefined): boolean {
  return (
    !!state &&
    !['completed', 'failed', 'cancelled', 'expired', 'unknown', REMOVED_STATUS].includes(state.status)
  );
}

/** `42 s`, `3 min 5 s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes} min ${seconds % 60} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A job's new state: kept for cards rendered later, and shown by those rendered now. */
export function applyMediaJob(state: MediaCardState): void {
  states.set(state.jobId, state);
  for (const view of views.get(state.jobId) ?? []) view.show(state);
  tick();
}

/** Elapsed times of running jobs move on once a second, while any is running on screen. */
function tick(): void {
  let running = false;
  for (const [jobId, cards] of views) {
    for (const view of cards) {
      if (!view.element.isConnected && view.rendered) cards.delete(view);
      else if (isRunning(states.get(jobId))) {
        running = true;
        view.refreshElapsed();
      }
    }
    if (cards.size === 0) views.delete(jobId);
  }
  if (running && !ticker) ticker = setInterval(tick, 1000);
  else if (!running && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

/** The message a card's button sends, or undefined when `action` is not a card's. */
export function mediaActionMessage(action: string, button: Element): WebviewMessage | undefined {
  if (!action.startsWith(ACTION_PREFIX)) return undefined;
  const name = action.slice(ACTION_PREFIX.length) as MediaCardAction;
  const jobId = button.closest<HTMLElement>('[data-job-id]')?.dataset.jobId;
  return jobId && MEDIA_CARD_ACTIONS.includes(name)
    ? { type: 'mediaAction', action: name, jobId }
    : undefined;
}

export class MediaCardView implements TurnView {
  readonly element: HTMLElement;
  /** Set once the element has been in the document, so a card not yet attached is kept. */
  rendered = false;
  private readonly status = h('div', { className: 'media-status', attrs: { role: 'status' } });
  private readonly outputs = h('div', { className: 'media-outputs' });
  private readonly actions = h('div', { className: 'media-actions' });
  private state: MediaCardState | undefined;

  constructor(
    public turn: AssistantTurn,
    private readonly media: MediaCardRef,
  ) {
    this.element = h(
      'article',
      { className: 'turn turn-assistant turn-media', attrs: { 'aria-label': `Media job: ${media.prompt}` } },
      h(
        'div',
        { className: 'media-header' },
        codicon(KIND_ICONS[media.kind]),
        h('span', { className: 'media-prompt', text: media.prompt }),
        h('span', { className: 'media-model', text: turn.model }),
      ),
      this.status,
      this.outputs,
      this.actions,
    );
    this.element.dataset.turnId = turn.id;
    this.element.dataset.jobId = media.jobId;
    let cards = views.get(media.jobId);
    if (!cards) views.set(media.jobId, (cards = new Set()));
    cards.add(this);
    this.show(states.get(media.jobId));
  }

  get id(): string {
    return this.turn.id;
  }

  update(turn: Turn): void {
    if (turn.role === 'assistant') this.turn = turn;
  }

  render(): boolean {
    this.rendered = true;
    return true;
  }

  /** Shows the job's state (or, before the first one arrives, that it is being looked up). */
  show(state: MediaCardState | undefined): void {
    const previous = this.state;
    this.state = state;
    const status = state?.status ?? 'loading';
    this.element.dataset.status = status;
    this.refreshElapsed();
    if (previous && state && sameOutputs(previous, state)) return;
    this.outputs.replaceChildren(...(state?.status === 'completed' ? this.outputViews(state) : []));
    this.actions.replaceChildren(...this.buttons(state));
  }

  refreshElapsed(): void {
    const state = this.state;
    const line = statusLine(state);
    this.status.replaceChildren(
      ...(isRunning(state) || !state ? [spinner()] : []),
      h('span', { text: line }),
    );
    this.status.className = `media-status status-${state?.status ?? 'loading'}`;
  }

  private outputViews(state: MediaCardState): HTMLElement[] {
    if (state.preparing && state.outputs.length === 0)
      return [h('p', { className: 'media-note', text: 'Getting the result ready…' })];
    return state.outputs.map((output, index) => {
      const label = `${this.media.prompt} (result ${index + 1})`;
      switch (output.kind) {
        case 'image':
          return h('img', {
            className: 'media-image',
            attrs: { src: output.src, alt: label, decoding: 'async' },
          });
        case 'video':
          return h('video', {
            className: 'media-video',
            attrs: { src: output.src, controls: '', preload: 'metadata', 'aria-label': label },
          });
        case 'audio':
          return h('audio', {
            className: 'media-audio',
            attrs: { src: output.src, controls: '', preload: 'metadata', 'aria-label': label },
          });
        case 'text':
          // Text from the gateway is text: never Markdown, HTML or links.
          return h('pre', { className: 'media-text', text: output.text });
        case 'file':
          return h('p', { className: 'media-note', text: output.note });
      }
    });
  }

  private buttons(state: MediaCardState | undefined): HTMLElement[] {
    if (!state || state.status === REMOVED_STATUS) return [];
    const completed = state.status === 'completed';
    const hasImage = state.outputs.some((output) => output.kind === 'image');
    const actions: MediaCardAction[] = completed
      ? ['open', 'save', 'insert', 'copyPath', 'rerun', ...(hasImage ? (['variation'] as const) : [])]
      : ['rerun'];
    return actions.map((action) =>
      iconButton({ ...BUTTONS[action], text: BUTTONS[action].label, action: `${ACTION_PREFIX}${action}` }),
    );
  }
}

function sameOutputs(a: MediaCardState, b: MediaCardState): boolean {
  return (
    a.status === b.status &&
    !!a.preparing === !!b.preparing &&
    JSON.stringify(a.outputs) === JSON.stringify(b.outputs)
  );
}

function statusLine(state: MediaCardState | undefined): string {
  if (!state) return 'Looking up the job…';
  switch (state.status) {
    case 'queued':
      return `Queued · ${formatElapsed(Date.now() - state.createdAt)}`;
    case 'processing': {
      const progress = state.progress !== undefined ? ` ${Math.round(state.progress * 100)}%` : '';
      return `Processing${progress} · ${formatElapsed(Date.now() - state.createdAt)}`;
    }
    case 'completed': {
      // A job the gateway priced at nothing says so; one it gave no price for is not $0.
      const cost = ` · ${state.cost !== undefined ? formatCost(state.cost) : COST_NOT_REPORTED}`;
      return state.finishedAt !== undefined
        ? `Completed in ${formatElapsed(state.finishedAt - state.createdAt)}${cost}`
        : `Completed${cost}`;
    }
    case 'failed':
      return `Failed: ${state.error ?? 'the gateway gave no reason.'}`;
    case 'cancelled':
      return `Cancelled at the gateway${state.error ? `: ${state.error}` : '.'}`;
    case 'expired':
      return `Expired at the gateway before its result was kept${state.error ? `: ${state.error}` : '.'}`;
    case 'unknown':
      return 'The gateway no longer knows this job.';
    case REMOVED_STATUS:
      return 'This job was removed from Media Jobs.';
    default:
      return `${state.status} · ${formatElapsed(Date.now() - state.createdAt)}`;
  }
}
