import * as vscode from 'vscode';
import type { GatewayClient } from '../api';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import { Disposable } from '../common/lifecycle';
import { affectsGateway, readSettings, validateBaseUrl } from '../config/settings';
import type { Logger } from '../log/logger';

/**
 * Hands out the one gateway client, built from the current settings on first use (the network
 * stack loads then, not at activation) and rebuilt when a setting that shapes it changes.
 */
export class GatewayService extends Disposable {
  private current: GatewayClient | undefined;

  constructor(
    private readonly apiKey: ApiKeyStore,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsGateway(e)) this.reset();
      }),
    );
    this.register({ dispose: () => this.reset() });
  }

  /** The client for the current settings. Throws a GatewayError ('config') for an invalid base URL. */
  client(): GatewayClient {
    if (this.current) return this.current;
    const settings = readSettings();
    const problem = validateBaseUrl(settings.baseUrl);
    if (problem) {
      const { GatewayError } = require('../api/errors') as typeof import('../api/errors');
      throw new GatewayError({ kind: 'config', message: problem });
    }
    // Loaded here, on first use, so activation does not pay for the network stack.
    const { createGatewayClient } = require('../api') as typeof import('../api');
    this.current = createGatewayClient({
      baseUrl: settings.baseUrl,
      apiKey: () => this.apiKey.get(),
      timeoutMs: settings.request.timeoutSeconds * 1000,
      streamIdleTimeoutMs: settings.request.streamIdleTimeoutSeconds * 1000,
      maxRetries: settings.request.maxRetries,
      proxy: settings.proxy,
      log: (entry) => this.logger.request(entry),
      userAgent: `gateway-ai-vscode/${vscode.extensions.getExtension('gateway-ai.gateway-ai')?.packageJSON.version ?? 'dev'} vscode/${vscode.version}`,
    });
    this.logger.info(`Gateway client ready for ${settings.baseUrl}`);
    return this.current;
  }

  private reset(): void {
    const old = this.current;
    this.current = undefined;
    void old?.close?.();
  }
}
