import * as vscode from 'vscode';
import type { RequestLogEntry } from '../../api/types';
import { redact } from '../../api/redact';

/**
 * The extension's one logger, over one LogOutputChannel ("Gateway AI"). Every line passes through
 * `redact`, with the current API key among the secrets, so the key never reaches the log.
 */
export class Logger implements vscode.Disposable {
  private readonly channel: vscode.LogOutputChannel;

  /**
   * @param secrets the secrets known now (the API key), asked at each line so a changed key is
   * redacted too, even in odd places such as a body the gateway echoed.
   */
  constructor(
    private readonly secrets: () => ReadonlyArray<string | undefined> = () => [],
    name = 'Gateway AI',
  ) {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  private clean(message: string): string {
    return redact(message, this.secrets());
  }

  trace(message: string): void {
    this.channel.trace(this.clean(message));
  }
  debug(message: string): void {
    this.channel.debug(this.clean(message));
  }
  info(message: string): void {
    this.channel.info(this.clean(message));
  }
  warn(message: string): void {
    this.channel.warn(this.clean(message));
  }
  error(message: string, error?: unknown): void {
    const detail =
      error instanceof Error ? `: ${error.message}` : error !== undefined ? `: ${describe(error)}` : '';
    this.channel.error(this.clean(message + detail));
  }

  /** One line per HTTP exchange: method, path, status, duration, retry count. */
  request(entry: RequestLogEntry): void {
    const status = entry.status ?? entry.error ?? 'no response';
    const retry = entry.attempt > 0 ? ` (retry ${entry.attempt})` : '';
    const line = `${entry.method} ${entry.path} → ${status} in ${Math.round(entry.durationMs)} ms${retry}`;
    if (entry.status !== undefined && entry.status < 400) this.info(line);
    else this.warn(line);
    if (entry.note) this.info(entry.note);
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }
}

/** A thrown value that is not an Error, as text: JSON for objects, never "[object Object]". */
function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return Object.prototype.toString.call(value);
  }
}
