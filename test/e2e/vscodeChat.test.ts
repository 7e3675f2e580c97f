import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { NEWEST_CODE_SERVER } from '../launch/vscodeServer';
import { screenshots, useSimulatorWorkbench } from './workbench';

const KEY = 'sk-e2e-vscode-chat-0123456789';

/**
 * The gateway's models in VS Code's own Chat view, in the real VS Code 1.139 workbench, signed
 * out: a model picked from the chat's model picker answers a prompt with the simulator's reply.
 */
describe("Gateway models in VS Code 1.139's built-in chat", function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench({ chunkDelayMs: 2 }, (sim) => ({
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
  }));

  const modelsAsked = () =>
    fixture.sim.requests.some((r) => r.method === 'GET' && r.path.endsWith('/v1/models'));
  async function waitFor(done: () => boolean, timeoutMs: number, message: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(message);
      await fixture.workbench.page.waitForTimeout(250);
    }
  }

  it('a gateway model picked in the Chat view answers a prompt', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    // VS Code 1.139 opens its Chat view in the secondary side bar of a fresh profile; if a
    // layout hides it, its keybinding shows it.
    const input = page.locator('.interactive-input-part').first();
    if (!(await input.isVisible())) await page.keyboard.press('Control+Alt+KeyI');
    await input.waitFor({ timeout: 30_000 });

    // Pick the model from the chat's own model picker. In a fresh profile it offers only "Auto"
    // and "Manage Models...": VS Code asks providers for their models lazily, and the built-in
    // chat stays locked until chat setup runs. "Manage Models..." is the unlock a user clicks
    // (the recipe's workbench.action.chat.manage): it turns the built-in chat on and lists every
    // vendor's models, which asks our provider. The extension itself never changes chat settings.
    const picker = input
      .locator('.action-label.model-picker-split, .chat-model-picker-item .action-label')
      .first();
    const row = (text: string) => page.locator('.action-widget .monaco-list-row', { hasText: text }).first();
    const option = row('Simulator: Echo Vision');
    for (let attempt = 0; ; attempt++) {
      await picker.click();
      const shown = await Promise.race([
        option.waitFor({ timeout: 10_000 }).then(
          () => 'model' as const,
          () => 'nothing' as const,
        ),
        row('Manage Models')
          .waitFor({ timeout: 10_000 })
          .then(
            () => 'manage' as const,
            () => 'nothing' as const,
          ),
      ]);
      // The model row may render a moment after "Manage Models...".
      if (shown === 'model' || (await option.isVisible())) break;
      if (shown === 'manage' && !modelsAsked()) {
        await row('Manage Models').click();
        await waitFor(modelsAsked, 60_000, 'VS Code never asked the gateway for its models');
      }
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
