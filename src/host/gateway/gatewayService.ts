import * as vscode from 'vscode';
import type { GatewayClient } from '../../api';
import type { DialectNotice, GatewayDataProblem, LearnedDialect } from '../../api/types';
import { createClient } from './clientLoader';
import { GatewayError } from '../../api/errors';
import type { ApiKeyStore } from '../auth/apiKeyStore';
import type { SecretHeaderStore } from '../auth/secretHeaderStore';
import { mergeHeaders, parseExtraHeaders } from '../../core/config/requestHeaders';
import type { AuthHeaderForm } from '../../core/config/requestHeaders';
import { offerKeyFor } from '../auth/keyCommands';
import { isLoopbackHost, keyIsOptional, keyOriginRefusal, originOf } from '../../core/config/keyOrigin';
import { Disposable } from '../../core/util/lifecycle';
import { validateBaseUrl } from '../config/settings';
import { apiRoot } from '../../api/endpoint';
import { parseLearnedDialect, resolveDialect } from '../../api/dialects';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import { EXTENSION_ID, Setting, SettingSection, StorageKey, VsCodeSetting } from '../../core/ids';
import { notify } from '../notify';

/**
 * Hands out the one gateway client, built from the current settings on first use (the network
 * stack loads then, not at activation) and rebuilt when a setting that shapes it changes.
 *
 * The key goes only to the origin it belongs to (ApiKeyStore): the client asks for it before each
 * request to the gateway, and gets it only when the base URL is on that origin. Otherwise the
 * request fails before anything is sent, and the user is asked, once per origin, whether the key
 * may go there or which key belongs to it.
 */
export class GatewayService extends Disposable {
  private current: GatewayClient | undefined;
  /** The base URL last warned about, so saving the same bad value again does not repeat the warning. */
  private warnedBaseUrl: string | undefined;
  private readonly reportedProblems = new Set<string>();
  /** `bound origin → gateway origin` pairs the user was asked about in this window. */
  private readonly offered = new Set<string>();
  /** Base URLs whose API root was logged, so the log says it once per gateway. */
  private readonly rootsLogged = new Set<string>();
  private readonly dialectNotices = new vscode.EventEmitter<DialectNotice>();
  /** What the client learned of a gateway (a refused field, tools off for a model), as it happens. */
  readonly onDialectNotice = this.dialectNotices.event;

  /** The header problems last told, so the same setting is not warned about twice. */
  private warnedHeaders = '';

  constructor(
    private readonly apiKey: ApiKeyStore,
    private readonly settings: Settings,
    private readonly logger: Logger,
    /** Where what was learned of each gateway is kept across windows (globalState). */
    private readonly memory?: vscode.Memento,
    private readonly secretHeaders?: SecretHeaderStore,
  ) {
    super();
    this.register(
      settings.onDidChange((change) => {
        if (CLIENT_SECTIONS.some((section) => change.affects(section))) this.reset();
        if (change.affects(Setting.baseUrl)) this.checkBaseUrl();
      }),
    );
    this.register({ dispose: () => this.reset() });
    this.register(this.dialectNotices);
  }

  /**
   * Tells the user at once when the base URL they just set cannot work. Otherwise they would only
   * find out at the next request, possibly much later and far from the setting they changed.
   */
  private checkBaseUrl(): void {
    const { baseUrl } = this.settings.current;
    const problem = validateBaseUrl(baseUrl);
    if (!problem) {
      this.warnedBaseUrl = undefined;
      return;
    }
    if (this.warnedBaseUrl === baseUrl) return;
    this.warnedBaseUrl = baseUrl;
    this.logger.warn(problem);
    const openSettings = 'Open Settings';
    void notify.warn(`Gateway AI: ${problem}`, openSettings).then((choice) => {
      if (choice === openSettings)
        void vscode.commands.executeCommand('workbench.action.openSettings', Setting.baseUrl);
    });
  }

  /**
   * Whether the gateway the base URL names is OpenRouter's kind, where Sign In with OpenRouter
   * exists: by `gateway.dialect`, else its host, else what its answers gave away.
   */
  isOpenRouterKind(baseUrl: string): boolean {
    if (!originOf(baseUrl)) return false;
    const { dialect } = this.settings.current;
    const current = this.current && baseUrl === this.settings.current.baseUrl ? this.current : undefined;
    const kind = current
      ? current.dialect().kind
      : resolveDialect(dialect, baseUrl, parseLearnedDialect(this.learnedFor(baseUrl))).kind;
    return kind === 'openrouter';
  }

  /** The client for the current settings. Throws a GatewayError ('config') for an invalid base URL. */
  client(): GatewayClient {
    if (this.current) return this.current;
    const settings = this.settings.current;
    const problem = validateBaseUrl(settings.baseUrl);
    if (problem) throw new GatewayError({ kind: 'config', message: problem });
    const baseUrl = settings.baseUrl;
    this.warnAboutHeaders(settings.request.headerProblems);
    const plainHeaders = settings.request.headers;
    const authHeader = settings.request.authHeader;
    this.current = createClient({
      baseUrl,
      apiKey: () => this.keyFor(baseUrl),
      authHeader,
      headers: () => this.headersFor(baseUrl, plainHeaders, authHeader),
      timeoutMs: settings.request.timeoutSeconds * 1000,
      streamIdleTimeoutMs: settings.request.streamIdleTimeoutSeconds * 1000,
      maxRetries: settings.request.maxRetries,
      maxResponseBytes: settings.request.maxResponseMegabytes * 1024 * 1024,
      maxStreamMs: settings.request.maxStreamMinutes * 60_000,
      limitHints: {
        maxResponseBytes: Setting.requestMaxResponseMegabytes,
        maxStreamMs: Setting.requestMaxStreamMinutes,
        streamIdleTimeoutMs: Setting.requestStreamIdleTimeoutSeconds,
      },
      proxy: settings.proxy,
      log: (entry) => this.logger.request(entry),
      onProblem: (problem) => this.reportProblem(problem),
      userAgent: `gateway-ai-vscode/${extensionVersion()} vscode/${vscode.version}`,
      dialect: settings.dialect,
      learnedDialect: this.learnedFor(baseUrl),
      onDialectLearned: (base, learned) => this.keepLearned(base, learned),
      onDialectNotice: (notice) => this.dialectNotice(notice),
    });
    this.logger.info(`Gateway client ready for ${settings.baseUrl}`);
    this.logApiRoot(baseUrl);
    return this.current;
  }

  /** Says once per gateway where its API was found, so a pasted `…/v1` is seen to be taken as it is. */
  private logApiRoot(baseUrl: string): void {
    if (this.rootsLogged.has(baseUrl)) return;
    this.rootsLogged.add(baseUrl);
    const dialect = this.current?.dialect();
    this.logger.info(
      `Requests go to ${apiRoot(baseUrl)}/… (from ${Setting.baseUrl} "${baseUrl}")${dialect ? `, shaped for ${dialect.label} (${Setting.dialect}: ${this.settings.current.dialect})` : ''}.`,
    );
  }

  /** Models the gateway refused tools for, as learned from its answers. */
  toolsRefused(model: string): boolean {
    const learned =
      this.current?.learned() ?? parseLearnedDialect(this.learnedFor(this.settings.current.baseUrl));
    return learned.toolsRefused?.includes(model) ?? false;
  }

  private learnedFor(baseUrl: string): unknown {
    const stored = this.memory?.get<unknown>(LEARNED_KEY);
    return stored !== null && typeof stored === 'object'
      ? (stored as Record<string, unknown>)[baseUrl]
      : undefined;
  }

  /** Keeps what was learned of a gateway by its base URL, for the next window (a few gateways at most). */
  private keepLearned(baseUrl: string, learned: LearnedDialect): void {
    if (!this.memory) return;
    const stored = this.memory.get<unknown>(LEARNED_KEY);
    const all: Record<string, unknown> =
      stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? { ...stored } : {};
    delete all[baseUrl];
    all[baseUrl] = learned;
    const kept = Object.fromEntries(Object.entries(all).slice(-MAX_GATEWAYS_KEPT));
    void Promise.resolve(this.memory.update(LEARNED_KEY, kept)).catch((error: unknown) =>
      this.logger.warn(`What was learned of the gateway could not be kept: ${String(error)}`),
    );
  }

  private dialectNotice(notice: DialectNotice): void {
    this.logger.info(notice.message);
    this.dialectNotices.fire(notice);
    // A refused field is worth telling once; the tools note shows in the chat's tool picker.
    if (notice.kind === 'refused-field' && notice.field !== 'tools')
      void notify.info(`Gateway AI: ${notice.message}`);
  }

  /**
   * The key, for a request to the gateway at `baseUrl` (the client asks only for requests on its
   * origin). A key that belongs to another origin is not handed out: the request fails with a
   * 'config' error that says so, and the user is asked whether it may go there.
   */
  private async keyFor(baseUrl: string): Promise<string | undefined> {
    const stored = await this.apiKey.binding();
    if (!stored) return undefined;
    const refusal = keyOriginRefusal(stored.origin, baseUrl);
    if (!refusal) return stored.key;
    // A local server is asked without the key of a gateway elsewhere (it may need none; its 401
    // then offers Set API Key), and the user is not asked to send that key to it. A key entered
    // for another local server is offered as usual: it may be the same gateway on a new port.
    if (
      keyIsOptional({ baseUrl, request: this.settings.current.request }) &&
      !isLoopbackHost(new URL(stored.origin).hostname)
    )
      return undefined;
    const origin = originOf(baseUrl);
    const pair = `${stored.origin} ${origin}`;
    if (origin && !this.offered.has(pair)) {
      this.offered.add(pair);
      this.logger.warn(refusal);
      void offerKeyFor(this.apiKey, this.settings, origin, stored.origin);
    }
    throw new GatewayError({ kind: 'config', message: refusal });
  }

  /**
   * The extra headers for the gateway at `baseUrl`: the setting's, and the secret ones stored for
   * its origin (which win), each checked again against the auth form in force.
   */
  private async headersFor(
    baseUrl: string,
    plain: Readonly<Record<string, string>>,
    auth: AuthHeaderForm,
  ): Promise<Record<string, string>> {
    const origin = originOf(baseUrl);
    if (!this.secretHeaders || !origin) return { ...plain };
    const parsed = parseExtraHeaders(await this.secretHeaders.forOrigin(origin), {
      auth,
      secretsAllowed: true,
      what: 'secret header',
    });
    for (const problem of parsed.problems) {
      if (this.reportedProblems.has(problem)) continue;
      this.reportedProblems.add(problem);
      this.logger.warn(`Gateway AI: ${problem}`);
    }
    return mergeHeaders(plain, parsed.headers);
  }

  /** Tells the user once which entries of the headers setting were skipped, and why. */
  private warnAboutHeaders(problems: readonly string[]): void {
    const text = problems.join(' ');
    if (text === this.warnedHeaders) return;
    this.warnedHeaders = text;
    if (!text) return;
    for (const problem of problems) this.logger.warn(problem);
    const openSettings = 'Open Settings';
    void notify
      .warn(
        `Gateway AI: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more, see the log)` : ''}`,
        openSettings,
      )
      .then((choice) => {
        if (choice === openSettings)
          void vscode.commands.executeCommand('workbench.action.openSettings', Setting.requestHeaders);
      });
  }

  /**
   * Gateway data the client ignored, logged once per field path for the whole session (clients
   * come and go with the settings; the log should not repeat itself).
   */
  private reportProblem(problem: GatewayDataProblem): void {
    if (this.reportedProblems.has(problem.path)) return;
    this.reportedProblems.add(problem.path);
    if (problem.kind === 'wrong-type') this.logger.warn(problem.message);
    else this.logger.info(problem.message);
  }

  private reset(): void {
    const old = this.current;
    this.current = undefined;
    void old?.close?.();
  }
}

/** The globalState key of what was learned of each gateway, by base URL. */
const LEARNED_KEY = StorageKey.learnedDialects;
const MAX_GATEWAYS_KEPT = 8;

/** The settings that shape the client: ours, and VS Code's proxy (for its credentials). */
const CLIENT_SECTIONS = [SettingSection.all, VsCodeSetting.proxy];

/** Our version, from the manifest VS Code read (a string, or "dev" if it is not one). */
function extensionVersion(): string {
  const manifest: unknown = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON;
  const version =
    manifest && typeof manifest === 'object' ? (manifest as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : 'dev';
}
