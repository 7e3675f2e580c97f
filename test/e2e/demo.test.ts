/**
 * `npm run demo` as a person meets it: the window opens on the Gateway AI chat (no click on the
 * activity bar, no sign-in) with TRY-ME.md open in the editor, and the chat answers through the
 * simulator with the demo key.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { prepareDemo } from '../launch/demo';
import { workRoot } from '../launch/paths';
import { startGatewaySimulator } from '../simulator';
import type { GatewaySimulator } from '../simulator';
import { openWorkbench } from './workbench';
import type { Workbench } from './workbench';

describe('npm run demo', function () {
  this.timeout(240_000);
  let sim: GatewaySimulator;
  let workbench: Workbench;

  before(async () => {
    sim = await startGatewaySimulator({ chunkDelayMs: 2 });
    const demo = prepareDemo(path.join(workRoot, 'e2e', 'demo-files'), sim.baseUrl);
    workbench = await openWorkbench({
      name: 'demo',
      folder: demo.workspace,
      developmentPath: demo.launcher,
      settings: demo.userSettings,
      env: { GATEWAY_AI_DEMO_KEY: 'sk-demo-local-simulator' },
    });
  });

  after(async () => {
    await workbench?.close();
    await sim?.close();
  });

  it('opens straight into the Gateway AI chat with TRY-ME.md in the editor', async () => {
    const { page } = workbench;
    // Nothing is clicked: the launcher opened the view and the file.
    const frame = await workbench.webviewFrame('.composer-input', 90_000);
    await page.locator('.tabs-container .tab', { hasText: 'TRY-ME.md' }).first().waitFor({ timeout: 30_000 });
    const input = frame.locator('.composer-input');
    await input.click();
    await input.fill('Hello from the demo');
    await input.press('Enter');
    await frame.locator('.turn-assistant', { hasText: 'Hello from the demo' }).waitFor({ timeout: 30_000 });
    const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
    assert.equal(chat?.headers.authorization, 'Bearer sk-demo-local-simulator');
  });
});
