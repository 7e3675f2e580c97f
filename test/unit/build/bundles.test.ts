/**
 * Reads the built bundles (npm test builds first) for what the build promises: the shared errors
 * are defined in one bundle only, the entry loads the client and feature bundles only on demand
 * and contains neither the network stack nor the features' code, and the webview bundles contain
 * no host code.
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
/**
 * Libraries a feature loads on demand, as the client is: the MCP client (loaded by the chat's agent
 * when the user turns an MCP server on). They need nothing of the shared bundle.
 */
const LIBRARIES = ['mcp'];
/** The host bundles that require the shared one: all but the shared bundle itself and the libraries. */
const HOST_BUNDLES = table.hostBundles
  .filter((b) => b.name !== 'shared' && !LIBRARIES.includes(b.name))
  .map((b) => `${b.name}.js`);
/** The lazily loaded features: the split points other than the client, the libraries and the shared code. */
const FEATURES = table.splitPoints
  .map((p) => p.bundle)
  .filter((name) => name !== 'api' && name !== 'shared' && !LIBRARIES.includes(name));
const WEBVIEW_BUNDLES = table.webviewBundleFiles.map(fileName);

function bundle(name: string): string {
  return readFileSync(path.join(dist, name), 'utf8');
}

describe('built bundles', function () {
  before(function () {
    if (!BUNDLES.every((name) => existsSync(path.join(dist, name))))
      throw new Error('dist/ is not built: run "npm run build" first');
  });

  it('define GatewayError in exactly one bundle, the shared one (the browser entry is one bundle of its own)', () => {
    const defining = BUNDLES.filter(
      (name) =>
        name !== `${table.browserBundle.name}.js` &&
        /\bclass GatewayError\b|\bGatewayError = class\b/.test(bundle(name)),
    );
    assert.deepEqual(defining, ['shared.js']);
  });

  it('the browser entry requires nothing but vscode, and holds neither undici nor a Node built-in', () => {
    const web = bundle(`${table.browserBundle.name}.js`);
    const required = new Set([...web.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
    assert.deepEqual([...required], ['vscode']);
    assert.ok(!/undici/.test(web), 'undici is in the browser entry');
    assert.equal(web.match(/\bclass GatewayError\b|\bGatewayError = class\b/g)?.length, 1);
  });

  it('the entry, the features and the client require the shared bundle instead of copying it', () => {
    for (const name of HOST_BUNDLES) assert.match(bundle(name), /require\("\.\/shared\.js"\)/, name);
  });

  it('the entry holds none of the chat, media or language-model code, and requires each feature bundle once', () => {
    const entry = bundle('extension.js');
    for (const feature of FEATURES)
      assert.equal(entry.match(new RegExp(`require\\("\\./${feature}\\.js"\\)`, 'g'))?.length, 1, feature);
    // Names that exist only in the features' code (kept in production builds: they are strings).
    for (const marker of [
      'Ignored a malformed message from the chat view',
      'Preparing the result',
      'Reasoning is not shown in this VS Code',
    ])
      assert.ok(!entry.includes(marker), `the entry contains "${marker}"`);
    assert.ok(bundle('chat.js').includes('Ignored a malformed message from the chat view'));
    assert.ok(bundle('media.js').includes('Preparing the result'));
    assert.ok(bundle('lm.js').includes('Reasoning is not shown in this VS Code'));
  });

  it('loading the entry and running activate() require neither a feature nor the client', () => {
    // In a fresh Node process, with a do-nothing stand-in for `vscode` (it exists only inside the
    // extension host) and a context with nothing stored, as on a first start.
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
      entry.activate({
        secrets: stub, subscriptions: [], extensionUri: stub, globalStorageUri: stub, extensionMode: 2,
        globalState: { get: () => undefined, update: async () => undefined },
      });
      // Then exit: what activate() started (timers, a deferred load) would keep a stand-in host alive.
      setTimeout(() => process.stdout.write(JSON.stringify({ afterLoad, afterActivate: loaded }), () => process.exit(0)), 20);
    `;
    const output = execFileSync(process.execPath, ['-e', script, path.join(dist, 'extension.js')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const { afterLoad, afterActivate } = JSON.parse(output) as {
      afterLoad: string[];
      afterActivate: string[];
    };
    assert.deepEqual(afterLoad, ['./shared.js']);
    assert.deepEqual(afterActivate, ['./shared.js']);
  });

  it('the features do not reach each other or the client bundle directly', () => {
    const others = new RegExp(`require\\("\\./(${['api', 'extension', ...FEATURES].join('|')})\\.js"\\)`);
    for (const feature of FEATURES) assert.doesNotMatch(bundle(`${feature}.js`), others, feature);
  });

  it('the entry loads the client bundle only through require("./api.js"), and holds no undici', () => {
    const entry = bundle('extension.js');
    assert.equal(entry.match(/require\("\.\/api\.js"\)/g)?.length, 1);
    assert.doesNotMatch(entry, /undici/i);
  });

  it("the client bundle holds undici's stand-ins, not its HTTP/2 client, fetch bodies or SOCKS client", () => {
    // builtClient.test.ts runs this bundle against real servers and a real proxy.
    const api = bundle('api.js');
    assert.match(api, /HTTP\/2 is not part of this build/);
    assert.match(api, /FormData request bodies are not part of this build/);
    assert.match(api, /SOCKS proxies are not part of this build/);
    for (const marker of [/node:http2/, /multipart\/form-data/, /webidl/i, /Invalid SOCKS version/])
      assert.doesNotMatch(api, marker);
  });

  it('the MCP bundle is loaded only by the chat bundle, once, and holds our client, not the MCP SDK or zod', () => {
    for (const name of [...HOST_BUNDLES, 'api.js', 'shared.js'])
      assert.equal(
        bundle(name).match(/require\("\.\/mcp\.js"\)/g)?.length,
        name === 'chat.js' ? 1 : undefined,
        name,
      );
    const mcp = bundle('mcp.js');
    const web = bundle(`${table.browserBundle.name}.js`);
    // Our client is in both (its version negotiation), and the Node one starts programs itself.
    for (const text of [mcp, web]) assert.match(text, /is not one this client speaks/);
    assert.match(mcp, /require\("node:child_process"\)/);
    for (const marker of [
      /modelcontextprotocol/i,
      /\bzod\b/i,
      /ZodError/,
      /\bajv\b/i,
      /cross-spawn/,
      /oauth-authorization-server/,
      /draft-2020-12/,
    ]) {
      assert.doesNotMatch(mcp, marker, 'dist/mcp.js');
      assert.doesNotMatch(web, marker, 'dist/web.js');
    }
    // The SDK's OAuth flow (the browser entry has the gateway's own PKCE sign-in).
    assert.doesNotMatch(mcp, /code_challenge/);
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
