// One shared base, two builds: the extension host's bundles (Node, CommonJS, `vscode` external:
// the entry, the lazy features and client, the shared errors) and the webviews' front ends
// (browser). Which bundles, split points and copied files there are comes from build/bundles.mjs,
// the one table the package and the tests read too. Flags: --production (minified, no source
// maps), --watch, --outdir=<folder> (instead of dist/; the tests build into a folder of their own).
import * as esbuild from 'esbuild';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { writeCodiconSubset } from './build/codicons.mjs';
import {
  BROWSER_BUNDLE,
  COPIED_FILES,
  hostEntryPoints,
  MODULE_STUBS,
  splitPoints as tableSplitPoints,
  webviewEntryPoints,
} from './build/bundles.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';
/** Where a file the table names under dist/ is written. */
const output = (file) => path.join(outdir, path.relative('dist', file));

/** @type {import('esbuild').BuildOptions} */
const base = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': production ? '"production"' : '"development"' },
};

/**
 * Modules that are bundles of their own (the split points of build/bundles.mjs), required at run
 * time from the sibling file instead of being copied into every bundle that imports them:
 * - `dist/api.js`, the gateway client with undici: required on the first request (only by
 *   src/host/gateway/clientLoader.ts), so activation neither parses nor evaluates the network stack;
 * - `dist/shared.js`, the errors and constants the client and the host share: one copy, so a
 *   GatewayError thrown by the client is an `instanceof GatewayError` in the host; and the ids and
 *   the settings model every bundle reads, once instead of once per feature;
 * - the features (`dist/chat.js`, `dist/media.js`, `dist/lm.js`): required when their view, a
 *   command or an event first needs them (each feature's `<feature>Loader.ts`), so the entry holds
 *   only what activation runs. Small stateless helpers they share with the entry (notify) are
 *   copied into each; anything with state shared across bundles (the settings service, the key
 *   store) is made once at activation and handed to them, or belongs in a split point of its own.
 */
const SPLIT_POINTS = tableSplitPoints();

const splitPoints = {
  name: 'split-points',
  setup(build) {
    const root = path.resolve('.');
    const owners = new Map(SPLIT_POINTS.flatMap((p) => p.sources.map((s) => [path.join(root, s), p.bundle])));
    build.onResolve({ filter: /^\./ }, (args) => {
      if (!args.importer) return undefined;
      const base = path.resolve(args.resolveDir, args.path);
      const target = [base + '.ts', path.join(base, 'index.ts'), base].find((c) => owners.has(c));
      if (!target) return undefined;
      const bundle = owners.get(target);
      // A bundle's own sources import each other directly.
      const importerBundle = owners.get(args.importer);
      if (importerBundle === bundle) return undefined;
      return { path: `./${bundle}.js`, external: true };
    });
  },
};

/**
 * `import * as vscode from 'vscode'` compiles to esbuild's `__toESM(require("vscode"))`, which
 * copies every property of VS Code's API object into a fresh namespace object, once per importing
 * module: about 19 ms of activation in a CPU profile of the extension host, more than all our own
 * code. The API object needs no conversion, so the same import is compiled as TypeScript's
 * `import vscode = require('vscode')`, which esbuild emits as a plain `require("vscode")`. Type
 * checking and the tests still see the ordinary import.
 */
const VSCODE_IMPORT = "import * as vscode from 'vscode';";
const plainVscodeRequire = {
  name: 'plain-vscode-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes(VSCODE_IMPORT)) return undefined;
      return { contents: text.replace(VSCODE_IMPORT, "import vscode = require('vscode');"), loader: 'ts' };
    });
  },
};

/**
 * Modules of dependencies replaced by small ones of ours (MODULE_STUBS of build/bundles.mjs, which
 * says why each is safe), so what they would pull in never enters a bundle.
 */
const moduleStubs = {
  name: 'module-stubs',
  setup(build) {
    for (const { request, importer, stub } of MODULE_STUBS)
      build.onResolve({ filter: request }, (args) =>
        importer.test(args.importer) ? { path: path.resolve(stub) } : undefined,
      );
  },
};

/** @type {import('esbuild').BuildOptions} */
const extension = {
  ...base,
  entryPoints: hostEntryPoints(),
  plugins: [splitPoints, plainVscodeRequire, moduleStubs],
  outdir,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  mainFields: ['module', 'main'],
};

/**
 * The browser build may reach no Node built-in (`node:*` or a bare built-in name): the web worker
 * extension host has none. A module that needs one has a `.web.ts` variant (see below), and a
 * dependency that needs one must stay out of the browser graph. Each import is reported with the
 * module that made it.
 */
const BUILTINS = new Set(builtinModules);
const noNodeBuiltins = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!args.path.startsWith('node:') && !BUILTINS.has(name.split('/')[0])) return undefined;
      return {
        errors: [
          {
            text: `"${args.path}" is a Node built-in, which VS Code for the Web does not have (imported by ${path.relative('.', args.importer)}): give that module a .web.ts variant.`,
          },
        ],
      };
    });
  },
};

/**
 * VS Code for the Web's extension host: one bundle (package.json `browser`), a web worker with
 * `require('vscode')` and web APIs only. The lazy `require`s of the feature loaders are simply
 * bundled in. `foo.web.ts`, where it exists beside `foo.ts`, is taken instead of it: the module's
 * browser variant, with the same exports (tsconfig.web.json type-checks that graph the same way).
 */
/** @type {import('esbuild').BuildOptions} */
const browserHost = {
  ...base,
  entryPoints: { [BROWSER_BUNDLE.name]: BROWSER_BUNDLE.source },
  plugins: [noNodeBuiltins, plainVscodeRequire, moduleStubs],
  outdir,
  platform: 'browser',
  format: 'cjs',
  target: ['es2022', 'chrome120'],
  external: ['vscode'],
  mainFields: ['browser', 'module', 'main'],
  resolveExtensions: ['.web.ts', '.ts', '.web.js', '.js', '.mjs', '.cjs', '.json'],
};

/** @type {import('esbuild').BuildOptions} */
const webview = {
  ...base,
  entryPoints: webviewEntryPoints(),
  outdir,
  platform: 'browser',
  format: 'iife',
  target: ['chrome120'],
  loader: { '.ttf': 'file' },
  plugins: [moduleStubs],
};

/**
 * Files that ship from a dependency: the codicon stylesheet and font, cut down to the icons our
 * webviews name (build/codicons.mjs), and anything else as it comes.
 */
async function copyFiles() {
  const codicons = Object.fromEntries(
    COPIED_FILES.filter(({ file }) => file.startsWith('dist/codicons/')).map((c) => [
      path.extname(c.file),
      c,
    ]),
  );
  await mkdir(path.dirname(output(codicons['.css'].file)), { recursive: true });
  await writeCodiconSubset({
    root: import.meta.dirname,
    cssFrom: codicons['.css'].from,
    fontFrom: codicons['.ttf'].from,
    cssTo: output(codicons['.css'].file),
    fontTo: output(codicons['.ttf'].file),
  });
  await Promise.all(
    COPIED_FILES.filter(({ file }) => !file.startsWith('dist/codicons/')).map(async ({ file, from }) => {
      await mkdir(path.dirname(output(file)), { recursive: true });
      await copyFile(from, output(file));
    }),
  );
}

/**
 * In watch mode, one "[watch] build started" / "[watch] build finished" pair around each rebuild
 * of either bundle, and each error or warning as "✘ [ERROR] text" then "    file:line:column:".
 * The "npm: watch" task's problem matcher (.vscode/tasks.json) reads exactly these lines.
 */
let building = 0;
const watchLog = {
  name: 'watch-log',
  setup(build) {
    build.onStart(() => {
      if (building++ === 0) console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const [label, list] of [
        ['✘ [ERROR]', result.errors],
        ['▲ [WARNING]', result.warnings],
      ]) {
        for (const { text, location } of list) {
          console.error(`${label} ${text}`);
          if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
        }
      }
      if (--building === 0) console.log('[watch] build finished');
    });
  },
};

async function main() {
  await copyFiles();
  if (watch) {
    const quiet = (options) => ({
      ...options,
      logLevel: 'silent',
      plugins: [...(options.plugins ?? []), watchLog],
    });
    const contexts = await Promise.all(
      [extension, browserHost, webview].map((options) => esbuild.context(quiet(options))),
    );
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[watch] watching for changes…');
    return;
  }
  const started = Date.now();
  await Promise.all([esbuild.build(extension), esbuild.build(browserHost), esbuild.build(webview)]);
  console.log(`[esbuild] ${production ? 'production' : 'development'} build in ${Date.now() - started} ms`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
