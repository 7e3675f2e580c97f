/**
 * One tool call of an agent step, as a card: the tool, where it comes from, its state, how long
 * it ran, its arguments and its result (both folded), and, while it waits for the user, exactly
 * what would run and the buttons to allow or deny it.
 *
 * Every text here comes from the model, a tool or the host's description of them, and is set as
 * text (`textContent`), never parsed as markup: nothing in it can become an element, a link or a
 * button. The buttons are built here and post only for this card's call.
 */
import type { ApprovalChoice, Confirmation, ToolCallRecord, ToolCallState } from '../core/agent/types';
import { MAX_CARD_RESULT_CHARS, NO_ALWAYS_NOTE } from '../core/agent/types';
import { codicon, h, iconButton, spinner } from './dom';
import { postToHost } from './vscodeApi';

const STATE_LABELS: Record<ToolCallState, string> = {
  awaitingApproval: 'Awaiting approval',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  denied: 'Denied',
  cancelled: 'Cancelled',
};

const STATE_ICONS: Record<ToolCallState, string> = {
  awaitingApproval: 'shield',
  running: 'loading',
  done: 'check',
  failed: 'error',
  denied: 'circle-slash',
  cancelled: 'debug-stop',
};

type Choice = { choice: Exclude<ApprovalChoice, 'deny'>; text: string; label: string };

const CHOICES: readonly Choice[] = [
  { choice: 'once', text: 'Allow once', label: 'Allow this call once' },
  { choice: 'chat', text: 'Allow in this chat', label: 'Allow this tool for the rest of this chat' },
  {
    choice: 'always',
    text: 'Always allow this tool',
    label: 'Always allow this tool (a setting you can undo)',
  },
];

/** For a command: never the whole tool always, only this exact command line in this folder. */
const COMMAND_CHOICES: readonly Choice[] = [
  CHOICES[0],
  CHOICES[1],
  {
    choice: 'command',
    text: 'Always allow this exact command',
    label:
      'Always run this exact command line in this folder without asking (Gateway AI: Manage Commands the Agent Runs Without Asking removes it)',
  },
];

/** "850 ms", "12.3 s", "2 min 05 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Arguments as the model sent them: pretty JSON when they parse, else the raw text. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2) ?? text;
  } catch {
    return text;
  }
}

/** How a line of a unified diff is coloured. */
export function diffLineKind(line: string): 'add' | 'del' | 'hunk' | 'meta' | 'context' {
  if (line.startsWith('+++') || line.startsWith('---')) return 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('@@')) return 'hunk';
  return 'context';
}

/** A unified diff as lines of text, each coloured by its kind; its text is the diff, exactly. */
function diffView(diff: string): HTMLElement {
  const code = h('code');
  const lines = diff.split('\n');
  lines.forEach((line, index) => {
    const text = index < lines.length - 1 ? `${line}\n` : line;
    if (text) code.append(h('span', { className: `diff-line diff-${diffLineKind(line)}`, text }));
  });
  return h(
    'pre',
    { className: 'tool-diff', attrs: { tabindex: '0', 'aria-label': 'Proposed change' } },
    code,
  );
}

function preText(className: string, text: string, label: string): HTMLElement {
  return h('pre', { className, attrs: { tabindex: '0', 'aria-label': label } }, h('code', { text }));
}

function fact(label: string, value: string): HTMLElement {
  return h(
    'div',
    { className: 'tool-confirm-fact' },
    h('span', { className: 'tool-confirm-label', text: label }),
    h('span', { className: 'tool-confirm-value', text: value }),
  );
}

/** What will run, exactly as the host will run it. */
function confirmationView(confirmation: Confirmation, openDiff: () => void): HTMLElement {
  const box = h('div', { className: `tool-confirm tool-confirm-${confirmation.kind}` });
  switch (confirmation.kind) {
    case 'command':
      box.append(
        h('div', { className: 'tool-confirm-title', text: 'Run this command?' }),
        preText('tool-command', confirmation.command, 'Command line'),
        fact('In', confirmation.cwd || '(workspace folder)'),
        fact(
          'Timeout',
          confirmation.timeoutSeconds > 0 ? formatDuration(confirmation.timeoutSeconds * 1000) : 'none',
        ),
        h('div', {
          className: 'tool-confirm-note',
          text: 'Restore to here brings back only the files of this workspace. What the command does outside it (network, databases, other folders, installed software) cannot be undone.',
        }),
      );
      break;
    case 'edit': {
      const open = iconButton({ icon: 'diff', label: 'Open the diff in the editor', text: 'Open diff' });
      open.addEventListener('click', openDiff);
      const title = h(
        'div',
        { className: 'tool-confirm-title' },
        h('span', { text: confirmation.created ? 'Create this file?' : 'Change this file?' }),
      );
      box.append(
        title,
        h(
          'div',
          { className: 'tool-confirm-path' },
          codicon('file'),
          h('span', { className: 'tool-path', text: confirmation.path }),
          ...(confirmation.created ? [h('span', { className: 'tool-badge', text: 'new file' })] : []),
          open,
        ),
        // Named through a link: the file that is written.
        ...(confirmation.realPath ? [fact('Link to', confirmation.realPath)] : []),
        diffView(confirmation.diff),
      );
      break;
    }
    case 'tool':
      box.append(
        h('div', { className: 'tool-confirm-title', text: 'Call this tool?' }),
        fact('Tool', confirmation.name),
        fact('From', confirmation.source || '(unknown source)'),
        preText('tool-arguments', confirmation.arguments, 'Arguments'),
        ...(confirmation.noAlways && !confirmation.onceOnly
          ? [h('div', { className: 'tool-confirm-note', text: NO_ALWAYS_NOTE })]
          : []),
      );
      break;
  }
  // The host's reason for asking every time, as inert text.
  if (confirmation.why)
    box.append(
      h('div', { className: 'tool-confirm-why' }, codicon('shield'), h('span', { text: confirmation.why })),
    );
  return box;
}

export class ToolCard {
  readonly element: HTMLElement;
  private call: ToolCallRecord;
  private readonly stateIcon = h('span', { className: 'tool-state-icon' });
  private readonly stateLabel = h('span', { className: 'tool-state' });
  private readonly duration = h('span', { className: 'tool-duration' });
  private readonly sourceLabel = h('span', { className: 'tool-source' });
  private readonly argumentsCode = h('code');
  private readonly approval = h('div', { className: 'tool-approval' });
  private readonly reasonNote = h('div', { className: 'tool-reason' });
  /** The host's own word about the call (why it asks about a repeated call). */
  private readonly hostNote = h('div', { className: 'tool-note' });
  private readonly resultBlock = h('details', { className: 'tool-result' });
  private readonly resultCode = h('code');
  /** The confirmation on screen (as JSON): the host resends it with every update of the turn. */
  private shownConfirmation?: string;

  constructor(
    private readonly turnId: string,
    call: ToolCallRecord,
  ) {
    this.call = call;
    const name = h('span', { className: 'tool-name', text: call.name || '(unnamed tool)' });
    const header = h(
      'div',
      { className: 'tool-card-header' },
      this.stateIcon,
      name,
      this.sourceLabel,
      h('span', { className: 'tool-card-spacer' }),
      this.stateLabel,
      this.duration,
    );
    const args = h(
      'details',
      { className: 'tool-args' },
      h('summary', { text: 'Arguments' }),
      h('pre', { className: 'tool-arguments' }, this.argumentsCode),
    );
    this.resultBlock.append(
      h('summary', { text: 'Result' }),
      h('pre', { className: 'tool-output' }, this.resultCode),
    );
    this.element = h(
      'div',
      { className: 'tool-card', attrs: { role: 'group', tabindex: '-1' } },
      header,
      this.hostNote,
      this.approval,
      this.reasonNote,
      args,
      this.resultBlock,
    );
    this.element.dataset.callId = call.id;
    this.argumentsCode.textContent = prettyJson(call.arguments);
    this.render(undefined);
  }

  get state(): ToolCallState {
    return this.call.state;
  }

  get isAwaiting(): boolean {
    return this.call.state === 'awaitingApproval';
  }

  update(call: ToolCallRecord): void {
    const previous = this.call;
    if (call === previous) return;
    this.call = call;
    if (call.arguments !== previous.arguments) this.argumentsCode.textContent = prettyJson(call.arguments);
    this.render(previous);
  }

  /** The elapsed time of a running call, refreshed by the ticker. */
  tick(now: number): void {
    if (this.call.state === 'running' && this.call.startedAt !== undefined)
      this.duration.textContent = formatDuration(Math.max(0, now - this.call.startedAt));
  }

  private render(previous: ToolCallRecord | undefined): void {
    const call = this.call;
    const stateChanged = previous?.state !== call.state;
    if (stateChanged) {
      for (const state of Object.keys(STATE_LABELS)) this.element.classList.remove(`is-${state}`);
      this.element.classList.add(`is-${call.state}`);
      this.stateIcon.replaceChildren(call.state === 'running' ? spinner() : codicon(STATE_ICONS[call.state]));
      this.stateLabel.textContent = STATE_LABELS[call.state];
      this.element.setAttribute('aria-label', `Tool ${call.name}: ${STATE_LABELS[call.state]}`);
    }
    if (previous?.source !== call.source) this.sourceLabel.textContent = call.source ?? '';
    if (call.durationMs !== undefined) this.duration.textContent = formatDuration(call.durationMs);
    else if (call.state === 'running') this.tick(Date.now());
    else this.duration.textContent = '';

    if (call.state === 'awaitingApproval') {
      // Without the host's description, the tool's name and full arguments are what would run.
      const confirmation: Confirmation = call.confirmation ?? {
        kind: 'tool',
        name: call.name,
        source: call.source ?? '',
        arguments: prettyJson(call.arguments),
      };
      const shown = JSON.stringify(confirmation);
      if (shown !== this.shownConfirmation) {
        this.shownConfirmation = shown;
        this.showApproval(confirmation);
      }
    } else if (this.approval.firstChild) {
      this.approval.replaceChildren();
      this.shownConfirmation = undefined;
    }

    if (previous?.note !== call.note)
      this.hostNote.replaceChildren(
        ...(call.note ? [codicon('warning'), h('span', { text: call.note })] : []),
      );
    this.hostNote.hidden = !call.note;

    const reason = call.state === 'denied' && call.reason ? `Reason: ${call.reason}` : '';
    if (this.reasonNote.textContent !== reason) this.reasonNote.textContent = reason;
    this.reasonNote.hidden = !reason;

    if (previous?.result !== call.result) {
      const result = call.result ?? '';
      const cut =
        result.length >= MAX_CARD_RESULT_CHARS
          ? `\n… (shortened to ${MAX_CARD_RESULT_CHARS.toLocaleString('en-US')} characters)`
          : '';
      this.resultCode.textContent = result + cut;
    }
    this.resultBlock.hidden = call.result === undefined;
  }

  private showApproval(confirmation: Confirmation): void {
    const post = (choice: ApprovalChoice, reason?: string): void => {
      for (const button of this.approval.querySelectorAll('button, textarea'))
        button.setAttribute('disabled', '');
      const message = { type: 'toolDecision', turnId: this.turnId, callId: this.call.id, choice } as const;
      postToHost(reason ? { ...message, reason } : message);
    };
    const buttons = h('div', { className: 'tool-approval-buttons' });
    const choices = confirmation.onceOnly
      ? [CHOICES[0]]
      : confirmation.kind === 'command'
        ? COMMAND_CHOICES
        : confirmation.kind === 'tool' && confirmation.noAlways
          ? CHOICES.filter(({ choice }) => choice !== 'always')
          : CHOICES;
    choices.forEach(({ choice, text, label }, index) => {
      const button = iconButton({
        icon: index === 0 ? 'check' : index === 1 ? 'check-all' : 'pass-filled',
        label,
        text,
        className: index === 0 ? 'primary-button' : undefined,
      });
      button.addEventListener('click', () => post(choice));
      buttons.append(button);
    });
    const deny = iconButton({ icon: 'circle-slash', label: 'Deny this call', text: 'Deny…' });
    buttons.append(deny);

    const reasonInput = h('textarea', {
      className: 'tool-deny-input',
      attrs: { rows: '2', maxlength: '2000', placeholder: 'Optional: tell the model why' },
    });
    reasonInput.id = `deny-reason-${this.turnId}-${this.call.id}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const confirmDeny = iconButton({ icon: 'circle-slash', label: 'Deny, with this reason', text: 'Deny' });
    const cancel = iconButton({ icon: 'close', label: 'Back to the choices', text: 'Cancel' });
    const denyForm = h(
      'div',
      { className: 'tool-deny', attrs: { role: 'group', 'aria-label': 'Deny this call' } },
      h('label', { text: 'Reason (optional)', attrs: { for: reasonInput.id } }),
      reasonInput,
      h('div', { className: 'tool-approval-buttons' }, confirmDeny, cancel),
    );
    denyForm.hidden = true;
    const setDenying = (denying: boolean): void => {
      denyForm.hidden = !denying;
      buttons.hidden = denying;
      (denying ? reasonInput : deny).focus();
    };
    deny.addEventListener('click', () => setDenying(true));
    cancel.addEventListener('click', () => setDenying(false));
    confirmDeny.addEventListener('click', () => post('deny', reasonInput.value.trim() || undefined));
    denyForm.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        setDenying(false);
      } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && event.target === reasonInput) {
        event.preventDefault();
        confirmDeny.click();
      }
    });
    this.approval.replaceChildren(
      confirmationView(confirmation, () =>
        postToHost({ type: 'openToolDiff', turnId: this.turnId, callId: this.call.id }),
      ),
      buttons,
      denyForm,
    );
  }
}
