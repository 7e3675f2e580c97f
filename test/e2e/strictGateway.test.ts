import * as assert from 'node:assert/strict';
import { sendAndWait, useSimulatorWorkbench } from './workbench';

const KEY = 'sk-e2e-strict-0123456789';

/**
 * The installed .vsix against a strict OpenAI-style gateway (`http://127.0.0.1:PORT/v1`, ids
 * without a slash, usage only when asked for, any field OpenAI's API does not take refused): the
 * user picks the gateway's own id from the picker, the reply shows its tokens, and an agent turn
 * reads a file.
 */
describe('A strict OpenAI-style gateway in the real workbench', function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench({ dialect: 'strict-openai', chunkDelayMs: 2 }, (sim) => ({
    name: 'strict-gateway',
    settings: { 'gateway.baseUrl': sim.baseUrl },
    apiKey: KEY,
    files: { 'notes.txt': 'alpha\nbeta\ngamma\n' },
  }));

  it('the base URL is the gateway’s …/v1', () => {
    assert.match(fixture.sim.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('an id without a slash is picked from the picker, and the reply shows its tokens', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    await workbench.runCommand('Gateway AI: Select Chat Model');
    // The gateway's own id, not the default (`openai/gpt-4o-mini`) listed as the current model.
    const row = page.locator('.quick-input-list .monaco-list-row .label-name', { hasText: /^gpt-4o$/ });
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });

    const frame = await workbench.webviewFrame('.composer-input');
    // The panel's header names the picked model once the setting has changed.
    await frame
      .locator('.model-name', { hasText: /^gpt-4o$/ })
      .waitFor({ state: 'attached', timeout: 15_000 });
    const text = await sendAndWait(frame, 'Hello, strict gateway');
    assert.match(text, /Hello, strict gateway/);
    const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
    assert.equal(chat?.headers.authorization, `Bearer ${KEY}`);
    assert.equal((chat?.body as { model?: string }).model, 'gpt-4o', 'the picked id was sent');
    const facts = (await frame.locator('.turn-assistant').last().locator('.turn-facts').textContent()) ?? '';
    assert.match(facts, /^gpt-4o · /, facts);
    assert.match(facts, /\d+ in · \d+ out/, `the tokens under the reply: "${facts}"`);
  });

  it('an agent turn reads a file', async () => {
    const { workbench, sim } = fixture;
    const frame = await workbench.webviewFrame('.composer-input');
    const mark = sim.requests.length;
    const script = [
      { calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The notes say: {{results}}' },
    ];
    const text = await sendAndWait(
      frame,
      `Read notes.txt\n\`\`\`sim-agent\n${JSON.stringify(script)}\n\`\`\``,
    );
    await frame.locator('.turn-assistant', { hasText: 'The notes say' }).last().waitFor({ timeout: 30_000 });
    const asked = sim.requests.slice(mark).filter((r) => r.agentStep !== undefined || r.wireProblem);
    // A body field the gateway refuses is learned from its 400 and the request sent again without it.
    for (const refused of asked.filter((r) => r.wireProblem))
      assert.match(refused.wireProblem ?? '', /^Unrecognized request argument supplied: /);
    const steps = asked.filter((r) => r.agentStep !== undefined);
    assert.deepEqual(
      steps.map((r) => r.agentStep),
      [1, 2],
      `what the gateway was asked; the panel showed: ${text}`,
    );
    assert.match(steps[1].toolMessages?.[0]?.content ?? '', /alpha[\s\S]*beta/);
    await frame.locator('.tool-card', { hasText: 'read_file' }).first().waitFor();
  });
});
