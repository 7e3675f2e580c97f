// What `npm run demo` prepares on disk: the demo workspace (sample files and TRY-ME.md), the user
// settings that point at the gateway simulator, and the launcher folder VS Code loads the
// extension from (a copy of the built extension with a start-up activation), so it opens straight
// into the Gateway AI view with TRY-ME.md open. No account is needed: the demo key is handed to
// the extension through GATEWAY_AI_DEMO_KEY. The base URL and the models are user settings: a
// workspace's own settings cannot choose where the key goes or what it pays for.
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

/** A 1×1 PNG, so the image steps work without bringing a picture. */
const DOT_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const TRY_ME = [
  '# Gateway AI demo',
  '',
  'This VS Code talks to a local gateway simulator, so nothing leaves the machine and nothing is billed. No account or sign-in is needed: the demo stored a key for the simulator.',
  '',
  '## Chat',
  '',
  '1. The **Gateway AI** chat is open in the side bar. Ask anything: the simulator echoes it back, streamed, with reasoning and usage.',
  '2. Add `#sim:slow` to a prompt to have time to press **Stop**; `#sim:429`, `#sim:error-chunk` or `#sim:drop` show how errors look.',
  '3. Select code in `sample.ts` and press **Ctrl+Alt+E** (Explain Selection).',
  '',
  '## Attachments',
  '',
  '4. **Selection**: select lines in `sample.ts`, right-click and choose **Add Selection to Chat**. A chip shows its name, size and tokens above the prompt, and the context meter in the chat header moves.',
  '5. **File**: right-click `sample.ts` in the Explorer (or its editor tab) and choose **Add File to Chat**, drop a file from the Explorer onto the chat, or type `#file:sam` in the prompt and press Enter.',
  '6. **Problems**: `sample.ts` has a deliberate type error; right-click in it and choose **Add Problems to Chat**.',
  '7. **Image**: right-click `diagram.png` in the Explorer and choose **Add File to Chat**, run **Gateway AI: Add Image to Chat**, or paste or drop a PNG/JPEG/WebP/GIF into the chat. Ask about it: the simulator says how many images it received, their type and size.',
  '8. Send a prompt: the sent message keeps the chips of what it carried, also after a reload from the history.',
  '9. Choose `testvendor/tiny-context` (2K context) and type a long prompt: the meter warns that the send would overflow and offers **Drop oldest turns** (they stay in the chat, marked, and are left out of what is sent; **Include again** undoes it) or **New chat**.',
  '',
  '## Model catalog',
  '',
  "10. Click the model in the chat header or the status bar: the picker shows each model's price per million tokens in and out, its context length and capabilities from the gateway's catalog. Type `vision` or `1M` to search; star a model to keep it on top.",
  '11. Run **Gateway AI: Refresh Model Catalog** to fetch the catalog again.',
  '12. Choose `testvendor/text-only` and images are refused, as the catalog says that model takes none.',
  '',
  '## Credits and media',
  '',
  '13. Add `#sim:status:402` to a prompt to see an out-of-credit message with the remaining credit; hover the status-bar model for the credit left.',
  '14. Run **Gateway AI: Generate Media…**: the job goes queued → processing → completed in **Media Jobs**; add `#sim:fail` to see a failure.',
  "15. Add `#sim:shape:openrouter` (or `openai`, `replicate`, `fal`, `runway`, `result-urls`, `resultUrls`, `videoUrl`) to a media prompt to see a real API's shape: progress and queue place in the tree, a video result, its cost in the tooltip; `#sim:outcome:cancelled` or `#sim:outcome:expired` ends it so.",
  '',
].join('\n');

const SAMPLE_TS = [
  '// Select this function and run "Gateway AI: Explain Selection" (Ctrl+Alt+E).',
  'export function debounce<T extends (...args: never[]) => void>(fn: T, ms: number): T {',
  '  let timer: ReturnType<typeof setTimeout> | undefined;',
  '  return ((...args: Parameters<T>) => {',
  '    clearTimeout(timer);',
  '    timer = setTimeout(() => fn(...args), ms);',
  '  }) as T;',
  '}',
  '',
  '// A deliberate problem, for "Add Problems to Chat".',
  "export const answer: number = 'forty-two';",
  '',
].join('\n');

/**
 * Writes the demo workspace and the launcher under `dir` and returns their paths, with the user
 * settings the demo's VS Code starts with. `root` is this checkout; `baseUrl` the simulator's.
 */
export function prepareDemo({ root = path.resolve(here, '..'), dir, baseUrl }) {
  const workspace = path.join(dir, 'workspace');
  mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        // Nothing else asks for attention (or for a sign-in) when the window opens.
        'workbench.startupEditor': 'none',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
      null,
      2,
    ),
  );
  const userSettings = {
    'gateway.baseUrl': baseUrl,
    'gateway.chat.model': 'openai/gpt-4o-mini',
    'gateway.media.model': 'openai/gpt-image-1',
  };
  writeFileSync(path.join(workspace, 'sample.ts'), SAMPLE_TS);
  writeFileSync(path.join(workspace, 'diagram.png'), Buffer.from(DOT_PNG, 'base64'));
  writeFileSync(path.join(workspace, 'TRY-ME.md'), TRY_ME);

  // The launcher: the extension's manifest, activated at start-up, with main the launcher script.
  const launcher = path.join(dir, 'launcher');
  rmSync(launcher, { recursive: true, force: true });
  mkdirSync(launcher, { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  manifest.main = './launcher.cjs';
  manifest.activationEvents = [...(manifest.activationEvents ?? []), 'onStartupFinished'];
  writeFileSync(path.join(launcher, 'package.json'), JSON.stringify(manifest, null, 2));
  copyFileSync(path.join(here, 'demo-launcher.cjs'), path.join(launcher, 'launcher.cjs'));
  for (const folder of ['dist', 'media'])
    cpSync(path.join(root, folder), path.join(launcher, folder), { recursive: true });
  return { workspace, launcher, tryMe: path.join(workspace, 'TRY-ME.md'), userSettings };
}
