/**
 * Restricted Mode with the installed package (issue 31, item 2): a folder that is not trusted no
 * longer turns the extension off. Workspace trust is on and the folder is never trusted; the
 * package from the .vsix still shows its view, the chat answers through the user's own gateway,
 * and the panel says what is off and why.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { screenshots, sendAndWait, useSimulatorWorkbench } from './workbench';

const KEY = 'sk-e2e-restricted-0123456789';

describe('Restricted Mode with the installed package', function () {
  this.timeout(240_000);
  const run = useSimulatorWorkbench({ chunkDelayMs: 2 }, (sim) => ({
    name: 'restricted',
    workspaceTrust: true,
    settings: { 'gateway.baseUrl': sim.baseUrl, 'gateway.chat.model': 'demo/echo-1' },
    files: {
      'notes.md': '# Notes\n',
      // The folder's own settings: ignored in Restricted Mode.
      '.vscode/settings.json': JSON.stringify({ 'gateway.chat.systemPrompt': 'HOSTILE-SYSTEM-PROMPT' }),
    },
  }));

  it('the chat view is there and answers; the panel says it is Restricted Mode and what that turns off', async () => {
    const { workbench, sim } = run;
    await workbench.setApiKey(KEY);
    await workbench.openGatewayView();
    const frame = await workbench.webviewFrame('.composer-input');
    const notice = frame.locator('.trust-notice');
    await notice.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await notice.textContent()) ?? '', /Restricted Mode.*cannot edit files or run commands/s);
    const text = await sendAndWait(frame, 'Hello from a folder nobody trusted');
    assert.match(text, /Hello from a folder nobody trusted/);
    const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
    assert.equal(chat?.headers.authorization, `Bearer ${KEY}`);
    assert.ok(!JSON.stringify(chat?.body).includes('HOSTILE-SYSTEM-PROMPT'));
    await workbench.screenshot(path.join(screenshots, 'restricted-mode.png'));
  });
});
