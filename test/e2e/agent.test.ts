import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { NOTES, TIDIED_NOTES, TIDY_NOTES_PROMPT, waitForContent } from './tidyNotes';
import { screenshots, useSimulatorWorkbench } from './workbench';

/**
 * The agent in the real workbench, from the installed .vsix: a scripted model (see
 * test/simulator/agentScript.ts) edits a file; the card asks; the user clicks "Allow once";
 * the file changes. The card awaiting approval is the README's picture (`agent.png`).
 */
describe('Agent in the real workbench: the model edits a file after the user allows it', function () {
  this.timeout(240_000);
  const fixture = useSimulatorWorkbench({ chunkDelayMs: 1 }, (sim) => ({
    name: 'agent',
    settings: {
      'gateway.baseUrl': sim.baseUrl,
      // The simulator's catalog lists `tools` for this model, so the panel offers its tools.
      'gateway.chat.model': 'testvendor/echo-model',
      'workbench.colorTheme': 'Default Dark Modern',
    },
    apiKey: 'sk-e2e-agent-0123456789',
    files: { 'notes.txt': NOTES },
  }));

  it('reads, proposes an edit with its diff, and applies it once allowed', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    await workbench.openGatewayView();
    // Room for the card, as someone working with the agent would have it: a wider sidebar with
    // the media view folded, and no notification over the diff.
    // The sash on the sidebar's right edge, dragged as a person would.
    const sidebar = await page.locator('.part.sidebar').boundingBox();
    if (sidebar) {
      const edge = { x: sidebar.x + sidebar.width + 1, y: sidebar.y + 300 };
      await page.mouse.move(edge.x, edge.y);
      await page.mouse.down();
      await page.mouse.move(620, edge.y, { steps: 5 });
      await page.mouse.up();
    }
    await workbench.setSectionExpanded('Media Jobs', false);
    await workbench.runCommand('Notifications: Clear All Notifications');
    const frame = await workbench.webviewFrame('.composer-input');
    const input = frame.locator('.composer-input');
    await input.click();
    await input.fill(TIDY_NOTES_PROMPT);
    await input.press('Enter');

    const card = frame.locator('.tool-card', { hasText: 'edit_file' });
    const allow = card.getByRole('button', { name: 'Allow this call once' });
    await allow.waitFor({ timeout: 30_000 });
    assert.match((await card.textContent()) ?? '', /-beta[\s\S]*\+Beta/, 'the card shows the diff');
    assert.equal(
      readFileSync(path.join(workbench.workspace, 'notes.txt'), 'utf8'),
      NOTES,
      'nothing applied yet',
    );
    // VS Code's diff editor shows the proposed change beside the chat.
    await page
      .locator('.monaco-diff-editor .editor.modified .view-lines', { hasText: 'Beta' })
      .first()
      .waitFor();
    await card.scrollIntoViewIfNeeded();
    await workbench.screenshot(path.join(screenshots, 'agent.png'));

    await allow.click();
    await waitForContent(page, path.join(workbench.workspace, 'notes.txt'), TIDIED_NOTES);
    await frame
      .locator('.tool-card', { hasText: 'edit_file' })
      .locator('.tool-state', { hasText: /Done/ })
      .waitFor();
    await frame.locator('.turn-assistant', { hasText: 'now reads' }).waitFor({ timeout: 30_000 });
    const chat = sim.requests.filter((r) => r.agentStep !== undefined || r.wireProblem !== undefined);
    assert.deepEqual(
      chat.map((r) => r.wireProblem ?? r.agentStep),
      [1, 2, 3],
    );
    assert.match(chat[1].toolMessages?.[0]?.content ?? '', /alpha/);
  });
});
