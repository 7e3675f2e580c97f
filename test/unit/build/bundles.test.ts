/**
 * Reads the built bundles (npm test builds first) for what the build promises: the shared errors
 * are defined in one bundle only, the entry loads the client bundle only on demand and never
 * contains the network stack, and the webview bundles contain no host code.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const dist = path.resolve(__dirname, '../../../../dist');
const BUNDLES = ['extension.js', 'api.js', 'shared.js', 'webview.js', 'mediaPreview.js'];

function bundle(name: string): string {
  return readFileSync(path.join(dist, name), 'utf8');
}

describe('built bundles', function () {
  before(function () {
    if (!BUNDLES.every((name) => existsSync(path.join(dist, name))))
      throw new Error('dist/ is not built: run "npm run build" first');
  });

  it('define GatewayError in exactly one bundle, the shared one', () => {
    const defining = BUNDLES.filter((name) =>
      /\bclass GatewayError\b|\bGatewayError = class\b/.test(bundle(name)),
    );
    assert.deepEqual(defining, ['shared.js']);
  });

  it('the extension and the client require the shared bundle instead of copying it', () => {
    for (const name of ['extension.js', 'api.js'])
      assert.match(bundle(name), /require\("\.\/shared\.js"\)/, name);
  });

  it('the entry loads the client bundle only through require("./api.js"), and holds no undici', () => {
    const entry = bundle('extension.js');
    assert.equal(entry.match(/require\("\.\/api\.js"\)/g)?.length, 1);
    assert.doesNotMatch(entry, /undici/i);
  });

  it('the webview bundles hold no host or Node code', () => {
    for (const name of ['webview.js', 'mediaPreview.js']) {
      const text = bundle(name);
      assert.doesNotMatch(text, /require\("(vscode|node:[a-z]+|fs|crypto|undici)"\)/, name);
      assert.doesNotMatch(
        text,
        /acquireVsCodeApi\(\)[\s\S]*acquireVsCodeApi\(\)/,
        `${name} acquires the API once`,
      );
    }
  });
});
