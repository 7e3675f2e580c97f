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
 */

/**
 * The extension host's one bundle, package.json `main` and `browser` alike: Node's extension host
 * (desktop, remotes, Codespaces) and VS Code for the Web's web worker host (vscode.dev, github.dev)
 * load this same file. Each module with a browser variant (`foo.ts` beside `foo.web.ts`) is reached
 * through a switch on the host (esbuild.mjs `hostVariants`, src/host/hostKind.ts); the features
 * and the client are bundled in and evaluated on first use.
 */
/** @type {HostBundle} */
export const HOST_BUNDLE = { name: 'extension', source: 'src/extension.ts' };

/**
 * The module the host bundle's switches read to tell Node's host from a web worker (esbuild.mjs
 * `hostVariants`): each import of a module with a browser variant becomes such a switch.
 */
export const HOST_KIND_SOURCE = 'src/host/hostKind.ts';

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

/** `{ name: source }` of the webview bundles: esbuild's entryPoints for the browser build. */
export function webviewEntryPoints() {
  return Object.fromEntries(WEBVIEW_BUNDLES.map((b) => [b.name, b.source]));
}

/** `dist/<name>.js` of every host bundle. */
export function hostBundleFiles() {
  return [`dist/${HOST_BUNDLE.name}.js`];
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
    hostBundle: HOST_BUNDLE,
    hostKindSource: HOST_KIND_SOURCE,
    webviewBundles: WEBVIEW_BUNDLES,
    copiedFiles: COPIED_FILES,
    moduleStubs: MODULE_STUBS.map((m) => ({ ...m, request: m.request.source, importer: m.importer.source })),
    staticFiles: STATIC_FILES,
    documents: DOCUMENTS,
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
