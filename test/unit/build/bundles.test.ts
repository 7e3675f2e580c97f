/**
 * Reads and runs the built bundles (npm test builds first) for what the build promises: one host
 * bundle for both extension hosts, which requires no file of ours, and in a web worker nothing but
 * `vscode`, and reaches no Node global there; no undici; the errors defined once; and webview
 * bundles with no host code.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { bundleTable } from '../../package/bundleTable';
import { VSCODE_STUB_SCRIPT } from './vscodeStub';

const dist = path.resolve(__dirname, '../../../../dist');
const table = bundleTable();
const fileName = (file: string) => path.posix.basename(file);
/** Every bundle of build/bundles.mjs, as its file name in dist/. */
const BUNDLES = [...table.hostBundleFiles, ...table.webviewBundleFiles].map(fileName);
const HOST = `${table.hostBundle.name}.js`;
const WEBVIEW_BUNDLES = table.webviewBundleFiles.map(fileName);

function bundle(name: string): string {
  return readFileSync(path.join(dist, name), 'utf8');
}

/** A context as on a first start: nothing stored. */
const ACTIVATE = `
  entry.activate({
    secrets: stub, subscriptions: [], extensionUri: stub, globalStorageUri: stub, extensionMode: 2,
    globalState: { get: () => undefined, update: async () => undefined },
  });
`;

/** Runs `script` in a fresh Node process with the host bundle's path as argv[1]; its JSON output. */
function runWithBundle<T>(script: string): T {
  const output = execFileSync(process.execPath, ['-e', script, path.join(dist, HOST)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as T;
}

describe('built bundles', function () {
  before(function () {
    if (!BUNDLES.every((name) => existsSync(path.join(dist, name))))
      throw new Error('dist/ is not built: run "npm run build" first');
  });

  it('package.json names the one host bundle as both `main` and `browser`', () => {
    const manifest = JSON.parse(readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as Record<
      string,
      string
    >;
    assert.equal(manifest.main, `./dist/${HOST}`);
    assert.equal(manifest.browser, `./dist/${HOST}`);
  });

  it("the host bundle holds no undici: requests go through the host's fetch", () => {
    assert.doesNotMatch(bundle(HOST), /llhttp|undici/i);
  });

  it('define GatewayError once, in the host bundle', () => {
    const defining = BUNDLES.filter((name) =>
      /\bclass GatewayError\b|\bGatewayError = class\b/.test(bundle(name)),
    );
    assert.deepEqual(defining, [HOST]);
    assert.equal(bundle(HOST).match(/\bclass GatewayError\b|\bGatewayError = class\b/g)?.length, 1);
  });

  it("in Node's host, loading the bundle and running activate() require no file of ours", () => {
    // With a do-nothing stand-in for `vscode` (it exists only inside the extension host).
    const script = `
      const Module = require('node:module');
      ${VSCODE_STUB_SCRIPT}
      const loaded = [];
      const load = Module._load;
      Module._load = function (request, ...rest) {
        // The bundle copies the module's own properties; the rest it finds through the prototype.
        if (request === 'vscode') return Object.create(stub);
        if (request.startsWith("./") && !loaded.includes(request)) loaded.push(request);
        return load.call(this, request, ...rest);
      };
      const entry = require(process.argv[1]);
      const afterLoad = [...loaded];
      ${ACTIVATE}
      // Then exit: what activate() started (timers, a deferred load) would keep a stand-in host alive.
      setTimeout(() => process.stdout.write(JSON.stringify({ afterLoad, afterActivate: loaded }), () => process.exit(0)), 20);
    `;
    const { afterLoad, afterActivate } = runWithBundle<{ afterLoad: string[]; afterActivate: string[] }>(
      script,
    );
    assert.deepEqual(afterLoad, []);
    assert.deepEqual(afterActivate, []);
  });

  it('in a web worker, loading the bundle and running activate() require only vscode and touch no Node global', () => {
    // A sandbox with a worker's globals and none of Node's (no process, Buffer, __dirname), and a
    // \`require\` that, as VS Code for the Web's, knows only \`vscode\`. Anything else it is asked for,
    // and any error thrown then or by what activate() started, fails the run.
    const script = `
      const vm = require('node:vm');
      ${VSCODE_STUB_SCRIPT}
      const required = [];
      const errors = [];
      const worker = {
        importScripts() {}, console, URL, URLSearchParams, TextEncoder, TextDecoder, AbortController,
        AbortSignal, Blob, Headers, Request, Response, ReadableStream, WritableStream, TransformStream,
        fetch: () => Promise.reject(new TypeError('offline')), crypto: globalThis.crypto, performance,
        queueMicrotask, structuredClone, atob, btoa, EventTarget, Event,
        setTimeout: (f, ms, ...a) => setTimeout(() => { try { f(...a); } catch (e) { errors.push(String(e)); } }, ms),
        clearTimeout, setInterval, clearInterval,
      };
      worker.self = worker;
      vm.createContext(worker);
      const fn = vm.runInContext('(function (module, exports, require) {' + require('node:fs').readFileSync(process.argv[1], 'utf8') + '\\n})', worker);
      const module = { exports: {} };
      fn(module, module.exports, (request) => {
        required.push(request);
        if (request === 'vscode') return Object.create(stub);
        throw new Error('a web worker cannot require ' + request);
      });
      const entry = module.exports;
      try { ${ACTIVATE} } catch (e) { errors.push(String(e && e.stack || e)); }
      process.on('unhandledRejection', (e) => errors.push(String(e && e.stack || e)));
      setTimeout(() => process.stdout.write(JSON.stringify({ required: [...new Set(required)], errors }), () => process.exit(0)), 50);
    `;
    const { required, errors } = runWithBundle<{ required: string[]; errors: string[] }>(script);
    assert.deepEqual(errors, []);
    assert.deepEqual(required, ['vscode']);
  });

  it('the host bundle holds our MCP client, not the MCP SDK or zod', () => {
    const host = bundle(HOST);
    // Our client (its version negotiation); Node's stdio transport starts programs itself.
    assert.match(host, /is not one this client speaks/);
    for (const marker of [
      /modelcontextprotocol/i,
      /\bzod\b/i,
      /ZodError/,
      /\bajv\b/i,
      /cross-spawn/,
      /oauth-authorization-server/,
      /draft-2020-12/,
    ])
      assert.doesNotMatch(host, marker);
  });

  it("the chat webview leaves character references to the page's parser, without the entities table", () => {
    // test/webview/markdown.test.ts compares the page's decoding with the table's, name by name.
    assert.ok(!bundle('webview.js').includes("!}.&u%}'&}*'~!6*)"), 'the packed HTML5 table of entities');
  });

  it('the webview bundles hold no host or Node code', () => {
    for (const name of WEBVIEW_BUNDLES) {
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
