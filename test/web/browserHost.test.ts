import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { NOTES, TIDIED_NOTES, TIDY_NOTES_PROMPT, waitForContent } from '../e2e/tidyNotes';
import { screenshots, sendAndWait, useSimulatorWorkbench } from '../e2e/workbench';
import type { RecordedRequest } from '../simulator';
import {
  BROWSER_ENTRY,
  EXTENSION_ID,
  NODE_ENTRY,
  nodeHostActivations,
  recordBrowserRequests,
  webWorkbenchOptions,
} from './webWorkbench';

const KEY = 'sk-web-tier-0123456789';
const STATS_TS =
  '/** The mean of the values, or 0 for none. */\nexport function mean(values: number[]): number {\n  if (values.length === 0) return 0;\n';
const COMPLETION = 'values.reduce((sum, value) => sum + value, 0) / values.length;';
const shot = (name: string): string => path.join(screenshots, `web-${name}.png`);

/** The gateway's API requests (not its preflights), as the simulator recorded them. */
function apiRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.path.startsWith('/api/'));
}

/**
 * The web tier: the .vsix this run built, in code-server 4.100.3's web worker extension host (its
 * `browser` entry), driven as a new user would, against the simulator answering CORS. One server
 * and one workbench for the whole tier: the tests run in order and build on each other (the key,
 * then a chat, media, the agent), as one person's session does; the gateway that refuses CORS
 * comes last.
 */
describe('In the browser: the package from its browser entry, in the web worker extension host', function () {
  this.timeout(240_000);
  const browser = recordBrowserRequests();
  // Media checks come about 1 s, 3 s and 8 s after the start (±20%): see test/e2e/media.test.ts.
  const fixture = useSimulatorWorkbench(
    { chunkDelayMs: 2, mediaTimings: { queuedMs: 1500, processingMs: 4500 } },
    (sim) =>
      webWorkbenchOptions(sim, {
        name: 'web',
        settings: {
          // The simulator's catalog lists `tools` for this model, so the panel offers its tools.
          'gateway.chat.model': 'testvendor/echo-model',
          'gateway.media.model': 'demo/image-1',
          'gateway.inlineCompletions.enabled': true,
          'gateway.inlineCompletions.model': 'sim/coder',
          'gateway.inlineCompletions.mode': 'fim',
        },
        files: { 'notes.txt': NOTES, 'stats.ts': STATS_TS },
        onPage: browser.onPage,
      }),
  );
  /** The chat view's frame (looked up again by each test: a webview's frame can be replaced). */
  const chatView = (): Promise<Frame> => fixture.workbench.webviewFrame('.composer-input');

  it('the key is set from the command palette, and the chat view no longer asks for it', async () => {
    const { workbench } = fixture;
    await workbench.openGatewayView();
    const chatFrame = await chatView();
    await chatFrame.locator('.welcome button', { hasText: 'Set API Key' }).waitFor({ timeout: 30_000 });
    await workbench.setApiKey(KEY);
    await chatFrame
      .locator('.welcome button', { hasText: 'Set API Key' })
      .waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('a chat streams its reply and shows the cost the gateway reported', async () => {
    const { workbench, sim } = fixture;
    const chatFrame = await chatView();
    const text = await sendAndWait(chatFrame, 'Hello from the browser');
    assert.match(text, /Hello from the browser/);
    const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
    assert.ok(chat, 'the gateway got the chat');
    assert.equal(chat.headers.authorization, `Bearer ${KEY}`);
    assert.equal((chat.body as { stream?: boolean }).stream, true);
    // The reply's cost is `usage.cost` from the stream's last chunk: no header is readable here.
    const facts =
      (await chatFrame.locator('.turn-assistant').last().locator('.turn-facts').textContent()) ?? '';
    assert.match(facts, /\$\d/, `the turn shows its cost: ${facts}`);
    assert.doesNotMatch(facts, /estimated|not reported/, facts);
    await workbench.screenshot(shot('chat'));
  });

  it('it ran in the browser: Origin and preflights at the gateway, the bundle loaded there, the Node host never activated it', () => {
    const { workbench, sim } = fixture;
    const api = apiRequests(sim.requests);
    assert.ok(api.length > 0, 'the gateway was called');
    const withoutOrigin = api.filter((r) => typeof r.headers.origin !== 'string');
    assert.deepEqual(
      withoutOrigin.map((r) => `${r.method} ${r.path}`),
      [],
      'every request carried an Origin, as only a browser sends one',
    );
    assert.ok(sim.originsSeen.length > 0);
    const preflights = sim.preflights.filter((p) => p.path.endsWith('/v1/chat/completions'));
    assert.ok(preflights.length > 0, 'the chat came after a CORS preflight');
    assert.ok(
      preflights.every((p) => p.origin && /authorization/.test(p.requestHeaders ?? '')),
      'the preflight asked, from an Origin, to send the key',
    );

    assert.ok(BROWSER_ENTRY, 'package.json has a browser entry');
    assert.ok(
      browser.requests.loadedExtensionFile(BROWSER_ENTRY),
      `the browser loaded ${BROWSER_ENTRY} of ${EXTENSION_ID}`,
    );
    assert.equal(BROWSER_ENTRY, NODE_ENTRY, 'both hosts load the one host bundle');

    const node = nodeHostActivations(workbench.server.userDataDir);
    assert.ok(node.logs.length > 0, "the server's extension host wrote its log");
    assert.ok(node.activated.length > 0, `the log names what it activated (${node.logs.join(', ')})`);
    assert.ok(
      !node.activated.includes(EXTENSION_ID),
      `the Node extension host never activated ${EXTENSION_ID}: ${node.activated.join(', ')}`,
    );
  });

  it('a media job completes, shows in the Media Jobs tree and in the gallery', async () => {
    const { workbench } = fixture;
    const { page } = workbench;
    const prompt = 'a lighthouse in the browser';
    await workbench.runCommand('Gateway AI: Generate Media…');
    await workbench.answerInput('Generate Media (1/3)', prompt);
    await workbench.answerInput('Generate Media (2/3)');
    await workbench.answerInput('Generate Media (3/3)');
    // The Media Jobs section beside the chat (the sidebar shows the extension since the first test).
    await workbench.setSectionExpanded('Media Jobs', true);
    await page
      .locator('.pane-body .monaco-list-row', { hasText: prompt })
      .filter({ hasText: 'completed' })
      .first()
      .waitFor({ timeout: 40_000 });

    await workbench.runCommand('Gateway AI: Open Media Gallery');
    const gallery = await workbench.webviewFrame('.grid .card');
    const card = gallery.locator('.grid .card', { hasText: prompt }).first();
    await card.waitFor({ timeout: 20_000 });
    assert.match((await card.locator('.state').textContent()) ?? '', /completed/);
    const thumb = card.locator('img.thumb');
    await thumb.waitFor({ timeout: 30_000 });
    // Drawn: the picture the gateway served has loaded, not a placeholder.
    await gallery.waitForFunction(
      (element) => (element as unknown as { naturalWidth: number }).naturalWidth > 0,
      await thumb.elementHandle(),
      { timeout: 30_000 },
    );
    await workbench.screenshot(shot('gallery'));
    await workbench.runCommand('View: Close All Editors');
  });

  it('an agent turn reads and edits a file once allowed, then "Restore to here" puts it back', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    const notes = path.join(workbench.workspace, 'notes.txt');
    await workbench.openGatewayView();
    await workbench.setSectionExpanded('Media Jobs', false);
    await workbench.runCommand('Notifications: Clear All Notifications');
    const before = sim.requests.length;
    const chatFrame = await chatView();
    const input = chatFrame.locator('.composer-input');
    await input.click();
    await input.fill(TIDY_NOTES_PROMPT);
    await input.press('Enter');

    const card = chatFrame.locator('.tool-card', { hasText: 'edit_file' });
    const allow = card.getByRole('button', { name: 'Allow this call once' });
    await allow.waitFor({ timeout: 30_000 });
    assert.match((await card.textContent()) ?? '', /-beta[\s\S]*\+Beta/, 'the card shows the diff');
    assert.equal(readFileSync(notes, 'utf8'), NOTES, 'nothing applied yet');
    await workbench.screenshot(shot('agent'));
    await allow.click();
    await waitForContent(page, notes, TIDIED_NOTES);
    await chatFrame.locator('.turn-assistant', { hasText: 'now reads' }).waitFor({ timeout: 30_000 });
    const steps = sim.requests
      .slice(before)
      .filter((r) => r.agentStep !== undefined || r.wireProblem !== undefined);
    assert.deepEqual(
      steps.map((r) => r.wireProblem ?? r.agentStep),
      [1, 2, 3],
    );
    assert.match(steps[1].toolMessages?.[0]?.content ?? '', /alpha/, 'the model read the file');

    // The prompt's checkpoint, kept with workspace.fs (no git process in a browser).
    const restore = chatFrame
      .locator('.turn-user', { hasText: 'Tidy up notes.txt' })
      .last()
      .getByRole('button', { name: /Restore the workspace files/ });
    await restore.waitFor({ timeout: 30_000 });
    await restore.click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /Restore 1 file/, 'it names what it puts back');
    await dialog.getByRole('button', { name: 'Restore Files', exact: true }).click();
    await waitForContent(page, notes, NOTES);
  });

  it('the Tools menu says why there are no terminal commands here', async () => {
    const { workbench } = fixture;
    const chatFrame = await chatView();
    const toggle = chatFrame.getByRole('button', { name: /^Agent tools/ });
    await toggle.click();
    const panel = chatFrame.locator('#tool-picker');
    await panel.waitFor({ timeout: 10_000 });
    const text = (await panel.textContent()) ?? '';
    assert.match(text, /command/i, text);
    assert.match(text, /browser|for the Web/i, `it names the reason: ${text}`);
    assert.match(text, /remote|Codespaces|tunnel/i, `it says where commands do run: ${text}`);
    await workbench.screenshot(shot('tools'));
    await toggle.click();
  });

  it('inline completions: typing shows ghost text from the gateway, and Tab accepts it', async () => {
    const { workbench, sim } = fixture;
    const { page } = workbench;
    sim.completionScript = { text: `${COMPLETION}\n}\n` };
    const before = sim.requests.length;
    await workbench.openFile('stats.ts');
    const editor = page.locator('.monaco-editor .view-lines', { hasText: 'export function mean' });
    await editor.waitFor({ timeout: 20_000 });
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('  return ', { delay: 80 });
    // The ghost text is one span per token, with non-breaking spaces.
    await page
      .waitForFunction(
        `[...document.querySelectorAll('.monaco-editor .ghost-text-decoration')]
        .map((span) => span.textContent).join('').replace(/\\u00a0/g, ' ')
        .includes(${JSON.stringify(COMPLETION)})`,
        undefined,
        { timeout: 20_000 },
      )
      .catch(async (error: unknown) => {
        await workbench.screenshot(shot('inline-failed'));
        const asked = apiRequests(sim.requests.slice(before)).map((r) => `${r.method} ${r.path}`);
        throw new Error(
          `no ghost text; the gateway was asked: ${asked.join(', ') || 'nothing'} (${String(error)})`,
        );
      });
    const completions = apiRequests(sim.requests.slice(before)).filter((r) =>
      r.path.endsWith('/v1/completions'),
    );
    assert.ok(completions.length >= 1, 'the gateway was asked for the completion');
    assert.ok(
      completions.every((r) => typeof r.headers.origin === 'string'),
      'from the browser: every completion request carried an Origin',
    );
    await page.keyboard.press('Tab');
    await page
      .locator('.monaco-editor .view-lines', { hasText: `return ${COMPLETION}` })
      .waitFor({ timeout: 10_000 });
    await workbench.screenshot(shot('inline'));
  });

  it('a gateway that refuses CORS gives a message naming the cause and what its admin must allow', async () => {
    const { workbench, sim } = fixture;
    sim.cors = 'refuse';
    const preflights = sim.preflights.length;
    const chats = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).length;
    // A new chat: its requests go to URLs the browser may have kept a preflight for, and the
    // responses, without Access-Control-Allow-Origin, are blocked all the same.
    const text = await sendAndWait(await chatView(), 'Hello through a gateway without CORS');
    assert.match(text, /cross-origin|CORS/i, text);
    assert.match(text, /Access-Control-Allow-Origin/, text);
    assert.ok(
      sim.preflights.length > preflights ||
        sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).length > chats,
      'the browser did try the gateway',
    );
    await workbench.screenshot(shot('no-cors'));
  });
});
