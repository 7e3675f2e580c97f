/**
 * build/bundles.mjs, the one table of bundles and shipped files, for the TypeScript tests. It is
 * an ES module and the tests compile to CommonJS, so it is read once through a child Node, which
 * prints the table and its derived lists as JSON (`node build/bundles.mjs`).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '../launch/paths';

export interface HostBundle {
  name: string;
  source: string;
}

export interface WebviewBundle {
  name: string;
  source: string;
}

export interface BundleTable {
  /** The one host bundle both extension hosts load (package.json `main` and `browser`). */
  hostBundle: HostBundle;
  /** The module the host bundle's switches between Node and browser variants read. */
  hostKindSource: string;
  webviewBundles: WebviewBundle[];
  copiedFiles: Array<{ file: string; from: string }>;
  staticFiles: string[];
  /** README.md, CHANGELOG.md, LICENSE. */
  documents: string[];
  /** `dist/<name>.js` of each host bundle, in the table's order. */
  hostBundleFiles: string[];
  /** `dist/<name>.js` of each webview bundle, in the table's order. */
  webviewBundleFiles: string[];
  /** What `node esbuild.mjs` writes that ships, sorted. */
  builtFiles: string[];
  /** Every file of the package besides package.json and the documents, sorted. */
  shippedFiles: string[];
  /** What package.json `files` must be. */
  packageFilesField: string[];
}

let table: BundleTable | undefined;

export function bundleTable(): BundleTable {
  table ??= JSON.parse(
    execFileSync(process.execPath, [path.join(repoRoot, 'build', 'bundles.mjs')], { encoding: 'utf8' }),
  ) as BundleTable;
  return table;
}
