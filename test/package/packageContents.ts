/**
 * What a packaged extension must hold, checked from its file listing alone (no I/O here: the
 * caller lists the package and reads its files). Two checks, each returning one line per problem,
 * naming the file:
 *
 * - `compareWithTable`: the package holds exactly the files of build/bundles.mjs, the documents
 *   and package.json; nothing missing, nothing extra (sources, maps, tests, node_modules,
 *   screenshots are called out by kind).
 * - `followReferences`: every file the shipped files load is in the package: the relative
 *   `require`s of each bundle (and no bare `require` of a package, since none ships), the
 *   `dist/…` and `media/…` paths the host code hands to the webview shell, `url()`s in
 *   stylesheets, images and links in shipped Markdown, and the manifest's `main`, `icon` and every
 *   file path under `contributes`.
 */
import { builtinModules } from 'node:module';
import * as posix from 'node:path/posix';

/** The package as the checks see it: paths relative to the extension's root, as `vsce ls` prints. */
export interface PackageView {
  files: readonly string[];
  /** A packaged file's text, or undefined when it cannot be read (then it is not followed). */
  read(file: string): string | undefined;
}

/** The part of build/bundles.mjs the comparison needs. */
export interface ShippedTable {
  shippedFiles: readonly string[];
  documents: readonly string[];
}

/** The entries vsce writes beside the extension's folder in every .vsix. */
export const VSCE_ENTRIES: readonly string[] = ['extension.vsixmanifest', '[Content_Types].xml'];

/** The folders a webview may load the extension's files from (PAGE_RESOURCE_FOLDERS). */
const RESOURCE_FOLDERS = ['dist', 'media'];

/**
 * A .vsix's zip entries as extension-relative paths, with vsce's renames undone (it stores
 * README.md as readme.md, CHANGELOG.md as changelog.md and LICENSE as LICENSE.txt), plus a problem
 * for each of vsce's own entries that is missing and each entry outside the extension's folder.
 */
export function vsixFiles(entries: readonly string[]): { files: string[]; problems: string[] } {
  const files: string[] = [];
  const problems: string[] = [];
  for (const entry of VSCE_ENTRIES)
    if (!entries.includes(entry)) problems.push(`missing: ${entry} (vsce writes it in every package)`);
  for (const entry of entries) {
    if (entry.endsWith('/') || VSCE_ENTRIES.includes(entry)) continue;
    if (!entry.startsWith('extension/')) {
      problems.push(`extra: ${entry} (outside the extension's folder)`);
      continue;
    }
    files.push(documentName(entry.slice('extension/'.length)));
  }
  return { files, problems };
}

function documentName(file: string): string {
  if (/^readme\.md$/i.test(file)) return 'README.md';
  if (/^changelog\.md$/i.test(file)) return 'CHANGELOG.md';
  if (/^license(\.txt)?$/i.test(file)) return 'LICENSE';
  return file;
}

/** What kind of file should never ship, or undefined when the name says nothing. */
function forbiddenKind(file: string): string | undefined {
  if (/(^|\/)node_modules\//.test(file)) return 'a dependency: the bundles include what they use';
  if (/\.map$/.test(file)) return 'a source map';
  if (/(^|\/)(src|test|bench)\//.test(file) || /\.(ts|tsx|mts|cts)$/.test(file))
    return 'a source or test file';
  if (/\.test\.[cm]?js$/.test(file)) return 'a test';
  if (/(^|\/)screenshots\//.test(file)) return 'a screenshot (the README links it from the repository)';
  return undefined;
}

/** Both ways: every file the table names is in the package, and the package holds nothing else. */
export function compareWithTable(files: readonly string[], table: ShippedTable): string[] {
  const expected = new Set(['package.json', ...table.documents, ...table.shippedFiles]);
  const present = new Set(files);
  const problems: string[] = [];
  for (const file of [...expected].sort())
    if (!present.has(file)) problems.push(`missing: ${file} (build/bundles.mjs lists it)`);
  for (const file of [...present].sort()) {
    if (expected.has(file)) continue;
    const kind = forbiddenKind(file);
    problems.push(`extra: ${file} (${kind ?? 'not in build/bundles.mjs'})`);
  }
  return problems;
}

/** Normalises a path relative to the extension's root; undefined when it leaves the root. */
function withinRoot(file: string): string | undefined {
  const normal = posix.normalize(file.replace(/^\.\//, ''));
  return normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal) ? undefined : normal;
}

/** `dist/…` and `media/…` paths written as string literals, as the host passes them to the shell. */
export function resourcePathLiterals(text: string): string[] {
  const folders = RESOURCE_FOLDERS.join('|');
  const pattern = new RegExp(`["'\`]((?:${folders})/[\\w@.-]+(?:/[\\w@.-]+)*\\.[A-Za-z0-9]+)["'\`]`, 'g');
  return unique([...text.matchAll(pattern)].map((m) => m[1]));
}

/** The specifiers of `require("…")` calls in a bundle. */
export function requiredSpecifiers(text: string): string[] {
  return unique([...text.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]));
}

/** The targets of `url(…)` in a stylesheet, without their query or fragment; data: URLs left out. */
export function cssUrls(text: string): string[] {
  return unique(
    [...text.matchAll(/url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)/g)]
      .map((m) => (m[1] ?? m[2] ?? m[3]).replace(/[?#].*$/, ''))
      .filter((url) => url !== '' && !hasScheme(url)),
  );
}

/** Relative image and link targets in Markdown (`![](x)`, `[](x)`, `<img src="x">`). */
export function markdownTargets(text: string): string[] {
  const links = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const images = [...text.matchAll(/<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
  return unique(
    [...links, ...images]
      .map((target) => target.replace(/[?#].*$/, ''))
      .filter((target) => target !== '' && !hasScheme(target)),
  );
}

function hasScheme(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//');
}

/**
 * File paths the manifest names: `main`, `browser`, `icon`, and every string under `contributes`
 * that looks like a file of the extension (walkthrough media, view container icons, grammars,
 * schemas…). Settings (`contributes.configuration`) hold user values, not files, and are skipped.
 */
export function manifestFiles(manifest: unknown): string[] {
  const found: string[] = [];
  const record = isRecord(manifest) ? manifest : {};
  for (const key of ['main', 'browser', 'icon']) {
    const value = record[key];
    if (typeof value === 'string') found.push(key === 'icon' ? value : withJs(value));
  }
  const walk = (value: unknown, key: string): void => {
    if (key === 'configuration') return;
    if (typeof value === 'string') {
      if (looksLikeFile(value)) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, '');
    } else if (isRecord(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    }
  };
  walk(record.contributes, 'contributes');
  return unique(found.map((f) => withinRoot(f) ?? f));
}

const FILE_EXTENSIONS = 'png|svg|jpe?g|gif|webp|ico|md|json|css|js|cjs|mjs|ttf|woff2?|tmLanguage|plist';

function looksLikeFile(value: string): boolean {
  return new RegExp(`^(\\./)?[\\w@.-]+(/[\\w@.-]+)*\\.(${FILE_EXTENSIONS})$`, 'i').test(value);
}

function withJs(main: string): string {
  return /\.[cm]?js$/.test(main) ? main : `${main}.js`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** Node's own modules: any `node:` name (only built-ins have it, some only in newer Node), or a bare built-in name. */
function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier);
}

/** One file loading another: `target` is the path in the package, undefined when outside it. */
export interface Reference {
  from: string;
  how: string;
  target: string | undefined;
  written: string;
}

/** Everything the manifest and the shipped code, stylesheets and Markdown load. */
export function references(view: PackageView): { references: Reference[]; problems: string[] } {
  const found: Reference[] = [];
  const problems: string[] = [];
  const manifestText = view.read('package.json');
  if (manifestText !== undefined) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(manifestText);
    } catch {
      problems.push('package.json is not JSON');
    }
    for (const file of manifestFiles(manifest))
      found.push({ from: 'package.json', how: 'the manifest', target: withinRoot(file), written: file });
  }
  for (const file of [...view.files].sort()) {
    const text = /\.(js|css|md)$/.test(file) && !isDocument(file) ? view.read(file) : undefined;
    if (text === undefined) continue;
    const folder = posix.dirname(file);
    const code = file.endsWith('.js') ? withoutCommentLines(text) : text;
    const add = (how: string, relative: string, written: string) =>
      found.push({ from: file, how, target: withinRoot(relative), written });
    if (file.endsWith('.js')) {
      for (const specifier of requiredSpecifiers(code)) {
        if (specifier.startsWith('.'))
          add(`require("${specifier}")`, withJs(posix.join(folder, specifier)), specifier);
        else if (specifier !== 'vscode' && !isNodeBuiltin(specifier))
          problems.push(
            `${file} requires "${specifier}", which the package does not hold (no node_modules ship)`,
          );
      }
      for (const resource of resourcePathLiterals(code)) add('a webview resource', resource, resource);
    } else if (file.endsWith('.css')) {
      for (const url of cssUrls(text)) add(`url(${url})`, posix.join(folder, url), url);
    } else {
      for (const target of markdownTargets(text))
        add(`a link to ${target}`, posix.join(folder, target), target);
    }
  }
  return { references: found, problems };
}

/**
 * A bundle without the lines that are comments (development builds keep some, and a library's
 * doc comment may show `require('x')` as an example). Minified bundles have none.
 */
function withoutCommentLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

/** Every file the shipped files load is in the package: one line per file that is not. */
export function followReferences(view: PackageView): string[] {
  const present = new Set(view.files);
  const { references: found, problems } = references(view);
  for (const { from, how, target, written } of found) {
    if (target === undefined)
      problems.push(`${from} loads ${written} (${how}), outside the extension's folder`);
    else if (!present.has(target)) problems.push(`missing: ${target}, which ${from} loads (${how})`);
  }
  return problems;
}

/**
 * The packaged files nothing loads (besides package.json and the documents, which VS Code and the
 * Marketplace read): a bundle or asset left in the table after its last user went.
 */
export function unreferencedFiles(view: PackageView, documents: readonly string[]): string[] {
  const loaded = new Set(references(view).references.map((r) => r.target));
  return view.files.filter((f) => f !== 'package.json' && !documents.includes(f) && !loaded.has(f)).sort();
}

/** README and CHANGELOG: vsce rewrites their relative links to the repository, so they are not followed. */
function isDocument(file: string): boolean {
  return !file.includes('/') && /^(readme|changelog)\.md$/i.test(file);
}

/** Both checks together: the empty list when the package is whole. */
export function checkPackage(view: PackageView, table: ShippedTable): string[] {
  return [...compareWithTable(view.files, table), ...followReferences(view)];
}
