// One shared base, two bundles: the extension (Node, CommonJS, `vscode` external) and the chat
// webview's front end (browser). Flags: --production (minified, no source maps), --watch.
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

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
 * The gateway client (with undici) is its own bundle, required on first use: activation then
 * neither parses nor evaluates the network stack. The host asks for it as `require('../api')`
 * from src/gateway/gatewayService.ts, which this plugin points at the sibling dist/api.js.
 */
const lazyApi = {
  name: 'lazy-api',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/api$/ }, (args) =>
      args.importer.replace(/\\/g, '/').endsWith('src/gateway/gatewayService.ts')
        ? { path: './api.js', external: true }
        : undefined,
    );
  },
};

/** @type {import('esbuild').BuildOptions} */
const extension = {
  ...base,
  entryPoints: { extension: 'src/extension.ts', api: 'src/api/index.ts' },
  plugins: [lazyApi],
  outdir: 'dist',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  mainFields: ['module', 'main'],
};

/** @type {import('esbuild').BuildOptions} */
const webview = {
  ...base,
  entryPoints: { webview: 'src/webview/main.ts' },
  outdir: 'dist',
  platform: 'browser',
  format: 'iife',
  target: ['chrome120'],
  loader: { '.ttf': 'file' },
};

/** Codicons ship as a font plus a stylesheet; the webview loads both from `dist/codicons`. */
async function copyCodicons() {
  await mkdir('dist/codicons', { recursive: true });
  await copyFile('node_modules/@vscode/codicons/dist/codicon.css', 'dist/codicons/codicon.css');
  await copyFile('node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/codicons/codicon.ttf');
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
  await copyCodicons();
  if (watch) {
    const quiet = (options) => ({
      ...options,
      logLevel: 'silent',
      plugins: [...(options.plugins ?? []), watchLog],
    });
    const contexts = await Promise.all([esbuild.context(quiet(extension)), esbuild.context(quiet(webview))]);
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[watch] watching for changes…');
    return;
  }
  const started = Date.now();
  await Promise.all([esbuild.build(extension), esbuild.build(webview)]);
  console.log(`[esbuild] ${production ? 'production' : 'development'} build in ${Date.now() - started} ms`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
