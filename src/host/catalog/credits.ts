import * as vscode from 'vscode';
import { describeCredits, parseCredits } from '../../core/catalog/creditsCodec';
import type { Credits } from '../../core/catalog/creditsCodec';
import { Disposable } from '../../core/util/lifecycle';
import { Setting } from '../../core/ids';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';

const MIN_INTERVAL_MS = 60_000;

/**
 * The account's remaining credit, where the gateway offers it (`GET /v1/key` or `/v1/credits`).
 * Where it does not, `current` stays undefined and nothing is shown; failures go to the log only.
 */
export class CreditsService extends Disposable {
  private value: Credits | undefined;
  private checkedAt = 0;
  private pending: Promise<Credits | undefined> | undefined;
  /** The gateway answered 404 to both: it has no credits endpoint; not asked again until it changes. */
  private unsupported = false;
  private readonly changed = this.register(new vscode.EventEmitter<Credits | undefined>());
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly gateway: GatewayService,
    settings: Settings,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      settings.onDidChange((change) => {
        if (!change.affects(Setting.baseUrl)) return;
        this.unsupported = false;
        this.checkedAt = 0;
        this.set(undefined);
      }),
    );
  }

  get current(): Credits | undefined {
    return this.value;
  }

  /** One line for the status-bar tooltip or a 402 message; undefined when unknown. */
  describe(): string | undefined {
    return this.value ? describeCredits(this.value) : undefined;
  }

  /** Asks the gateway again, at most once a minute unless `force`. */
  update(force = false): Promise<Credits | undefined> {
    if (this.unsupported && !force) return Promise.resolve(undefined);
    if (!force && Date.now() - this.checkedAt < MIN_INTERVAL_MS) return Promise.resolve(this.value);
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetch(): Promise<Credits | undefined> {
    this.checkedAt = Date.now();
    try {
      const document = await this.gateway.client().getCredits();
      if (!document) {
        this.unsupported = true;
        this.logger.info('The gateway offers no credits endpoint; no credit is shown.');
      }
      this.set(parseCredits(document));
    } catch (error) {
      this.logger.warn(
        `The credit could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return this.value;
  }

  private set(value: Credits | undefined): void {
    this.value = value;
    this.changed.fire(value);
  }
}
