// One shared base, two builds: the extension host's one bundle (CommonJS, `vscode` external, run
// by Node's extension host and VS Code for the Web's alike) and the webviews' front ends
// (browser); and one check, the browser's graph of the host bundle, which may reach no Node
// built-in. Which bundles, split points and copied files there are comes from build/bundles.mjs,
// the one table the package and the tests read too. Flags: --production (minified, no source
// maps), --watch, --outdir=<folder> (instead of dist/; the tests build into a folder of their own).
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { writeCodiconSubset } from './build/codicons.mjs';
import {
  COPIED_FILES,
  HOST_BUNDLE,
  HOST_KIND_SOURCE,
  MODULE_STUBS,
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

/**
 * Modules with a browser variant: `foo.ts` (Node) beside `foo.web.ts` (VS Code for the Web). In
 * the one host bundle an import of `foo` becomes a switch that requires one of the two on first
 * use, by src/host/hostKind.ts; esbuild keeps each required module's body (and its own `require`s
 * of Node built-ins) unrun until then, so the browser never evaluates a Node variant.
 */
const HOST_KIND = path.resolve(HOST_KIND_SOURCE);
const hostVariants = {
  name: 'host-variants',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (!args.importer || args.namespace !== 'file') return undefined;
      const base = path.resolve(args.resolveDir, args.path).replace(/\.ts$/, '');
      if (!existsSync(`${base}.web.ts`) || !existsSync(`${base}.ts`)) return undefined;
      return { path: base, namespace: 'host-variant' };
    });
    build.onLoad({ filter: /.*/, namespace: 'host-variant' }, (args) => ({
      contents: [
        `// ${path.relative('.', args.path)}: the Node module in Node's host, the .web one in a web worker.`,
        `module.exports = require(${JSON.stringify(HOST_KIND)}).NODE_HOST`,
        `  ? require(${JSON.stringify(`${args.path}.ts`)})`,
        `  : require(${JSON.stringify(`${args.path}.web.ts`)});`,
      ].join('\n'),
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * The extension host's bundle, package.json `main` and `browser` alike: Node's extension host
 * (desktop, remotes) and VS Code for the Web's web worker host (vscode.dev, github.dev) load the
 * same file. CommonJS, `vscode` external, Node built-ins external (required only inside Node
 * variants, see above), and no sibling file. The features' lazy `require`s (the feature loaders,
 * the client loader) are bundled in: esbuild evaluates each on first use.
 */
/** @type {import('esbuild').BuildOptions} */
const extension = {
  ...base,
  entryPoints: { [HOST_BUNDLE.name]: HOST_BUNDLE.source },
  plugins: [hostVariants, plainVscodeRequire, moduleStubs],
  outdir,
  platform: 'node',
  format: 'cjs',
  target: ['es2022', 'node20', 'chrome120'],
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
 * The browser's graph, checked and not written: the same entry with each module's `.web.ts`
 * variant taken where one exists (as tsconfig.web.json's `moduleSuffixes` type-checks it), which
 * is exactly what the web worker host runs of the bundle above. It may reach no Node built-in and
 * no sibling bundle.
 */
/** @type {import('esbuild').BuildOptions} */
const browserGraph = {
  ...base,
  minify: false,
  sourcemap: false,
  write: false,
  entryPoints: { [HOST_BUNDLE.name]: HOST_BUNDLE.source },
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
      [extension, webview].map((options) => esbuild.context(quiet(options))),
    );
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[watch] watching for changes…');
    return;
  }
  const started = Date.now();
  await Promise.all([esbuild.build(extension), esbuild.build(browserGraph), esbuild.build(webview)]);
  console.log(`[esbuild] ${production ? 'production' : 'development'} build in ${Date.now() - started} ms`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
