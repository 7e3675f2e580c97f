import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { NEWEST_CODE_SERVER } from '../launch/vscodeServer';
import { openWorkbench, screenshots } from './workbench';
import type { Workbench } from './workbench';

const KEY = 'sk-e2e-vscode-chat-0123456789';

/**
 * The gateway's models in VS Code's own Chat view, in the real VS Code 1.139 workbench, signed
 * out: a model picked from the chat's model picker answers a prompt with the simulator's reply.
 */
describe("Gateway models in VS Code 1.139's built-in chat", function () {
  this.timeout(240_000);
  let sim: GatewaySimulator;
  let workbench: Workbench;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 2 });
    workbench = await openWorkbench({
      name: 'vscode-chat',
      codeServerVersion: NEWEST_CODE_SERVER,
      settings: {
        'gateway.baseUrl': sim.baseUrl,
        'gateway.languageModels.include': ['sim/*'],
        // The test's profile, not the extension, turns VS Code's chat on: a fresh browser profile
        // starts with it off until chat setup runs (see below).
        'chat.disableAIFeatures': false,
        'chat.allowAnonymousAccess': true,
        'workbench.colorTheme': 'Default Dark Modern',
      },
      env: { GATEWAY_AI_DEMO_KEY: KEY },
    });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await workbench?.screenshot(
        path.join(screenshots, `failed-${this.currentTest.title.replace(/\W+/g, '-')}.png`),
      );
  });

  after(async () => {
    await workbench?.close();
    await sim?.close();
  });

  it('a gateway model picked in the Chat view answers a prompt', async function () {
    const { page } = workbench;
    // The unlock a test may use: "Manage Language Models" re-enables the built-in chat (off in a
    // fresh profile) and lists every vendor's models, which asks our provider for them.
    // In a fresh browser profile on a loaded machine, VS Code 1.139's palette sometimes does not
    // list this command at all within the wait; without it the built-in chat stays locked. That
    // is VS Code's set-up, not ours: the test is then reported pending, never passed.
    const unlocked = await workbench.runCommand('Chat: Manage Language Models').then(
      () => true,
      () => false,
    );
    if (!unlocked) {
      console.log(
        'Chat: Manage Language Models was not offered by the palette; the built-in chat test is pending.',
      );
      this.skip();
    }
    const deadline = Date.now() + 60_000;
    while (!sim.requests.some((r) => r.method === 'GET' && r.path.endsWith('/v1/models'))) {
      if (Date.now() > deadline) throw new Error('VS Code never asked the gateway for its models');
      await page.waitForTimeout(250);
    }
    await page.keyboard.press('Escape');
    await workbench.runCommand('Chat: Open Chat');
    const input = page.locator('.interactive-input-part').first();
    await input.waitFor({ timeout: 30_000 });

    // Pick the model from the chat's own model picker.
    const picker = input.locator('.action-label.model-picker-split').first();
    const option = page
      .locator('.action-widget .monaco-list-row', { hasText: 'Simulator: Echo Vision' })
      .first();
    for (let attempt = 0; ; attempt++) {
      await picker.click();
      if (
        await option.waitFor({ timeout: 10_000 }).then(
          () => true,
          () => false,
        )
      )
        break;
      await page.keyboard.press('Escape');
      if (attempt === 5) throw new Error('The model picker never offered the gateway model');
    }
    assert.match((await option.textContent()) ?? '', /\$0\.15 in \/ \$0\.60 out per 1M tokens/);
    await option.click();
    await input
      .locator('.model-picker-split', { hasText: 'Echo Vision' })
      .first()
      .waitFor({ timeout: 15_000 });

    const before = sim.requests.length;
    // The input is a Monaco editor whose keyboard target is its edit context; a decoration lies
    // over it, so it takes the focus directly, as a click into it would give it.
    const editor = input
      .locator('.interactive-input-editor .native-edit-context, .interactive-input-editor textarea')
      .first();
    await editor.focus();
    // Key by key with a pause: on a loaded machine the edit context drops fast keystrokes (spaces
    // first), and the assertion below needs the text exactly.
    await page.keyboard.type('Hello from VS Code chat', { delay: 40 });
    await input
      .locator('.interactive-input-editor', { hasText: 'Hello from VS Code chat' })
      .first()
      .waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const reply = page.locator('.interactive-response', { hasText: 'Echo from sim/echo-vision' }).last();
    await reply.waitFor({ timeout: 90_000 });
    await page.waitForTimeout(1500);
    await workbench.screenshot(path.join(screenshots, 'readme-vscode-chat.png'));

    const chat = sim.requests.slice(before).filter((r) => r.path.endsWith('/v1/chat/completions'));
    assert.ok(chat.length > 0, 'the prompt reached the gateway');
    const asked = chat.find((r) => JSON.stringify(r.body).includes('Hello from VS Code chat'));
    assert.ok(asked, 'the prompt itself was sent');
    assert.equal((asked.body as { model: string }).model, 'sim/echo-vision');
    assert.equal(asked.headers.authorization, `Bearer ${KEY}`);
    assert.match((await reply.textContent()) ?? '', /Hello from VS Code chat/);
    // Nothing was signed in for this.
    assert.equal(await page.locator('.monaco-dialog-box', { hasText: /Sign in/i }).count(), 0);
  });
});
