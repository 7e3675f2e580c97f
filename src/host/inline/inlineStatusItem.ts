import * as vscode from 'vscode';
import { Command, UiId } from '../../core/ids';
import { tallyCostText } from '../../core/inline/tally';
import type { InlineTally } from '../../core/inline/tally';
import { Disposable } from '../../core/util/lifecycle';
import { inertText } from '../../core/util/text';

export interface InlineStatus {
  enabled: boolean;
  /** Date.now() until which they are snoozed; undefined when not. */
  snoozedUntil: number | undefined;
  busy: boolean;
  paused: boolean;
  tally: InlineTally;
  /** The model in use, when known. */
  model: string | undefined;
}

/** On, off, snoozed, busy or paused; today's accepted count and cost. Click: the menu. */
export class InlineStatusItem extends Disposable {
  private readonly item = this.register(
    vscode.window.createStatusBarItem(UiId.inlineStatus, vscode.StatusBarAlignment.Right, 99),
  );

  constructor() {
    super();
    this.item.name = 'Gateway AI Inline Completions';
    this.item.command = Command.inlineCompletionsMenu;
  }

  render(status: InlineStatus, now = Date.now()): void {
    const { tally } = status;
    const snoozed = status.snoozedUntil !== undefined && status.snoozedUntil > now;
    const icon = !status.enabled
      ? '$(circle-slash)'
      : snoozed
        ? '$(bell-slash)'
        : status.paused
          ? '$(warning)'
          : status.busy
            ? '$(loading~spin)'
            : '$(sparkle)';
    const counts =
      status.enabled && tally.accepted + tally.requests > 0
        ? ` ${tally.accepted} · ${tallyCostText(tally)}`
        : '';
    const minutes = snoozed ? ` ${Math.ceil((status.snoozedUntil! - now) / 60_000)}m` : '';
    this.item.text = `${icon} Inline${minutes}${counts}`;
    const state = !status.enabled
      ? 'off'
      : snoozed
        ? `snoozed for ${Math.ceil((status.snoozedUntil! - now) / 60_000)} more minutes`
        : status.paused
          ? 'paused after an error from the gateway'
          : status.busy
            ? 'on, asking the gateway'
            : 'on';
    const model = status.model ? ` Model: ${inertText(status.model, 120)}.` : '';
    this.item.tooltip =
      `Gateway AI inline completions: ${state}.${model}\n` +
      `Today: ${tally.accepted} accepted, ${tally.requests} requests, ${tallyCostText(tally, 6)}.\n` +
      'Click to turn them on or off, snooze them or pick their model.';
    this.item.show();
  }
}
