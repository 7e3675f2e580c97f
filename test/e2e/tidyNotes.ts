/**
 * The agent's scripted turn both workbench tiers drive (the e2e tier in the Node extension host,
 * the web tier in the web worker one): the model reads `notes.txt`, proposes an edit, and answers
 * once it is applied. The script format is documented in test/simulator/agentScript.ts.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

export const NOTES = 'alpha\nbeta\ngamma\n';
export const TIDIED_NOTES = 'alpha\nBeta\ngamma\n';

export const TIDY_NOTES_SCRIPT = [
  {
    text: 'Let me look at the notes first.',
    calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
  },
  {
    text: 'The second line should be capitalised.',
    calls: [
      {
        name: 'edit_file',
        arguments: { path: 'notes.txt', edits: [{ search: 'beta', replace: 'Beta' }] },
      },
    ],
  },
  { text: 'Done: the second line of `notes.txt` now reads **Beta**.' },
];

/** The prompt that runs the script, as typed into the composer. */
export const TIDY_NOTES_PROMPT = `Tidy up notes.txt\n\`\`\`sim-agent\n${JSON.stringify(TIDY_NOTES_SCRIPT)}\n\`\`\``;

/** A file's text once it equals `expected` (polled as the other e2e helpers poll files), or a failure. */
export async function waitForContent(
  page: Page,
  file: string,
  expected: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  for (;;) {
    text = readFileSync(file, 'utf8');
    if (text === expected) return;
    if (Date.now() > deadline) throw new Error(`${file} still reads ${JSON.stringify(text)}`);
    await page.waitForTimeout(100);
  }
}
