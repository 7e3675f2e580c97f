import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import {
  SignInFlows,
  base64Url,
  createPkce,
  keysPageUrl,
  parseAuthKeyReply,
  signInPageUrl,
  STATE_BYTES,
} from '../../core/auth/signIn';
import type { PendingSignIn, PkceCrypto } from '../../core/auth/signIn';
import { originOf } from '../../core/config/keyOrigin';
import { Command, EXTENSION_ID } from '../../core/ids';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { GatewayService } from '../gateway/gatewayService';
import type { Logger } from '../log/logger';
import { notify } from '../notify';
import type { ApiKeyStore } from './apiKeyStore';

/** The callback's path: `<scheme>://gateway-ai.gateway-ai/signin/<state>`. */
const CALLBACK_PATH = '/signin/';

/** Web Crypto, in the Node extension host and the web worker alike. */
const webCrypto: PkceCrypto = {
  randomBytes: (length) => globalThis.crypto.getRandomValues(new Uint8Array(length)),
  sha256: async (data) =>
    new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(data))),
};

/** Whether the gateway the base URL names is OpenRouter's kind, where its sign-in exists. */
export type SignInOffered = (baseUrl: string) => boolean | Promise<boolean>;

/**
 * Sign in with OpenRouter (OAuth PKCE, S256): opens the gateway's sign-in page in the browser,
 * takes the code at the callback (a UriHandler path, through `asExternalUri` so web and remote
 * windows work) or as pasted text, trades it for a key and stores the key for the gateway's
 * origin. The verifier lives only in memory, in the one flow that may be waiting; nothing of the
 * flow is logged or written.
 */
export class OpenRouterSignIn extends Disposable implements vscode.UriHandler {
  private readonly flows = new SignInFlows();

  constructor(
    private readonly store: ApiKeyStore,
    private readonly settings: Settings,
    private readonly gateway: GatewayService,
    private readonly logger: Logger,
    private readonly offered: SignInOffered,
    /** Reads the new key's credit; its one-line description, or undefined. */
    private readonly creditAfterSignIn: () => Promise<string | undefined> = () => Promise.resolve(undefined),
  ) {
    super();
  }

  /** `gateway.signIn`: the browser, then back here with a key. */
  async signIn(): Promise<boolean> {
    const start = await this.prepare(false);
    if (!start) return false;
    const { pending, challenge } = start;
    let callback: vscode.Uri;
    try {
      // In a web or remote window this is an https URL of the host that hands the query back here.
      callback = await vscode.env.asExternalUri(
        vscode.Uri.parse(`${vscode.env.uriScheme}://${EXTENSION_ID}${CALLBACK_PATH}${pending.state}`),
      );
    } catch (error) {
      this.flows.cancel();
      void notify.error(`Gateway AI: no callback address could be made for the sign-in. ${errorText(error)}`);
      return false;
    }
    // Printed without re-encoding: `toString()` would escape the `=` and `&` of a web window's
    // callback query (`?vscode-reqid=…&vscode-scheme=…`), and its page would not find them.
    const page = signInPageUrl(pending.baseUrl, challenge, callback.toString(true));
    if (!(await this.openPage(page))) return false;
    const pasteInstead = 'Paste a Code Instead';
    const cancel = 'Cancel Sign In';
    void notify
      .info(
        'Gateway AI: finish signing in with OpenRouter in your browser. If it cannot come back to VS Code, sign in with a code to paste instead.',
        pasteInstead,
        cancel,
      )
      .then((choice) => {
        if (choice === pasteInstead) void this.signInWithCode();
        else if (choice === cancel && this.flows.waiting?.state === pending.state) this.flows.cancel();
      });
    return true;
  }

  /** `gateway.signInWithCode`: the page without a callback shows a code; the user pastes it here. */
  async signInWithCode(): Promise<boolean> {
    const start = await this.prepare(true);
    if (!start) return false;
    const { pending, challenge } = start;
    if (!(await this.openPage(signInPageUrl(pending.baseUrl, challenge, undefined)))) return false;
    const code = await vscode.window.showInputBox({
      title: 'Gateway AI: Sign In with OpenRouter',
      prompt: 'Paste the code the sign-in page shows. It works once, within ten minutes.',
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : 'Paste the code from the sign-in page.'),
    });
    if (code === undefined) {
      if (this.flows.waiting?.state === pending.state) this.flows.cancel();
      return false;
    }
    return this.finish(code, undefined);
  }

  /** The callback, from the browser through VS Code. */
  async handleUri(uri: vscode.Uri): Promise<void> {
    if (!uri.path.startsWith(CALLBACK_PATH)) return;
    const state = uri.path.slice(CALLBACK_PATH.length);
    const code = new URLSearchParams(uri.query).get('code') ?? undefined;
    await this.finish(code, state);
  }

  /** `gateway.signOut`: forgets the key here; it stays valid on the gateway until deleted there. */
  async signOut(): Promise<boolean> {
    const stored = await this.store.binding().catch(() => undefined);
    if (!stored) {
      void notify.info('Gateway AI: no API key is stored, so there is nothing to sign out of.');
      return false;
    }
    const agreed = await notify.confirm(
      `Sign out of ${stored.origin}?`,
      'The key is removed from VS Code\u2019s secret storage. The key itself stays valid on the gateway until you delete it there.',
      'Sign Out',
    );
    if (!agreed) return false;
    try {
      await this.store.clear();
    } catch (error) {
      void notify.error(`Gateway AI: the key could not be removed. ${errorText(error)}`);
      return false;
    }
    const page = keysPageUrl(stored.origin);
    const manage = 'Manage Keys';
    void notify
      .info(
        `Gateway AI: signed out; the key was removed from VS Code. It stays valid on ${stored.origin} until you delete it there.`,
        ...(page ? [manage] : []),
      )
      .then((picked) => {
        if (picked === manage && page) void vscode.env.openExternal(vscode.Uri.parse(page));
      });
    return true;
  }

  /** A new flow for the gateway now configured, or undefined (the user told why). */
  private async prepare(
    headless: boolean,
  ): Promise<{ pending: PendingSignIn; challenge: string } | undefined> {
    const baseUrl = this.settings.current.baseUrl;
    const origin = originOf(baseUrl);
    if (!origin) {
      void notify.error('Gateway AI: the gateway base URL is not an http(s) URL; fix it before signing in.');
      return undefined;
    }
    if (!(await this.offered(baseUrl))) {
      void notify.warn(
        `Gateway AI: Sign In with OpenRouter works with OpenRouter's kind of gateway, and ${origin} is another kind. Set its API key instead.`,
      );
      return undefined;
    }
    const pkce = await createPkce(webCrypto);
    const pending: PendingSignIn = {
      state: base64Url(webCrypto.randomBytes(STATE_BYTES)),
      verifier: pkce.verifier,
      baseUrl,
      startedAt: Date.now(),
      headless,
    };
    this.flows.begin(pending);
    return { pending, challenge: pkce.challenge };
  }

  private async openPage(page: string | undefined): Promise<boolean> {
    if (!page) {
      this.flows.cancel();
      return false;
    }
    // A string, not a parsed Uri: parsing and printing again would re-encode the callback inside
    // the query (microsoft/vscode#83610). VS Code's openExternal takes either.
    const opened = await vscode.env.openExternal(page as unknown as vscode.Uri);
    if (!opened) {
      this.flows.cancel();
      void notify.warn('Gateway AI: the sign-in page was not opened, so no sign-in is waiting.');
    }
    return opened;
  }

  /** Takes a code (from the callback, or pasted) for the waiting flow and stores the key it buys. */
  private async finish(code: string | undefined, state: string | undefined): Promise<boolean> {
    const claim = this.flows.claim(code, state, Date.now());
    if (!claim.ok) {
      void notify.error(`Gateway AI: ${claim.reason}`);
      return false;
    }
    const { pending } = claim;
    if (this.settings.current.baseUrl !== pending.baseUrl) {
      void notify.error(
        'Gateway AI: the gateway base URL changed while signing in, so the code was not used. Sign in again.',
      );
      return false;
    }
    const origin = originOf(pending.baseUrl);
    let reply;
    try {
      reply = parseAuthKeyReply(await this.gateway.client().exchangeAuthCode(claim.code, pending.verifier));
    } catch (error) {
      this.logger.warn(`Sign-in: the code exchange failed. ${errorText(error)}`);
      void notify.error(`Gateway AI: signing in failed. ${errorText(error)}`);
      return false;
    }
    if (!reply || !origin) {
      void notify.error('Gateway AI: signing in failed: the gateway answered without a usable key.');
      return false;
    }
    try {
      await this.store.set(reply.key, origin);
    } catch (error) {
      void notify.error(`Gateway AI: signed in, but the key could not be stored. ${errorText(error)}`);
      return false;
    }
    this.logger.info(`Signed in; a key is stored for ${origin}.`);
    const credit = await this.creditAfterSignIn().catch(() => undefined);
    const pick = 'Choose a Model';
    void notify
      .info(
        `Gateway AI: signed in. Your key is stored for ${origin}, and goes nowhere else.${credit ? ` ${credit}` : ''}`,
        pick,
      )
      .then((choice) => {
        if (choice === pick) void vscode.commands.executeCommand(Command.selectModel);
      });
    return true;
  }
}

function errorText(error: unknown): string {
  if (GatewayError.is(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Sign In, Sign In with a Code, Sign Out, and the callback's handler. */
export function registerSignIn(signIn: OpenRouterSignIn): vscode.Disposable[] {
  return [
    vscode.window.registerUriHandler(signIn),
    vscode.commands.registerCommand(Command.signIn, () => signIn.signIn()),
    vscode.commands.registerCommand(Command.signInWithCode, () => signIn.signInWithCode()),
    vscode.commands.registerCommand(Command.signOut, () => signIn.signOut()),
  ];
}
