import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, workRoot } from '../launch/paths';
import { ensureVsCodeServer, installVsix } from '../launch/vscodeServer';
import { openWorkbench } from './workbench';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  publisher: string;
};
const vsce = path.join(repoRoot, 'node_modules', '.bin', 'vsce');

/** Everything the .vsix may contain besides the manifest files vsce adds itself. */
const ALLOWED = [
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/i,
  /^extension\/changelog\.md$/i,
  /^extension\/LICENSE(\.txt)?$/i,
  /^extension\/dist\/(extension|chat|media|api|shared|webview|mediaPreview)\.js$/,
  /^extension\/dist\/codicons\/codicon\.(css|ttf)$/,
  /^extension\/media\/(icon\.png|gateway\.svg|chat\.css|mediaPreview\.css|walkthrough\/\w+\.md)$/,
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
];

describe('The packaged .vsix (the Marketplace path)', function () {
  this.timeout(240_000);
  const outDir = path.join(workRoot, 'vsix');
  const vsixPath = path.join(outDir, `${pkg.name}-${pkg.version}.vsix`);

  before(function () {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    // The same command as `npm run package` (vscode:prepublish makes the production build).
    execFileSync(vsce, ['package', '--no-dependencies', '--out', vsixPath], { cwd: repoRoot, stdio: 'pipe' });
  });

  it('contains only the bundles, media, the manifest, README, CHANGELOG and LICENSE', () => {
    assert.ok(existsSync(vsixPath));
    const listing = execFileSync('unzip', ['-Z1', vsixPath], { encoding: 'utf8' }).trim().split('\n');
    const unexpected = listing.filter(
      (entry) => !entry.endsWith('/') && !ALLOWED.some((re) => re.test(entry)),
    );
    assert.deepEqual(unexpected, []);
    for (const required of [
      'extension/dist/extension.js',
      'extension/dist/chat.js',
      'extension/dist/media.js',
      'extension/dist/api.js',
      'extension/dist/shared.js',
      'extension/dist/webview.js',
      'extension/dist/mediaPreview.js',
      'extension/package.json',
      'extension/media/icon.png',
    ]) {
      assert.ok(listing.includes(required), `${required} is in the .vsix`);
    }
    assert.ok(!listing.some((e) => e.includes('node_modules') || e.endsWith('.map') || e.includes('/src/')));
  });

  it('installs into VS Code with --install-extension and activates there', async () => {
    const entry = ensureVsCodeServer();
    const workbench = await openWorkbench({
      name: 'vsix',
      development: false,
      beforeStart: ({ extensionsDir, userDataDir }) => {
        installVsix(entry, vsixPath, extensionsDir, userDataDir);
        const installed = readdirSync(extensionsDir).filter((d) =>
          statSync(path.join(extensionsDir, d)).isDirectory(),
        );
        assert.ok(
          installed.some((d) => d.startsWith(`${pkg.publisher}.${pkg.name}-${pkg.version}`)),
          `installed: ${installed.join(', ')}`,
        );
      },
    });
    try {
      await workbench.openGatewayView();
      // The chat view's document exists only once the installed extension has activated and resolved it.
      const frame = await workbench.webviewFrame('#app');
      assert.ok(await frame.$('#app'));
    } finally {
      await workbench.close();
    }
  });
});
