// The one table of what the extension is made of at run time: every bundle esbuild builds, every
// file the build copies, and every static file VS Code or a webview loads. The esbuild config
// (esbuild.mjs), the package's file list (package.json `files`, checked by
// test/unit/build/bundleTable.test.ts) and the tests (test/unit/build/, test/package/) all read it.
// A file missing here is missing from the .vsix: add a bundle or an asset here and nowhere else.
//
// Each row's comment names who loads the file, so a row with no loader left can go.

import { pathToFileURL } from 'node:url';

/**
 * @typedef {object} HostBundle
 * @property {string} name          the bundle is `dist/<name>.js`
 * @property {string} source        its esbuild entry point
 * @property {string[]} splitSources sources that, imported from any other bundle, become a
 *   `require("./<name>.js")` of this bundle instead of a copy (empty for the entry: nothing
 *   requires it, VS Code loads it)
 */

/** Extension-host bundles: Node, CommonJS, `vscode` external. */
/** @type {readonly HostBundle[]} */
export const HOST_BUNDLES = [
  // VS Code, as package.json `main`, on activation.
  { name: 'extension', source: 'src/extension.ts', splitSources: [] },
  // src/host/gateway/clientLoader.ts, on the first request: the gateway client with undici.
  { name: 'api', source: 'src/api/index.ts', splitSources: ['src/api/index.ts'] },
  // Every other host bundle: the errors and constants client and host share, so one copy of
  // GatewayError exists and `instanceof` works across bundles; and the ids, the settings model and
  // the secrets list (inline completions, the agent's tools) every feature reads, kept once
  // instead of once per feature.
  {
    name: 'shared',
    source: 'src/core/shared.ts',
    splitSources: [
      'src/core/shared.ts',
      'src/api/shared.ts',
      'src/api/errors.ts',
      'src/api/types.ts',
      'src/core/ids.ts',
      'src/core/config/settingsModel.ts',
      'src/core/inline/exclude.ts',
    ],
  },
  // src/host/chat/chatLoader.ts, when the chat view or a chat command first needs it.
  { name: 'chat', source: 'src/host/chat/chatBundle.ts', splitSources: ['src/host/chat/chatBundle.ts'] },
  // src/host/media/mediaLoader.ts, when a media view, command or stored running job needs it.
  { name: 'media', source: 'src/host/media/mediaBundle.ts', splitSources: ['src/host/media/mediaBundle.ts'] },
  // src/host/lm/lmLoader.ts, when VS Code's chat asks the provider for models or calls the tool.
  { name: 'lm', source: 'src/host/lm/lmBundle.ts', splitSources: ['src/host/lm/lmBundle.ts'] },
  // src/host/agent/mcp/mcpHub.ts, when the user first turns an MCP server on: our MCP client.
  {
    name: 'mcp',
    source: 'src/host/agent/mcp/mcpBundle.ts',
    splitSources: ['src/host/agent/mcp/mcpBundle.ts'],
  },
];

/**
 * The browser build: ONE bundle for VS Code's web worker extension host (vscode.dev, github.dev),
 * package.json `browser`. The same entry as the Node build, with no split points (a web worker
 * host cannot require a sibling file), and each module's `.web.ts` variant taken where one exists
 * (esbuild.mjs: `resolveExtensions`; tsconfig.web.json: `moduleSuffixes`).
 */
/** @type {HostBundle} */
export const BROWSER_BUNDLE = { name: 'web', source: 'src/extension.ts', splitSources: [] };

/**
 * @typedef {object} ModuleStub
 * @property {RegExp} request  the import specifier replaced
 * @property {RegExp} importer the importing file it is replaced in
 * @property {string} stub     our module that takes its place
 */

/**
 * Modules of dependencies that our bundles never run, replaced at build time by small ones of
 * ours so that what they pull in stays out of the .vsix (test/unit/build/bundles.test.ts checks it).
 */
/** @type {readonly ModuleStub[]} */
export const MODULE_STUBS = [
  // undici carries its HTTP parser twice as WebAssembly (70 KB each, base64): with SIMD, and a
  // fallback it loads only when the SIMD build does not compile, which no runtime VS Code ships on
  // does (see the stub).
  {
    request: /^\.\.[\\/]llhttp[\\/]llhttp-wasm\.js$/,
    importer: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/,
    stub: 'src/api/transport/noLlhttpFallback.ts',
  },
  // undici's HTTP/2 client runs only for a connection that negotiated h2, which needs `allowH2` or
  // `useH2c`; our agents set neither (see the stub).
  {
    request: /^\.[\\/]client-h2\.js$/,
    importer: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    stub: 'src/api/transport/noHttp2.ts',
  },
  // undici's HTTP clients require fetch's body module (and with it most of fetch) only to send a
  // FormData body; ours send JSON strings (see the stub).
  {
    request: /^\.\.[\\/]web[\\/]fetch[\\/]body\.js$/,
    importer: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h[12]\.js$/,
    stub: 'src/api/transport/noFetchBody.ts',
  },
  // undici's ProxyAgent makes a SOCKS5 agent only for a socks: proxy URL; ours refuses any proxy
  // URL but http: and https: first (see the stub).
  {
    request: /^\.[\\/]socks5-proxy-agent$/,
    importer: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]proxy-agent\.js$/,
    stub: 'src/api/transport/noSocks5.ts',
  },
  // markdown-it decodes character references with `entities` and its packed HTML5 table (about
  // 24 KB minified); in the webview the browser's own HTML parser decodes them (see the stub).
  {
    request: /^entities$/,
    importer: /[\\/]markdown-it[\\/]/,
    stub: 'src/webview/domEntities.ts',
  },
];

/**
 * @typedef {object} WebviewBundle
 * @property {string} name   the bundle is `dist/<name>.js`
 * @property {string} source its esbuild entry point
 */

/** Webview scripts: browser, IIFE, each loaded by a page's `scripts` through the webview shell. */
/** @type {readonly WebviewBundle[]} */
export const WEBVIEW_BUNDLES = [
  // CHAT_PAGE in src/host/webview/webviewShell.ts (the chat view).
  { name: 'webview', source: 'src/webview/main.ts' },
  // The media preview panel's page, src/host/media/views/mediaPreview.ts.
  { name: 'mediaPreview', source: 'src/webview/mediaPreview.ts' },
  // GALLERY_PAGE in src/host/webview/webviewShell.ts (the media gallery panel).
  { name: 'gallery', source: 'src/webview/gallery.ts' },
];

/**
 * @typedef {object} CopiedFile
 * @property {string} file the path in the extension
 * @property {string} from where the build copies it from
 */

/**
 * Files the build takes into dist/ from dependencies. The codicon pair is cut down to the icons
 * the webviews name (build/codicons.mjs); the rest would be copied as they are.
 */
/** @type {readonly CopiedFile[]} */
export const COPIED_FILES = [
  // CHAT_PAGE's styles (VS Code's webviews look for it by id to theme the icons).
  { file: 'dist/codicons/codicon.css', from: 'node_modules/@vscode/codicons/dist/codicon.css' },
  // codicon.css, through its @font-face url().
  { file: 'dist/codicons/codicon.ttf', from: 'node_modules/@vscode/codicons/dist/codicon.ttf' },
];

/** Files kept in the repository and shipped as they are. */
/** @type {readonly string[]} */
export const STATIC_FILES = [
  // package.json `icon`: the Marketplace and the Extensions view.
  'media/icon.png',
  // package.json `contributes.viewsContainers.activitybar[].icon`: the activity bar.
  'media/gateway.svg',
  // CHAT_PAGE's styles, src/host/webview/webviewShell.ts.
  'media/chat.css',
  // The media preview page's styles, src/host/media/views/mediaPreview.ts.
  'media/mediaPreview.css',
  // GALLERY_PAGE's styles, src/host/webview/webviewShell.ts.
  'media/gallery.css',
  // package.json walkthrough step `setKey`, `media.markdown`.
  'media/walkthrough/key.md',
  // package.json walkthrough step `selectModel`, `media.markdown`.
  'media/walkthrough/model.md',
  // package.json walkthrough step `firstChat`, `media.markdown`.
  'media/walkthrough/chat.md',
  // package.json walkthrough step `explain`, `media.markdown`.
  'media/walkthrough/explain.md',
  // package.json walkthrough step `inlineCompletions`, `media.markdown`.
  'media/walkthrough/inline.md',
  // package.json walkthrough step `media`, `media.markdown`.
  'media/walkthrough/media.md',
];

/**
 * The documents shipped beside the extension. vsce always adds package.json and README.md; it
 * adds CHANGELOG.md and LICENSE only when `files` names them (and asks, interactively, when no
 * LICENSE is packed).
 */
export const DOCUMENTS = ['README.md', 'CHANGELOG.md', 'LICENSE'];

const sorted = (list) => [...list].sort();

/** `{ name: source }` of the host bundles: esbuild's entryPoints for the Node build. */
export function hostEntryPoints() {
  return Object.fromEntries(HOST_BUNDLES.map((b) => [b.name, b.source]));
}

/** `{ name: source }` of the webview bundles: esbuild's entryPoints for the browser build. */
export function webviewEntryPoints() {
  return Object.fromEntries(WEBVIEW_BUNDLES.map((b) => [b.name, b.source]));
}

/** The split points: `{ bundle, sources }` for every host bundle other bundles require. */
export function splitPoints() {
  return HOST_BUNDLES.filter((b) => b.splitSources.length > 0).map((b) => ({
    bundle: b.name,
    sources: [...b.splitSources],
  }));
}

/** `dist/<name>.js` of every host bundle, the browser one included. */
export function hostBundleFiles() {
  return [...HOST_BUNDLES, BROWSER_BUNDLE].map((b) => `dist/${b.name}.js`);
}

/** `dist/<name>.js` of every webview bundle. */
export function webviewBundleFiles() {
  return WEBVIEW_BUNDLES.map((b) => `dist/${b.name}.js`);
}

/** Everything `node esbuild.mjs` writes that ships: the bundles and the copied files. */
export function builtFiles() {
  return sorted([...hostBundleFiles(), ...webviewBundleFiles(), ...COPIED_FILES.map((c) => c.file)]);
}

/**
 * The exact files the .vsix holds besides package.json and the documents (README, CHANGELOG,
 * LICENSE) and vsce's own manifest entries. Sorted.
 */
export function shippedFiles() {
  return sorted([...builtFiles(), ...STATIC_FILES]);
}

/** What package.json `files` lists: the documents, then the shipped files. */
export function packageFilesField() {
  return [...DOCUMENTS, ...shippedFiles()];
}

/** The whole table and its derived lists as plain data, for code that cannot import ES modules. */
export function describeTable() {
  return {
    hostBundles: HOST_BUNDLES,
    browserBundle: BROWSER_BUNDLE,
    webviewBundles: WEBVIEW_BUNDLES,
    copiedFiles: COPIED_FILES,
    moduleStubs: MODULE_STUBS.map((m) => ({ ...m, request: m.request.source, importer: m.importer.source })),
    staticFiles: STATIC_FILES,
    documents: DOCUMENTS,
    splitPoints: splitPoints(),
    hostBundleFiles: hostBundleFiles(),
    webviewBundleFiles: webviewBundleFiles(),
    builtFiles: builtFiles(),
    shippedFiles: shippedFiles(),
    packageFilesField: packageFilesField(),
  };
}

// `node build/bundles.mjs` prints describeTable() as JSON (the TypeScript tests read it that way).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${JSON.stringify(describeTable(), null, 2)}\n`);
}
