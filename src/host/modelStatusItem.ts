import * as vscode from 'vscode';
import type { Usage } from '../api/types';
import { COST_NOT_REPORTED, inertText } from '../core/util/text';
import type { ApiKeyStore } from './auth/apiKeyStore';
import type { CreditsService } from './catalog/credits';
import { Disposable } from '../core/util/lifecycle';
import type { Settings } from './config/settings';
import { Command, ContextKey, Setting, UiId } from '../core/ids';

/**
 * The current chat model (click: select another), or a prompt to set the key when none is
 * stored. The key's presence is read only when the item first shows, not at activation.
 */
export class ModelStatusItem extends Disposable {
  private readonly item = this.register(
    vscode.window.createStatusBarItem(UiId.modelStatus, vscode.StatusBarAlignment.Right, 100),
  );
  private hasKey: boolean | undefined;
  /** Requests from VS Code's chat (the language-model provider) in this session, and their cost. */
  readonly usageTotal = { requests: 0, tokens: 0, cost: 0, unpriced: 0 };

  constructor(
    apiKey: ApiKeyStore,
    private readonly settings: Settings,
    private readonly credits?: CreditsService,
  ) {
    super();
    if (credits) this.register(credits.onDidChange(() => this.render()));
    this.item.name = 'Gateway AI Model';
    this.register(apiKey.onDidChange((key) => this.setHasKey(!!key)));
    this.register(
      settings.onDidChange((change) => {
        if (change.affects(Setting.chatModel)) this.render();
      }),
    );
    // Off the activation path (its first render reads the chat settings, the first read of them
    // since activation, and sets the item's command): the item shows one turn later, and
    // SecretStorage is asked after that.
    const first = setTimeout(() => {
      this.render();
      void apiKey.get().then(
        (k) => {
          this.setHasKey(!!k);
          if (k) void this.credits?.update();
        },
        () => this.setHasKey(false),
      );
    }, 0);
    this.register({ dispose: () => clearTimeout(first) });
  }

  /** Adds one language-model request's usage to the running total shown here. */
  addUsage(usage: Usage | undefined): void {
    this.usageTotal.requests += 1;
    const tokens = usage?.total_tokens;
    this.usageTotal.tokens += typeof tokens === 'number' && tokens > 0 ? tokens : 0;
    const cost = usage?.cost;
    const priced = typeof cost === 'number' && Number.isFinite(cost) && cost >= 0;
    this.usageTotal.cost += priced ? cost : 0;
    if (!priced) this.usageTotal.unpriced += 1;
    this.render();
  }

  private setHasKey(hasKey: boolean): void {
    this.hasKey = hasKey;
    void vscode.commands.executeCommand('setContext', ContextKey.hasApiKey, hasKey);
    this.render();
  }

  private render(): void {
    if (this.hasKey === false) {
      this.item.text = '$(key) Gateway AI: set API key';
      this.item.tooltip = 'No gateway API key is stored. Click to set one.';
      this.item.command = Command.setApiKey;
    } else {
      const model = this.settings.current.chat.model || 'no model';
      const { requests, tokens, cost, unpriced } = this.usageTotal;
      // Requests the gateway reported no cost for are not $0: said apart.
      const spent =
        unpriced === requests
          ? COST_NOT_REPORTED
          : `$${cost.toFixed(6)}${unpriced ? ` (${unpriced} not reported)` : ''}`;
      // Today's cost has an item of its own (src/host/cost), across every window and feature.
      this.item.text = `$(sparkle) ${inertText(model, 80)}`;
      const credit = this.credits?.describe();
      const used =
        requests > 0
          ? `\nVS Code's chat used gateway models ${requests} time${requests === 1 ? '' : 's'} this session: ${tokens} tokens, ${spent}.`
          : '';
      this.item.tooltip = `Gateway AI chat model: ${inertText(model)}.${credit ? ` ${credit}.` : ''} Click to select another.${used}`;
      this.item.command = Command.selectModel;
    }
    this.item.show();
  }
}
