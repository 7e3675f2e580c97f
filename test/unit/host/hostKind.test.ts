/**
 * Which host the one bundle decides it runs in (src/host/hostKind.ts), with globals another
 * extension in the same host could have added. A wrong answer must fail closed: the Node variants
 * in a web worker only fail to load (a worker can require nothing but `vscode`), while the web
 * variants in Node's host would quietly apply the browser's weaker rules (no home-folder rule, no
 * links resolved, no proxy credentials from the environment to redact).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';

const SOURCE = readFileSync(path.resolve(__dirname, '../../../src/host/hostKind.js'), 'utf8');

/** NODE_HOST as the module computes it with `globals` as its global object. */
function nodeHostWith(globals: Record<string, unknown>): boolean {
  const context = vm.createContext({ ...globals });
  const module = { exports: {} as { NODE_HOST?: boolean } };
  const run = vm.runInContext(`(function (module, exports) {${SOURCE}\n})`, context) as (
    m: unknown,
    e: unknown,
  ) => void;
  run(module, module.exports);
  return module.exports.NODE_HOST as boolean;
}

describe('hostKind: which host runs the bundle', () => {
  it("is Node's host in Node", () => {
    assert.equal(nodeHostWith({ process }), true);
  });

  it("stays Node's host when another extension defines a global importScripts", () => {
    // A worker polyfill or an emulated-worker library in the same Node host.
    assert.equal(nodeHostWith({ process, importScripts: () => undefined }), true);
  });

  it('is a web worker with no process', () => {
    assert.equal(nodeHostWith({ importScripts: () => undefined }), false);
  });

  it('is a web worker when another extension defines a `process` look-alike there', () => {
    const fake = { env: {}, versions: { node: '20.0.0' }, version: 'v20.0.0', platform: 'browser' };
    assert.equal(nodeHostWith({ process: fake, importScripts: () => undefined }), false);
    assert.equal(nodeHostWith({ process: fake }), false);
  });
});
