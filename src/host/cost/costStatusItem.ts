import * as vscode from 'vscode';
import { COST_SOURCES } from '../../core/cost/costLedger';
import type { CostSource } from '../../core/cost/costLedger';
import { Command, UiId } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import { ESTIMATE_NOTE, formatCost } from '../../core/util/text';
import type { CreditsService } from '../catalog/credits';
import type { CostTracker } from './costTracker';

export const SOURCE_LABELS: Readonly<Record<CostSource, string>> = {
  panel: 'Chat panel',
  vscodeChat: "VS Code's chat",
  completions: 'Inline completions',
  media: 'Media jobs',
};

/**
 * Today's cost across every window and feature, in the status bar; the account's credit in its
 * tooltip (a plain string: nothing from the gateway is ever rendered). Hidden until something cost
 * money today. Click: the figures, and the credit asked for again, in a quick pick.
 */
export class CostStatusItem extends Disposable {
  private readonly item = this.register(
    vscode.window.createStatusBarItem(UiId.costStatus, vscode.StatusBarAlignment.Right, 99),
  );

  constructor(
    private readonly costs: CostTracker,
    private readonly credits?: CreditsService,
  ) {
    super();
    this.item.name = "Gateway AI Today's Cost";
    this.item.command = Command.showCost;
    this.register(costs.onDidChange(() => this.render()));
    if (credits) this.register(credits.onDidChange(() => this.render()));
    // Off the activation path: other windows' figures are read a moment later.
    const first = setTimeout(() => void costs.load().then(() => this.render()), 1000);
    this.register({ dispose: () => clearTimeout(first) });
  }

  /** The lines the tooltip and the quick pick show. */
  lines(): string[] {
    const today = this.costs.today();
    const about = today.estimated > 0 ? '~' : '';
    const lines = [`Gateway AI today: ${about}${formatCost(today.total)}`];
    for (const source of COST_SOURCES) {
      const cost = today.bySource[source];
      if (cost !== undefined) lines.push(`${SOURCE_LABELS[source]}: ${formatCost(cost)}`);
    }
    if (today.estimated > 0) lines.push(`Of which ${formatCost(today.estimated)} ${ESTIMATE_NOTE}`);
    const credit = this.credits?.describe();
    if (credit) lines.push(`Credit: ${credit}`);
    return lines;
  }

  render(): void {
    const today = this.costs.today();
    if (today.total <= 0) {
      this.item.hide();
      return;
    }
    const about = today.estimated > 0 ? '~' : '';
    this.item.text = `$(credit-card) ${about}${formatCost(today.total)}`;
    this.item.tooltip = `${this.lines().join('\n')}\nAll windows, since midnight. Click for details.`;
    this.item.accessibilityInformation = {
      label: `Gateway AI cost today: ${today.estimated > 0 ? 'about ' : ''}${formatCost(today.total)}`,
    };
    this.item.show();
  }

  /** The `gateway.showCost` command: today's figures and the credit, asked for again. */
  async show(): Promise<void> {
    await this.costs.load();
    await this.credits?.update(true).catch(() => undefined);
    const [title, ...rest] = this.lines();
    const items: vscode.QuickPickItem[] = rest.map((label) => ({ label }));
    if (!this.credits?.describe()) items.push({ label: 'Credit: the gateway does not say' });
    await vscode.window.showQuickPick(items, {
      title,
      placeHolder: 'All windows, since midnight (local time)',
    });
  }
}
