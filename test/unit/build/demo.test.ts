/**
 * `npm run demo` without starting anything: what it writes. TRY-ME.md walks through the
 * attachments and the catalog, the workspace points at the simulator, and the launcher loads the
 * built extension at start-up (the end-to-end test opens it in a real workbench).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { prepareDemo } from '../../launch/demo';
import { repoRoot } from '../../launch/paths';

interface Manifest {
  name: string;
  publisher: string;
  main: string;
  activationEvents: string[];
  contributes: unknown;
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

describe('the demo', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'gateway-demo-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes TRY-ME.md with the attachment and catalog steps, and a workspace on the simulator', () => {
    const demo = prepareDemo(dir, 'http://127.0.0.1:9/api');
    const tryMe = readFileSync(demo.tryMe, 'utf8');
    for (const step of [
      /Add Selection to Chat/,
      /Add File to Chat/,
      /Add Problems to Chat/,
      /Add Image to Chat/,
      /paste or drop a PNG/,
      /context meter/,
      /Drop oldest turns/,
      /price per million tokens/,
      /context length/,
      /Refresh Model Catalog/,
      /No account/,
    ])
      assert.match(tryMe, step);
    // The gateway and the models are the user's settings: the workspace's own could not choose them.
    assert.equal(demo.userSettings['gateway.baseUrl'], 'http://127.0.0.1:9/api');
    const settings = readJson<Record<string, unknown>>(path.join(demo.workspace, '.vscode', 'settings.json'));
    assert.deepEqual(
      Object.keys(settings).filter((key) => key.startsWith('gateway.')),
      [],
    );
    for (const file of ['sample.ts', 'diagram.png']) assert.ok(existsSync(path.join(demo.workspace, file)));
  });

  it('loads the built extension through a launcher activated at start-up', () => {
    const demo = prepareDemo(dir, 'http://127.0.0.1:9/api');
    const manifest = readJson<Manifest>(path.join(demo.launcher, 'package.json'));
    const ours = readJson<Manifest>(path.join(repoRoot, 'package.json'));
    assert.equal(manifest.name, ours.name);
    assert.equal(manifest.publisher, ours.publisher);
    assert.deepEqual(manifest.contributes, ours.contributes);
    assert.ok(manifest.activationEvents.includes('onStartupFinished'));
    for (const event of ours.activationEvents) assert.ok(manifest.activationEvents.includes(event), event);
    assert.ok(existsSync(path.join(demo.launcher, manifest.main)));
    assert.ok(existsSync(path.join(demo.launcher, 'dist', 'extension.js')));
    assert.ok(existsSync(path.join(demo.launcher, 'media', 'chat.css')));
  });
});
