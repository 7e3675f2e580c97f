import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import type { GatewayClient } from '../../api';
import { parseCatalog } from '../../core/catalog/catalogCodec';
import {
  LOCAL_SERVERS,
  capabilityLines,
  needsKey,
  parsePastedGatewayUrl,
} from '../../core/connect/connectReport';
import type { GatewayProbe } from '../../core/connect/connectReport';
import { originOf } from '../../core/config/keyOrigin';
import { Command, Setting } from '../../core/ids';
import type { Settings } from '../config/settings';
import type { GatewayService } from './gatewayService';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import { createClient } from './clientLoader';

/** How long one look at a gateway may take. */
const PROBE_TIMEOUT_MS = 8_000;
/** How long a local server may take to say it is there. */
const LOCAL_TIMEOUT_MS = 1_500;
/** The most models the plain list offers (the full picker has search and more). */
const MAX_LISTED_MODELS = 500;
/** The first prompt, so the user sees an answer from the model they picked. */
export const FIRST_PROMPT =
  'Hello! In one short sentence: which model are you, and what can you help me with?';

/** How Portkey says it needs its headers (its 400 when they are missing). */
const PORTKEY_REFUSAL = /x-portkey-(?:provider|config)/i;

interface Probed {
  probe: GatewayProbe;
  /** Headers the user gave during Connect (Portkey's). */
  headers: Record<string, string>;
}

/**
 * `gateway.connect`: one flow from a pasted URL (or a local server that answers) to a first reply.
 * It asks the gateway's model list without a key, shows what the gateway offers, asks for the
 * headers its kind needs and for a key only when one is needed, then sets the base URL, offers the
 * model picker and sends a first prompt. Nothing is sent anywhere but the URL the user gave.
 */
export class GatewayConnector {
  constructor(
    private readonly settings: Settings,
    private readonly gateway: GatewayService,
    private readonly logger: Logger,
    /** Whether a key is stored for the origin (the key store's binding). */
    private readonly keyFor: (origin: string) => Promise<boolean>,
  ) {}

  async connect(argument?: unknown): Promise<boolean> {
    const chosen = typeof argument === 'string' ? argument : await this.choose();
    if (chosen === undefined) return false;
    const parsed = parsePastedGatewayUrl(chosen);
    if ('problem' in parsed) {
      void notify.error(`Gateway AI: ${parsed.problem}`);
      return false;
    }
    const { baseUrl } = parsed;
    const origin = originOf(baseUrl) ?? baseUrl;
    const probed = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Gateway AI: looking at ${origin}…` },
      () => this.probe(baseUrl, {}),
    );
    if (!probed) return false;
    if (!(await notify.confirm(`Connect to ${origin}?`, capabilityLines(probed.probe).join('\n'), 'Connect')))
      return false;

    const config = vscode.workspace.getConfiguration();
    if (Object.keys(probed.headers).length)
      await config.update(Setting.requestHeaders, probed.headers, vscode.ConfigurationTarget.Global);
    await config.update(Setting.baseUrl, baseUrl, vscode.ConfigurationTarget.Global);
    // How the key goes: not at all to a gateway that needs none (so a key kept for another gateway
    // is never asked for), else as this kind of gateway takes it.
    const auth = needsKey(probed.probe) ? probed.probe.dialect.auth : 'none';
    await config.update(Setting.authHeader, auth, vscode.ConfigurationTarget.Global);
    this.logger.info(`Connect: the gateway is now ${baseUrl} (${probed.probe.dialect.label}).`);

    if (needsKey(probed.probe) && !(await this.keyFor(origin))) {
      if (probed.probe.dialect.kind === 'openrouter' && (await this.choosesSignIn())) {
        // The sign-in ends in the browser; its own message offers the model picker.
        return (await vscode.commands.executeCommand<boolean>(Command.signIn)) === true;
      }
      const stored = await this.pasteKey();
      if (!stored) {
        void notify.info(`Gateway AI: connected to ${origin}; set its key when you are ready to chat.`);
        return false;
      }
    }
    const model = await this.chooseModel();
    if (!model) {
      void notify.info(`Gateway AI: connected to ${origin}. Pick a model when you are ready to chat.`);
      return true;
    }
    await vscode.commands.executeCommand(Command.ask, FIRST_PROMPT);
    return true;
  }

  /** The local servers that answer, the usual gateways, or a URL the user pastes. */
  private async choose(): Promise<string | undefined> {
    const paste = {
      label: '$(link) Enter a gateway URL…',
      detail: 'https://…/v1, or http://127.0.0.1:…/v1 on this computer',
    };
    const openRouter = {
      label: 'OpenRouter',
      description: 'https://openrouter.ai/api',
      baseUrl: 'https://openrouter.ai/api',
    };
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { baseUrl?: string }>();
    pick.title = 'Gateway AI: Connect a Gateway';
    pick.placeholder = 'Looking for servers on this computer…';
    pick.items = [paste, openRouter];
    pick.busy = true;
    void this.localServers().then((found) => {
      pick.busy = false;
      pick.placeholder = found.length
        ? 'Choose a gateway'
        : 'Choose a gateway (no server answered on this computer)';
      pick.items = [
        ...found.map((server) => ({
          label: `$(vm) ${server.label}`,
          description: server.baseUrl,
          detail: `Answering on this computer; ${server.models} models`,
          baseUrl: server.baseUrl,
        })),
        paste,
        openRouter,
      ];
    });
    const picked = await new Promise<(vscode.QuickPickItem & { baseUrl?: string }) | undefined>((resolve) => {
      pick.onDidAccept(() => resolve(pick.selectedItems[0]));
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
    pick.dispose();
    if (!picked) return undefined;
    if (picked.baseUrl) return picked.baseUrl;
    return vscode.window.showInputBox({
      title: 'Gateway AI: Connect a Gateway',
      prompt: 'The URL of your gateway, as its docs give it (…/v1 is fine).',
      placeHolder: 'https://litellm.example.com/v1',
      ignoreFocusOut: true,
      validateInput: (value) => {
        const parsed = parsePastedGatewayUrl(value);
        return 'problem' in parsed ? parsed.problem : undefined;
      },
    });
  }

  /** Local servers at their usual addresses that list models without a key. */
  private async localServers(): Promise<Array<{ label: string; baseUrl: string; models: number }>> {
    const answers = await Promise.all(
      LOCAL_SERVERS.map(async (server) => {
        const client = this.probeClient(server.baseUrl, {}, LOCAL_TIMEOUT_MS);
        try {
          const models = parseCatalog(await client.listModels({ maxRetries: 0 }));
          return models ? { ...server, models: models.length } : undefined;
        } catch {
          return undefined;
        } finally {
          void client.close();
        }
      }),
    );
    return answers.filter((server) => server !== undefined);
  }

  /**
   * Asks the model list without a key. Undefined (the user told why) when the gateway cannot be
   * reached or answers in a way no gateway does; Portkey's missing headers are asked for and the
   * list asked again with them.
   */
  private async probe(baseUrl: string, headers: Record<string, string>): Promise<Probed | undefined> {
    const client = this.probeClient(baseUrl, headers, PROBE_TIMEOUT_MS);
    try {
      try {
        const catalog = parseCatalog(await client.listModels({ maxRetries: 0 }));
        const models = catalog ?? [];
        const media = models.filter((m) => m.outputModalities.some((kind) => kind !== 'text')).length;
        return {
          probe: {
            dialect: client.dialect(),
            answeredWithoutKey: true,
            chatModels: models.length - media,
            ...(media ? { mediaModels: media } : {}),
          },
          headers,
        };
      } catch (error) {
        if (!GatewayError.is(error)) throw error;
        if (PORTKEY_REFUSAL.test(error.message) && !Object.keys(headers).length) {
          const portkey = await this.portkeyHeaders();
          return portkey ? this.probe(baseUrl, portkey) : undefined;
        }
        if (error.status === 401 || error.status === 403)
          return { probe: { dialect: client.dialect(), answeredWithoutKey: false }, headers };
        void notify.error(`Gateway AI: ${baseUrl} did not answer as a gateway does. ${error.message}`);
        return undefined;
      }
    } finally {
      void client.close();
    }
  }

  /** A client that sends no key, for looking only. */
  private probeClient(baseUrl: string, headers: Record<string, string>, timeoutMs: number): GatewayClient {
    return createClient({
      baseUrl,
      apiKey: () => undefined,
      authHeader: 'none',
      headers: () => headers,
      timeoutMs,
      maxRetries: 0,
      dialect: this.settings.current.dialect,
    });
  }

  /** Portkey's provider header (and the upstream's address, for a self-hosted one). */
  private async portkeyHeaders(): Promise<Record<string, string> | undefined> {
    const provider = await vscode.window.showInputBox({
      title: 'Gateway AI: Connect to Portkey',
      prompt:
        'Portkey needs the provider behind it on every request (x-portkey-provider), e.g. openai or anthropic.',
      value: 'openai',
      ignoreFocusOut: true,
      validateInput: (value) =>
        /^[a-z0-9][a-z0-9._-]{0,63}$/i.test(value.trim()) ? undefined : 'A provider name, e.g. openai.',
    });
    if (provider === undefined) return undefined;
    const host = await vscode.window.showInputBox({
      title: 'Gateway AI: Connect to Portkey',
      prompt:
        "For a provider you host yourself, its URL (x-portkey-custom-host); leave empty for the provider's own.",
      ignoreFocusOut: true,
      validateInput: (value) => {
        if (!value.trim()) return undefined;
        const parsed = parsePastedGatewayUrl(value);
        return 'problem' in parsed ? parsed.problem : undefined;
      },
    });
    if (host === undefined) return undefined;
    return {
      'x-portkey-provider': provider.trim(),
      ...(host.trim() ? { 'x-portkey-custom-host': host.trim() } : {}),
    };
  }

  /**
   * The gateway's own chat models, as it lists them now that it has the key, in a plain list;
   * the chat model is set to the one picked. The full picker where the list cannot be read.
   */
  private async chooseModel(): Promise<string | undefined> {
    let ids: string[] | undefined;
    try {
      const models = parseCatalog(await this.gateway.client().listModels()) ?? [];
      ids = models
        .filter((m) => m.outputModalities.length === 0 || m.outputModalities.includes('text'))
        .map((m) => m.id)
        .slice(0, MAX_LISTED_MODELS);
    } catch (error) {
      this.logger.warn(
        `Connect: the model list could not be read. ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!ids?.length) return vscode.commands.executeCommand<string | undefined>(Command.selectModel);
    const current = this.settings.current.chat.model;
    const picked = await vscode.window.showQuickPick(
      ids.map((id) => ({ label: id, ...(id === current ? { description: 'current' } : {}) })),
      {
        title: 'Gateway AI: Choose a Chat Model',
        placeHolder: `${ids.length} models this gateway lists`,
        ignoreFocusOut: true,
      },
    );
    if (!picked) return undefined;
    return vscode.commands.executeCommand<string | undefined>(Command.selectModel, picked.label);
  }

  /** OpenRouter: sign in to make a key, or paste one. */
  private async choosesSignIn(): Promise<boolean> {
    const signIn = 'Sign In with OpenRouter';
    const choice = await notify.info(
      'Gateway AI: OpenRouter needs a key. Sign in to make one, or paste one you have.',
      signIn,
      'Paste a Key',
    );
    return choice === signIn;
  }

  private async pasteKey(): Promise<boolean> {
    return (await vscode.commands.executeCommand<boolean>(Command.setApiKey)) === true;
  }
}

export function registerConnect(connector: GatewayConnector): vscode.Disposable {
  return vscode.commands.registerCommand(Command.connect, (url?: unknown) => connector.connect(url));
}
