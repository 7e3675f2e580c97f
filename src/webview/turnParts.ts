/**
 * The small, rarely changing parts of an assistant turn: tool calls, citations, the error box
 * and the footer. Each is rebuilt whole when the host updates the turn.
 */
import { isAllowedLink } from '../core/protocol/chatProtocol';
import type {
  AssistantTurn,
  Citation,
  ErrorAction,
  ToolCallView,
  TurnError,
  TurnUsage,
} from '../core/protocol/chatProtocol';
import { describeCost, formatCost } from '../core/util/text';
import { codicon, h, iconButton, spinner } from './dom';

export const TURN_ACTIONS = {
  copy: 'copy-turn',
  retry: 'retry-turn',
  edit: 'edit-turn',
  error: 'error-action',
  copyRaw: 'copy-raw-turn',
  restore: 'restore-checkpoint',
  redo: 'redo-checkpoint',
  runPlan: 'run-plan',
} as const;

const ERROR_ACTION_BUTTONS: Record<ErrorAction, { icon: string; text: string }> = {
  setApiKey: { icon: 'key', text: 'Set API Key' },
  retry: { icon: 'refresh', text: 'Retry' },
  openSettings: { icon: 'settings-gear', text: 'Open Settings' },
  selectModel: { icon: 'chevron-down', text: 'Select Model' },
  addCredits: { icon: 'credit-card', text: 'Add Credits' },
};

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function toolCallsView(toolCalls: ToolCallView[] | undefined): HTMLElement | undefined {
  if (!toolCalls || toolCalls.length === 0) return undefined;
  return h(
    'div',
    { className: 'tool-calls' },
    ...toolCalls.map((call) =>
      h(
        'div',
        { className: 'tool-call' },
        h('div', { className: 'tool-call-name' }, codicon('tools'), h('span', { text: call.name })),
        h('pre', { className: 'tool-call-arguments' }, h('code', { text: prettyArguments(call.arguments) })),
      ),
    ),
  );
}

/** The host a link goes to (or the whole target, for a link without one, such as mailto:). */
function linkHost(href: string): string {
  try {
    return new URL(href).host || href;
  } catch {
    return href;
  }
}

export function citationsView(citations: Citation[] | undefined): HTMLElement | undefined {
  const links = (citations ?? []).filter((citation) => isAllowedLink(citation.url));
  if (links.length === 0) return undefined;
  return h(
    'div',
    { className: 'citations' },
    h('div', { className: 'citations-title', text: 'Sources' }),
    h(
      'ol',
      {},
      ...links.map((citation) =>
        h(
          'li',
          {},
          // The title is the source's own words; the tooltip and the host beside it say where
          // the link really goes.
          h('a', {
            text: citation.title || citation.url,
            attrs: { href: citation.url, title: citation.url },
          }),
          ...(citation.title
            ? [h('span', { className: 'citation-host', text: ` (${linkHost(citation.url)})` })]
            : []),
        ),
      ),
    ),
  );
}

/** "Try again in N s", counting down while the note is on screen. */
function retryAfterNote(seconds: number): HTMLElement {
  const note = h('div', { className: 'error-retry-after' });
  const deadline = Date.now() + seconds * 1000;
  let wasShown = false;
  const tick = (): void => {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    note.textContent = left > 0 ? `Try again in ${left} s.` : 'You can try again now.';
    wasShown ||= note.isConnected;
    if (left > 0 && !(wasShown && !note.isConnected)) setTimeout(tick, 1000);
  };
  tick();
  return note;
}

export function errorView(error: TurnError | undefined): HTMLElement | undefined {
  if (!error) return undefined;
  const details = [error.status ? `HTTP ${error.status}` : '', error.provider ?? '']
    .filter(Boolean)
    .join(' · ');
  const box = h(
    'div',
    { className: 'turn-error', attrs: { role: 'alert' } },
    h('div', { className: 'error-message' }, codicon('error'), h('span', { text: error.message })),
  );
  if (details) box.append(h('div', { className: 'error-details', text: details }));
  if (error.retryAfter !== undefined && error.retryAfter > 0) box.append(retryAfterNote(error.retryAfter));
  if (error.actions.length > 0) {
    const actions = h('div', { className: 'error-actions' });
    for (const action of error.actions) {
      const spec = ERROR_ACTION_BUTTONS[action];
      if (!spec) continue;
      const button = iconButton({
        icon: spec.icon,
        label: spec.text,
        text: spec.text,
        action: TURN_ACTIONS.error,
      });
      button.dataset.errorAction = action;
      actions.append(button);
    }
    box.append(actions);
  }
  return box;
}

function usageParts(usage: TurnUsage | undefined): string[] {
  if (!usage) return [];
  const parts: string[] = [];
  const count = (value: number): string => value.toLocaleString('en-US');
  if (usage.promptTokens !== undefined) parts.push(`${count(usage.promptTokens)} in`);
  if (usage.cachedTokens) parts.push(`${count(usage.cachedTokens)} cached`);
  if (usage.cacheWriteTokens) parts.push(`${count(usage.cacheWriteTokens)} written to cache`);
  if (usage.completionTokens !== undefined) parts.push(`${count(usage.completionTokens)} out`);
  if (usage.reasoningTokens) parts.push(`${count(usage.reasoningTokens)} reasoning`);
  // A cost the gateway did not report is said so (or estimated), never shown as $0.
  if (
    parts.length ||
    usage.totalTokens !== undefined ||
    usage.cost !== undefined ||
    usage.estimatedCost !== undefined
  )
    parts.push(describeCost(usage));
  const saved = usage.cacheSavings;
  if (saved !== undefined && saved > 0) parts.push(`cache saved ${formatCost(saved)}`);
  else if (saved !== undefined && saved < 0) parts.push(`cache write +${formatCost(-saved)}`);
  return parts;
}

function statusView(turn: AssistantTurn): HTMLElement | undefined {
  switch (turn.status) {
    case 'streaming':
      return h('span', { className: 'turn-status' }, spinner(), h('span', { text: 'Generating…' }));
    case 'stopped':
      return h('span', { className: 'turn-status' }, codicon('debug-stop'), h('span', { text: 'Stopped' }));
    case 'error':
      return h(
        'span',
        { className: 'turn-status status-error' },
        codicon('error'),
        h('span', { text: 'Failed' }),
      );
    case 'complete':
      return turn.finishReason === 'length'
        ? h(
            'span',
            { className: 'turn-status status-warning' },
            codicon('warning'),
            h('span', { text: 'Cut off at the token limit' }),
          )
        : undefined;
  }
}

export function footerView(turn: AssistantTurn): HTMLElement {
  const meta = h('span', { className: 'turn-meta' });
  const status = statusView(turn);
  if (status) meta.append(status);
  const servedBy = turn.provider ? `served by ${turn.provider}` : '';
  const facts = [turn.model, servedBy, ...usageParts(turn.usage)].filter(Boolean);
  if (facts.length > 0) meta.append(h('span', { className: 'turn-facts', text: facts.join(' · ') }));

  const actions = h('span', { className: 'turn-actions' });
  if (turn.status === 'stopped')
    actions.append(iconButton({ icon: 'refresh', label: 'Retry', action: TURN_ACTIONS.retry }));
  if (turn.content.length > 0 && turn.status !== 'streaming') {
    actions.append(iconButton({ icon: 'copy', label: 'Copy reply', action: TURN_ACTIONS.copy }));
  }
  if (turn.plan && turn.status === 'complete' && turn.content.trim())
    actions.append(
      iconButton({
        icon: 'play',
        label: 'Hand this plan to Agent: it runs in a new turn',
        text: 'Run in Agent',
        action: TURN_ACTIONS.runPlan,
      }),
    );
  return h('div', { className: 'turn-footer' }, meta, actions);
}
