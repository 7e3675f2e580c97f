import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { gatewayApi, setSetting, TEST_KEY, waitFor } from './helpers';
import { observed } from './observed';

/**
 * Takes what the extension asks VS Code to open in the browser, as the exact value it passed,
 * instead of letting the workbench ask "Do you want to open the external website?" (a dialog the
 * test window refuses). The test then does what the browser would.
 */
function catchOpenExternal(): { opened: unknown[]; dispose(): void } {
  const env = vscode.env as unknown as Record<string, unknown>;
  const original = env.openExternal;
  const opened: unknown[] = [];
  env.openExternal = (target: unknown) => {
    opened.push(target);
    return Promise.resolve(true);
  };
  return {
    opened,
    dispose: () => {
      env.openExternal = original;
    },
  };
}

// Sign in with OpenRouter: the command opens the gateway's sign-in page; the test is the browser
// (it fetches that exact URL and follows the page's redirect to the callback); VS Code hands the
// callback to the extension's URI handler; the extension trades the code for a key.
describe('Sign in with OpenRouter', function () {
  this.timeout(60_000);
  let sim: GatewaySimulator;
  let previousBaseUrl: string | undefined;

  before(async () => {
    previousBaseUrl = vscode.workspace.getConfiguration('gateway').inspect<string>('baseUrl')?.globalValue;
    sim = await startGatewaySimulator({ host: '127.0.0.2', chunkDelayMs: 0 });
    await setSetting('baseUrl', sim.baseUrl);
    // The simulator answers as OpenRouter does; a user of an OpenRouter deployment on another host says so.
    await setSetting('dialect', 'openrouter');
  });
  after(async () => {
    await setSetting('dialect', undefined);
    await setSetting('baseUrl', previousBaseUrl);
    await vscode.commands.executeCommand('gateway.setApiKey', TEST_KEY);
    await sim.close();
  });

  /** Starts the sign-in and returns the page URL exactly as handed to openExternal. */
  async function startSignIn(command = 'gateway.signIn'): Promise<string> {
    const browser = catchOpenExternal();
    try {
      const started = vscode.commands.executeCommand<boolean>(command);
      await waitFor(() => browser.opened.length > 0, 'the sign-in page to be opened');
      if (command === 'gateway.signIn') assert.equal(await started, true);
      const page = browser.opened[0];
      assert.equal(typeof page, 'string', 'the page URL goes to openExternal as a string, not re-encoded');
      return page as string;
    } finally {
      browser.dispose();
    }
  }

  /** The browser: visits the page, follows its redirect; the callback URL with the code. */
  async function visit(page: string): Promise<URL> {
    const response = await fetch(page, { redirect: 'manual' });
    assert.equal(response.status, 302);
    return new URL(response.headers.get('location') ?? '');
  }

  /** What VS Code hands the URI handler for a callback URL (desktop: itself; web: its vscode-* query). */
  function handedUri(callback: URL): vscode.Uri {
    const code = callback.searchParams.get('code') ?? '';
    const scheme = callback.searchParams.get('vscode-scheme');
    if (!scheme) return vscode.Uri.parse(callback.toString());
    return vscode.Uri.from({
      scheme,
      authority: callback.searchParams.get('vscode-authority') ?? '',
      path: callback.searchParams.get('vscode-path') ?? '',
      query: `code=${encodeURIComponent(code)}`,
    });
  }

  it('opens the page with an S256 challenge and a whole callback, and stores the key it returns for the gateway origin', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const page = await startSignIn();
    const asked = new URL(page);
    assert.equal(`${asked.origin}${asked.pathname}`, `${sim.origin}/auth`);
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.match(asked.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const callback = await visit(page);
    assert.equal(sim.oauth.visits.at(-1)?.callbackUrl, asked.searchParams.get('callback_url'));
    const uri = handedUri(callback);
    assert.equal(uri.authority, 'gateway-ai.gateway-ai', `callback: ${callback.toString()}`);
    assert.match(uri.path, /^\/signin\/[A-Za-z0-9_-]{22}$/);
    await api.signIn.handleUri(uri);
    assert.equal(sim.oauth.issuedKeys.length, 1);
    assert.deepEqual(await api.apiKey.binding(), { key: sim.oauth.issuedKeys[0], origin: sim.origin });
    const exchange = sim.requests.find((r) => r.path === '/api/v1/auth/keys');
    assert.equal(exchange?.headers.authorization, undefined, 'the exchange carries no key');
  });

  it('the same callback arriving twice is refused the second time, and the key stays', async () => {
    const api = await gatewayApi();
    const page = await startSignIn();
    const uri = handedUri(await visit(page));
    await api.signIn.handleUri(uri);
    const key = await api.apiKey.get();
    assert.equal(key, sim.oauth.issuedKeys.at(-1));
    const exchanges = sim.requests.filter((r) => r.path === '/api/v1/auth/keys').length;
    const shown = observed.notifications.length;
    await api.signIn.handleUri(uri);
    assert.ok(
      observed.notifications
        .slice(shown)
        .some((n) => n.severity === 'error' && /already completed/.test(n.message)),
    );
    assert.equal(sim.requests.filter((r) => r.path === '/api/v1/auth/keys').length, exchanges);
    assert.equal(await api.apiKey.get(), key);
  });

  it('is not offered where the gateway is another kind, and opens nothing', async () => {
    await setSetting('dialect', 'litellm');
    const browser = catchOpenExternal();
    const shown = observed.notifications.length;
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('gateway.signIn'), false);
    } finally {
      browser.dispose();
      await setSetting('dialect', 'openrouter');
    }
    assert.equal(browser.opened.length, 0);
    assert.ok(
      observed.notifications
        .slice(shown)
        .some((n) => /another kind\. Set its API key instead/.test(n.message)),
    );
  });

  it('a callback that arrives with no sign-in waiting is refused with a message, and nothing is sent', async () => {
    const api = await gatewayApi();
    const before = await api.apiKey.get();
    const exchanges = sim.requests.filter((r) => r.path === '/api/v1/auth/keys').length;
    const shown = observed.notifications.length;
    await api.signIn.handleUri(
      vscode.Uri.parse(
        `${vscode.env.uriScheme}://gateway-ai.gateway-ai/signin/never-started?code=code-stray`,
      ),
    );
    assert.ok(observed.notifications.slice(shown).some((n) => /No sign-in is waiting/.test(n.message)));
    assert.equal(await api.apiKey.get(), before);
    assert.equal(sim.requests.filter((r) => r.path === '/api/v1/auth/keys').length, exchanges);
  });

  it('with a pasted code (headless page, no callback), signs in too', async () => {
    const api = await gatewayApi();
    await vscode.commands.executeCommand('gateway.clearApiKey');
    const window = vscode.window as unknown as Record<string, unknown>;
    const original = window.showInputBox;
    let page: string | undefined;
    const browser = catchOpenExternal();
    window.showInputBox = async () => {
      page = browser.opened[0] as string;
      const html = await (await fetch(page)).text();
      return /<pre id="code">([^<]+)<\/pre>/.exec(html)?.[1];
    };
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('gateway.signInWithCode'), true);
    } finally {
      window.showInputBox = original;
      browser.dispose();
    }
    assert.equal(new URL(page ?? '').searchParams.has('callback_url'), false);
    assert.deepEqual(await api.apiKey.binding(), { key: sim.oauth.issuedKeys.at(-1), origin: sim.origin });
  });
});
