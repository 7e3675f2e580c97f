/**
 * One click listener for everything inside the transcript: links and the buttons on turns and
 * code blocks. Delegation keeps re-rendered Markdown free of listeners, and guarantees that no
 * link in model output ever navigates the webview: every click on an anchor is cancelled and,
 * if its scheme is allowed, handed to the host to open.
 */
import { errorActionMessage, isAllowedLink } from '../core/protocol/chatProtocol';
import type { ErrorAction, Turn } from '../core/protocol/chatProtocol';
import { CODE_ACTIONS, codeBlockOf } from './codeBlocks';
import { TURN_ACTIONS } from './turnParts';
import { mediaActionMessage } from './mediaCard';
import { rawTextOf } from './turnView';
import { postToHost } from './vscodeApi';

export interface TranscriptActionContext {
  turnById(id: string): Turn | undefined;
  editTurn(turnId: string, text: string): void;
}

function handleLink(anchor: HTMLAnchorElement): void {
  // The attribute, not `anchor.href`: resolving against the webview's own URL would turn
  // relative targets into webview-internal addresses.
  const href = anchor.getAttribute('href');
  if (href && isAllowedLink(href)) postToHost({ type: 'openLink', href });
}

function handleCodeAction(action: string, button: Element): void {
  const block = codeBlockOf(button);
  if (!block) return;
  if (action === CODE_ACTIONS.copy) postToHost({ type: 'copy', text: block.code });
  else if (action === CODE_ACTIONS.insert) postToHost({ type: 'insertCode', code: block.code });
  else if (action === CODE_ACTIONS.open)
    postToHost({ type: 'openCode', code: block.code, language: block.language });
}

function handleTurnAction(
  action: string,
  button: HTMLElement,
  turn: Turn,
  context: TranscriptActionContext,
): void {
  switch (action) {
    case TURN_ACTIONS.copy:
      postToHost({ type: 'copy', text: turn.content });
      break;
    case TURN_ACTIONS.copyRaw:
      postToHost({ type: 'copy', text: rawTextOf(turn) });
      break;
    case TURN_ACTIONS.retry:
      postToHost({ type: 'retry', turnId: turn.id });
      break;
    case TURN_ACTIONS.edit:
      if (turn.role === 'user') context.editTurn(turn.id, turn.content);
      break;
    case TURN_ACTIONS.restore:
      // The host lists the files and asks before anything changes.
      if (turn.role === 'user' && turn.checkpoint) postToHost({ type: 'restoreCheckpoint', turnId: turn.id });
      break;
    case TURN_ACTIONS.redo:
      if (turn.role === 'user' && turn.redoCheckpoint)
        postToHost({ type: 'redoCheckpoint', turnId: turn.id });
      break;
    case TURN_ACTIONS.runPlan:
      if (turn.role === 'assistant' && turn.plan) postToHost({ type: 'runPlan', turnId: turn.id });
      break;
    case TURN_ACTIONS.error: {
      const errorAction = button.dataset.errorAction as ErrorAction | undefined;
      if (errorAction) postToHost(errorActionMessage(errorAction, turn.id));
      break;
    }
  }
}

export function attachTranscriptActions(root: HTMLElement, context: TranscriptActionContext): void {
  root.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    const anchor = target.closest('a');
    if (anchor) {
      event.preventDefault();
      handleLink(anchor);
      return;
    }
    const button = target.closest<HTMLElement>('[data-action]');
    const action = button?.dataset.action;
    if (!button || !action) return;
    if (Object.values(CODE_ACTIONS).includes(action as never)) {
      handleCodeAction(action, button);
      return;
    }
    const media = mediaActionMessage(action, button);
    if (media) {
      postToHost(media);
      return;
    }
    const turnId = button.closest<HTMLElement>('[data-turn-id]')?.dataset.turnId;
    const turn = turnId ? context.turnById(turnId) : undefined;
    if (turn) handleTurnAction(action, button, turn, context);
  });
  // Middle clicks would otherwise open links in a new browser window.
  root.addEventListener('auxclick', (event) => {
    if (event.target instanceof Element && event.target.closest('a')) event.preventDefault();
  });
}
