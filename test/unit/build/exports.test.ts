/**
 * What the built extension hands other extensions: VS Code gives them whatever `activate()`
 * returns, as the extension's `exports`. Installed (production mode), that is nothing, so no other
 * extension can reach the key store or the features through us; only under development or test
 * does it hand its own tests the internals.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { VSCODE_STUB_SCRIPT } from './vscodeStub';

const entry = path.resolve(__dirname, '../../../../dist/extension.js');

/** Runs the built entry's activate() in a fresh Node process, in one extension mode. */
function activateIn(mode: 'Production' | 'Development' | 'Test'): { returned: string; keys: string[] } {
  // `vscode` exists only inside the extension host: a do-nothing stand-in, with the real values of
  // ExtensionMode (the entry compares the context's mode with them).
  const script = `
    const Module = require('node:module');
    ${VSCODE_STUB_SCRIPT}
    const modes = { Production: 1, Development: 2, Test: 3 };
    const load = Module._load;
    Module._load = function (request, ...rest) {
      // Defined, not assigned: an assignment would reach the stand-in's set trap and be dropped.
      if (request === 'vscode') return Object.create(stub, { ExtensionMode: { value: modes } });
      return load.call(this, request, ...rest);
    };
    const extension = require(process.argv[1]);
    const exported = extension.activate({
      secrets: stub, subscriptions: [], extensionUri: stub, globalStorageUri: stub,
      extensionMode: modes[process.argv[2]],
      globalState: { get: () => undefined, update: async () => undefined },
    });
    // Keys only: reading a feature's field would load the feature.
    const keys = exported && typeof exported === 'object' ? Object.keys(exported) : [];
    // Then exit: what activate() started (timers, a deferred load) would keep a stand-in host alive.
    setTimeout(() => process.stdout.write(JSON.stringify({ returned: typeof exported, keys }), () => process.exit(0)), 20);
  `;
  const output = execFileSync(process.execPath, ['-e', script, entry, mode], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as { returned: string; keys: string[] };
}

describe('what the extension exports', function () {
  this.timeout(20_000);
  before(function () {
    if (!existsSync(entry)) throw new Error('dist/ is not built: run "npm run build" first');
  });

  it('installed, it exports nothing: activate() returns undefined in production mode', () => {
    assert.deepEqual(activateIn('Production'), { returned: 'undefined', keys: [] });
  });

  it('under development or test it hands its own tests the internals, the key store among them', () => {
    for (const mode of ['Development', 'Test'] as const) {
      const { returned, keys } = activateIn(mode);
      assert.equal(returned, 'object', mode);
      assert.ok(keys.includes('apiKey') && keys.includes('chat'), `${mode}: ${keys.join(', ')}`);
    }
  });
});
