import * as vscode from 'vscode';
import type { ApprovalDecision, PreparedCall, ToolCallRecord, ToolSpec } from '../../core/agent/types';
import {
  RUN_COMMAND,
  approvalKey,
  commandAllowed,
  mayAlwaysAllow,
  parseAllowedCommands,
  withAllowedCommand,
} from '../../core/agent/approvalPolicy';
import type { AllowedCommand } from '../../core/agent/approvalPolicy';
import { Setting, StorageKey } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import { visibleText } from '../../core/agent/hiddenText';
import { notify } from '../notify';

/** The scheme of the read-only documents the edit diffs show. */
export const DIFF_SCHEME = 'gateway-agent-diff';
/** Most diff documents kept for reopening; the oldest go first. */
const MAX_DIFF_DOCS = 200;

/**
 * Who may run what without asking, and the pending questions. Decisions come only from the
 * user's click in the chat view (a `toolDecision` message naming a call that is waiting right
 * now); nothing a model or a tool writes reaches here.
 */
export class Approvals extends Disposable {
  private readonly pending = new Map<string, { turnId: string; resolve: (d: ApprovalDecision) => void }>();
  /** Tool names allowed for the rest of a chat, by chat id (this window, this session). */
  private readonly allowedInChat = new Map<string, Set<string>>();
  private readonly diffs: DiffDocuments;

  /** The stored *Always allow* entries the log said once are ignored (run_command, other sources' tools). */
  private readonly toldIgnored = new Set<string>();

  constructor(
    private readonly reveal: () => void,
    private readonly logger: Pick<Logger, 'warn'>,
    /** Where the exact commands allowed always are kept (the extension's global state). */
    private readonly state: vscode.Memento,
    private readonly settings: Settings,
  ) {
    super();
    this.diffs = this.register(new DiffDocuments());
    this.register({ dispose: () => this.cancelAll() });
  }

  /**
   * The host's policy: our own reads inside the workspace run; everything else asks, unless the
   * user allowed the tool in this chat or always (`gateway.agent.alwaysAllow`, user settings only).
   */
  needsApproval(chatId: string, spec: ToolSpec, call: ToolCallRecord, prepared: PreparedCall): boolean {
    // An edit that can make something run later (tasks, hooks, CI), and a read of a file that
    // holds a private key, ask every time: the tool judged the file by its real path and its
    // content when it prepared the call.
    if (prepared.alwaysAsk) return true;
    if (spec.readOnly && spec.source.kind === 'builtin') return false;
    const key = approvalKey(spec);
    if (this.allowedInChat.get(chatId)?.has(key)) return false;
    if (!mayAlwaysAllow(spec)) {
      // Earlier versions offered *Always allow* for run_command and for other extensions' and MCP
      // servers' tools: such an entry ran them in every later workspace. It is ignored.
      if (this.settings.current.agent.alwaysAllow.includes(key) && !this.toldIgnored.has(key)) {
        this.toldIgnored.add(key);
        this.logger.warn(
          spec.source.kind === 'builtin'
            ? `${Setting.agentAlwaysAllow} lists ${RUN_COMMAND}: it is ignored, so each command asks first. Use "Always allow this exact command" on a command's confirmation to skip asking for one command line.`
            : `${Setting.agentAlwaysAllow} lists ${key}: it is ignored, so that tool asks first (tools of other extensions and MCP servers are allowed once or in a chat, never always).`,
        );
      }
      // Only our own run_command has exact commands remembered.
      return !(
        spec.source.kind === 'builtin' &&
        spec.name === RUN_COMMAND &&
        commandAllowed(this.allowedCommands(), call.confirmation)
      );
    }
    return !this.settings.current.agent.alwaysAllow.includes(key);
  }

  /** The exact commands allowed always, oldest first. */
  allowedCommands(): AllowedCommand[] {
    return parseAllowedCommands(this.state.get<unknown>(StorageKey.agentAllowedCommands));
  }

  /** Forgets exact commands the user allowed always. */
  async forgetCommands(entries: readonly AllowedCommand[]): Promise<void> {
    const left = this.allowedCommands().filter(
      (kept) => !entries.some((gone) => gone.command === kept.command && gone.cwd === kept.cwd),
    );
    await this.state.update(StorageKey.agentAllowedCommands, left);
  }

  /**
   * Lists the commands the agent runs without asking, in a quick pick; the ones the user picks
   * are forgotten (asked about again).
   */
  async manageAllowedCommands(): Promise<void> {
    const list = this.allowedCommands();
    if (list.length === 0) {
      await notify.info(
        'Gateway AI: the agent asks before every command: no command is allowed always. "Always allow this exact command" on a confirmation adds one here.',
      );
      return;
    }
    const picked = await vscode.window.showQuickPick(
      list.map((entry) => ({
        label: visibleText(entry.command),
        description: entry.cwd,
        entry,
      })),
      {
        canPickMany: true,
        title: 'Commands the agent runs without asking',
        placeHolder: 'Pick the commands to ask about again, then press Enter',
      },
    );
    if (!picked?.length) return;
    await this.forgetCommands(picked.map((item) => item.entry));
  }

  /** Asks the user about `call` in its card (and opens an edit's diff); settles on their click. */
  async ask(
    chatId: string,
    turnId: string,
    spec: ToolSpec,
    call: ToolCallRecord,
    prepared: PreparedCall,
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    this.reveal();
    if (prepared.preview)
      this.diffs
        .show(call.id, prepared.preview, true)
        .catch((error: unknown) => this.logger.warn(`The edit's diff did not open: ${String(error)}`));
    const decision = await new Promise<ApprovalDecision>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(call.id);
        reject(new Error('The turn was stopped.'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(call.id, {
        turnId,
        resolve: (d) => {
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
    }).finally(() => {
      // Decided (or stopped): the edit is no longer a proposal, so its diff tab goes. The card's
      // own button opens the diff again.
      if (prepared.preview)
        this.diffs
          .close(call.id)
          .catch((error: unknown) => this.logger.warn(`The edit's diff did not close: ${String(error)}`));
    });
    // A repeated call was asked about for being repeated, a sensitive edit for what it edits:
    // allowing either allows that once.
    if (call.note || prepared.alwaysAsk) return decision.choice === 'deny' ? decision : { choice: 'once' };
    // Never offered for a command, and never taken for one (a view could still send it).
    if (decision.choice === 'always' && !mayAlwaysAllow(spec)) return { choice: 'once' };
    if (decision.choice === 'command') {
      const confirmation = call.confirmation;
      if (spec.source.kind !== 'builtin' || spec.name !== RUN_COMMAND || confirmation?.kind !== 'command')
        return { choice: 'once' };
      // The call runs either way: the user allowed it. Only remembering it may fail.
      await this.state
        .update(
          StorageKey.agentAllowedCommands,
          withAllowedCommand(this.allowedCommands(), {
            command: confirmation.command,
            cwd: confirmation.cwd,
          }),
        )
        .then(undefined, (error: unknown) =>
          this.logger.warn(`The command could not be remembered as allowed: ${String(error)}`),
        );
      return decision;
    }
    const key = approvalKey(spec);
    if (decision.choice === 'chat') {
      const allowed = this.allowedInChat.get(chatId) ?? new Set<string>();
      allowed.add(key);
      this.allowedInChat.set(chatId, allowed);
    } else if (decision.choice === 'always')
      // The call runs either way: the user allowed it. Only remembering it may fail.
      await this.alwaysAllow(key).catch(
        (error: unknown) =>
          void notify.warn(
            `Gateway AI: ${key} could not be added to ${Setting.agentAlwaysAllow}: ${String(error)}`,
          ),
      );
    return decision;
  }

  /** The user's click. Ignored unless that very call of that turn is waiting. */
  decide(turnId: string, callId: string, decision: ApprovalDecision): boolean {
    const waiting = this.pending.get(callId);
    if (!waiting || waiting.turnId !== turnId) return false;
    this.pending.delete(callId);
    waiting.resolve(decision);
    return true;
  }

  /** Shows a proposed or applied edit again. */
  openDiff(callId: string, fallback?: { path: string; folder: number; before: string; after: string }): void {
    this.diffs
      .show(callId, fallback, false)
      .catch((error: unknown) => this.logger.warn(`The edit's diff did not open: ${String(error)}`));
  }

  private async alwaysAllow(name: string): Promise<void> {
    const list = this.settings.current.agent.alwaysAllow;
    if (list.includes(name)) return;
    await vscode.workspace
      .getConfiguration()
      .update(Setting.agentAlwaysAllow, [...list, name], vscode.ConfigurationTarget.Global);
  }

  private cancelAll(): void {
    for (const { resolve } of this.pending.values())
      resolve({ choice: 'deny', reason: 'The chat was closed.' });
    this.pending.clear();
  }
}

/** Read-only documents for the before and after of each edit, shown in VS Code's diff editor. */
class DiffDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly previews = new Map<
    string,
    { path: string; folder: number; before: string; after: string }
  >();

  constructor() {
    super();
    this.register(vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  async show(
    callId: string,
    preview: { path: string; folder: number; before: string; after: string } | undefined,
    preserveFocus: boolean,
  ): Promise<void> {
    const known = preview ?? this.previews.get(callId);
    if (!known) return;
    this.previews.set(callId, known);
    while (this.previews.size > MAX_DIFF_DOCS) this.forget(this.previews.keys().next().value as string);
    const name = known.path.split('/').pop() || known.path;
    // A fresh name each time: the editor never shows an older text cached under the same one.
    const nonce = `${callId}-${Math.random().toString(36).slice(2, 10)}`;
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${nonce}/before/${known.path}` });
    const right = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${nonce}/after/${known.path}` });
    this.texts.set(left.toString(), known.before);
    this.texts.set(right.toString(), known.after);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (proposed edit)`, {
      preview: true,
      preserveFocus,
    });
  }

  /** Closes the diff tabs `show` opened for `callId` (none of the user's own). */
  async close(callId: string): Promise<void> {
    const ours = (uri: vscode.Uri) => uri.scheme === DIFF_SCHEME && uri.path.startsWith(`/${callId}-`);
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && ours(tab.input.modified));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
  }

  private forget(callId: string): void {
    this.previews.delete(callId);
    for (const key of [...this.texts.keys()]) if (key.includes(`/${callId}-`)) this.texts.delete(key);
  }
}
