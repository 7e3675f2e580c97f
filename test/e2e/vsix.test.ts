/**
 * The package a user installs, in the oldest and the newest VS Code we support: the .vsix this run
 * built, installed with --install-extension into a fresh profile, the key typed in through the
 * command, then the chat panel answering and the gallery showing a generated image. (The package
 * tier checks the file list; VS Code's own chat is in vscodeChat.test.ts.)
 */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../launch/paths';
import { DEFAULT_CODE_SERVER, NEWEST_CODE_SERVER } from '../launch/vscodeServer';
import { screenshots, sendAndWait, useSimulatorWorkbench } from './workbench';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  publisher: string;
};
const KEY = 'sk-e2e-vsix-0123456789';

for (const version of [DEFAULT_CODE_SERVER, NEWEST_CODE_SERVER]) {
  describe(`The installed .vsix in code-server ${version}`, function () {
    this.timeout(240_000);
    const fixture = useSimulatorWorkbench(
      { chunkDelayMs: 2, mediaTimings: { queuedMs: 200, processingMs: 400 } },
      (sim) => ({
        name: `vsix-${version}`,
        codeServerVersion: version,
        extension: 'package',
        // What a new user sets: the gateway's address. Everything else is the default.
        settings: { 'gateway.baseUrl': sim.baseUrl },
        apiKey: KEY,
      }),
    );

    it('runs from the extensions folder, not from this checkout', () => {
      const { workbench } = fixture;
      const installed = readdirSync(workbench.server.extensionsDir).filter((d) =>
        statSync(path.join(workbench.server.extensionsDir, d)).isDirectory(),
      );
      assert.ok(
        installed.includes(`${pkg.publisher}.${pkg.name}-${pkg.version}`),
        `installed: ${installed.join(', ')}`,
      );
      assert.doesNotMatch(workbench.page.url(), /extensionDevelopmentPath/);
    });

    it('the chat panel answers with the key typed in through the command', async () => {
      const { workbench, sim } = fixture;
      await workbench.openGatewayView();
      const frame = await workbench.webviewFrame('.composer-input');
      const reply = await sendAndWait(frame, 'Hello from the installed package');
      assert.match(reply, /Hello from the installed package/);
      const chat = sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions')).at(-1);
      assert.equal(chat?.headers.authorization, `Bearer ${KEY}`);
    });

    it('a generated image shows in the media gallery', async () => {
      const { workbench } = fixture;
      const chat = await workbench.webviewFrame('.composer-input');
      const input = chat.locator('.composer-input');
      await input.click();
      await input.fill('/image a red circle on white');
      await input.press('Enter');
      await chat.locator('.turn-media[data-status="completed"]').last().waitFor({ timeout: 60_000 });

      await workbench.runCommand('Gateway AI: Open Media Gallery');
      const gallery = await workbench.webviewFrame('.grid');
      const image = gallery.locator('.grid .card', { hasText: 'a red circle' }).first().locator('img.thumb');
      await image.waitFor({ timeout: 30_000 });
      // Runs in the webview: the picture decoded, so the page's CSP and the shipped files let it load.
      await image.evaluate(
        (img) =>
          new Promise<void>((resolve, reject) => {
            const el = img as unknown as {
              complete: boolean;
              naturalWidth: number;
              addEventListener(type: string, listener: () => void): void;
            };
            if (el.complete)
              return el.naturalWidth > 0 ? resolve() : reject(new Error('the thumbnail is broken'));
            el.addEventListener('load', () => resolve());
            el.addEventListener('error', () => reject(new Error('the thumbnail did not load')));
          }),
      );
      const width = await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
      assert.ok(width > 0, `the thumbnail decoded (${width} px wide)`);
      await workbench.screenshot(path.join(screenshots, `vsix-gallery-${version}.png`));
    });
  });
}
