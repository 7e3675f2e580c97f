/**
 * The package checks of test/package/packageContents.ts, fed listings instead of a real .vsix
 * (test/package/vsix.test.ts runs them on one): the listing of the package built at 86986bc, which
 * left out three files its features load, fails them; the table's own files, as built in dist/,
 * pass; and each kind of reference is followed.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../launch/paths';
import { bundleTable } from '../../package/bundleTable';
import {
  checkPackage,
  compareWithTable,
  cssUrls,
  followReferences,
  manifestFiles,
  markdownTargets,
  unreferencedFiles,
  vsixFiles,
} from '../../package/packageContents';
import type { PackageView } from '../../package/packageContents';

/**
 * `npx vsce ls --no-dependencies` at 86986bc after its production build: the files `npm run
 * package` packed there (24 entries with vsce's two).
 */
const LISTING_86986BC = [
  'package.json',
  'README.md',
  'LICENSE',
  'CHANGELOG.md',
  'media/mediaPreview.css',
  'media/icon.png',
  'media/gateway.svg',
  'media/chat.css',
  'dist/webview.js',
  'dist/shared.js',
  'dist/mediaPreview.js',
  'dist/media.js',
  'dist/extension.js',
  'dist/chat.js',
  'dist/api.js',
  'media/walkthrough/model.md',
  'media/walkthrough/media.md',
  'media/walkthrough/key.md',
  'media/walkthrough/explain.md',
  'media/walkthrough/chat.md',
  'dist/codicons/codicon.ttf',
  'dist/codicons/codicon.css',
];

/**
 * Files the table gained after 86986bc, and the host bundles that have since become one
 * (dist/extension.js, for both extension hosts), so the tests below still see only what it left
 * out: dist/lm.js then, now part of the host bundle, and the gallery's page.
 */
const ADDED_SINCE_86986BC = ['media/walkthrough/inline.md'];
const MERGED_SINCE_86986BC = ['dist/shared.js', 'dist/media.js', 'dist/chat.js', 'dist/api.js'];
const LISTING = [
  ...LISTING_86986BC.filter((file) => !MERGED_SINCE_86986BC.includes(file)),
  ...ADDED_SINCE_86986BC,
];

/** A package of `files` whose text is read from this checkout (dist/ as last built). */
function checkoutPackage(files: readonly string[]): PackageView {
  return {
    files,
    read: (file) => {
      const at = path.join(repoRoot, file);
      return files.includes(file) && existsSync(at) ? readFileSync(at, 'utf8') : undefined;
    },
  };
}

/** A package made of the given texts. */
function fakePackage(texts: Record<string, string>): PackageView {
  return { files: Object.keys(texts), read: (file) => texts[file] };
}

const MANIFEST = JSON.stringify({ main: './dist/extension.js' });

describe('the package checks', function () {
  before(function () {
    if (!bundleTable().builtFiles.every((file) => existsSync(path.join(repoRoot, file))))
      throw new Error('dist/ is not built: run "npm run build" first');
  });

  it('the .vsix listing of 86986bc fails, naming dist/gallery.js and media/gallery.css', () => {
    const view = checkoutPackage(LISTING);
    const problems = checkPackage(view, bundleTable());
    for (const file of ['dist/gallery.js', 'media/gallery.css'])
      assert.ok(
        problems.some((p) => p.includes(file)),
        `no problem names ${file}: ${problems.join('; ')}`,
      );
    assert.deepEqual(compareWithTable(view.files, bundleTable()), [
      'missing: dist/gallery.js (build/bundles.mjs lists it)',
      'missing: media/gallery.css (build/bundles.mjs lists it)',
    ]);
  });

  it('the listing of 86986bc fails even against a table that agreed with it, on what its code loads', () => {
    // The table was as wrong as the package then; the references alone find the files.
    const problems = followReferences(checkoutPackage(LISTING));
    assert.deepEqual(problems, [
      'missing: dist/gallery.js, which dist/extension.js loads (a webview resource)',
      'missing: media/gallery.css, which dist/extension.js loads (a webview resource)',
    ]);
  });

  it("a package of exactly the table's files, as built in dist/, passes, and each of its files is loaded by something", () => {
    const table = bundleTable();
    const view = checkoutPackage(['package.json', ...table.documents, ...table.shippedFiles]);
    assert.deepEqual(checkPackage(view, table), []);
    assert.deepEqual(unreferencedFiles(view, table.documents), []);
  });

  it('calls out sources, maps, tests, node_modules and screenshots by kind', () => {
    const problems = compareWithTable(
      [
        'package.json',
        'dist/extension.js',
        'dist/extension.js.map',
        'src/extension.ts',
        'out/test/unit/a.test.js',
        'node_modules/undici/index.js',
        'media/screenshots/chat.png',
        'notes.txt',
      ],
      { shippedFiles: ['dist/extension.js'], documents: [] },
    );
    assert.deepEqual(problems, [
      'extra: dist/extension.js.map (a source map)',
      'extra: media/screenshots/chat.png (a screenshot (the README links it from the repository))',
      'extra: node_modules/undici/index.js (a dependency: the bundles include what they use)',
      'extra: notes.txt (not in build/bundles.mjs)',
      'extra: out/test/unit/a.test.js (a source or test file)',
      'extra: src/extension.ts (a source or test file)',
    ]);
  });

  it('follows relative requires, and fails a bare require of a package while allowing vscode and Node built-ins', () => {
    const problems = followReferences(
      fakePackage({
        'package.json': MANIFEST,
        'dist/extension.js':
          '/**\n * .use(require("markdown-it-x"))\n */\n// require("./old.js")\nrequire("vscode");require("node:fs");require("path");require("node:sqlite");require("./shared.js");require("./gone.js");require("undici")',
        'dist/shared.js': '',
      }),
    );
    assert.deepEqual(problems, [
      'dist/extension.js requires "undici", which the package does not hold (no node_modules ship)',
      'missing: dist/gone.js, which dist/extension.js loads (require("./gone.js"))',
    ]);
  });

  it("follows the webview resources host code names, stylesheets' url()s and walkthrough Markdown links", () => {
    const problems = followReferences(
      fakePackage({
        'package.json': MANIFEST,
        'dist/extension.js':
          'const page={scripts:["dist/page.js"],styles:[`media/page.css`,\'media/gone.css\']}',
        'dist/page.js': '',
        'media/page.css':
          '@font-face{src:url("../dist/font.ttf?abc")} a{background:url(data:image/png;base64,AA)} b{background:url(icons/x.svg#y)}',
        'dist/font.ttf': '',
        'media/walk.md':
          '![step](images/step.png) [docs](https://example.com/a.png) <img src="../media/page.css">',
        'README.md': '![shot](media/screenshots/chat.png)',
      }),
    );
    assert.deepEqual(problems, [
      'missing: media/gone.css, which dist/extension.js loads (a webview resource)',
      'missing: media/icons/x.svg, which media/page.css loads (url(icons/x.svg))',
      'missing: media/images/step.png, which media/walk.md loads (a link to images/step.png)',
    ]);
    assert.deepEqual(cssUrls("a{src:url( 'x.woff2' )} b{src:url()}"), ['x.woff2']);
    assert.deepEqual(markdownTargets('[a](#anchor) [b](command:gateway.setApiKey) [c](<sub/d.md>)'), [
      'sub/d.md',
    ]);
  });

  it("follows the manifest's main, icon and every file under contributes, but not settings' values", () => {
    const manifest = {
      main: './dist/extension',
      icon: 'media/icon.png',
      contributes: {
        viewsContainers: { activitybar: [{ id: 'g', icon: 'media/gateway.svg' }] },
        views: { g: [{ id: 'v', icon: { light: 'media/light.svg', dark: './media/dark.svg' } }] },
        walkthroughs: [
          {
            steps: [
              { media: { markdown: 'media/walkthrough/key.md' } },
              { media: { image: 'media/step.png' } },
            ],
          },
        ],
        commands: [{ command: 'c', icon: '$(key)' }],
        configuration: { properties: { 'x.file': { default: 'media/not-a-file.png' } } },
      },
    };
    assert.deepEqual(manifestFiles(manifest), [
      'dist/extension.js',
      'media/icon.png',
      'media/gateway.svg',
      'media/light.svg',
      'media/dark.svg',
      'media/walkthrough/key.md',
      'media/step.png',
    ]);
    const problems = followReferences(
      fakePackage({
        'package.json': JSON.stringify({ ...manifest, icon: '../icon.png' }),
        'dist/extension.js': '',
        'media/gateway.svg': '',
        'media/light.svg': '',
        'media/dark.svg': '',
        'media/walkthrough/key.md': '',
      }),
    );
    assert.deepEqual(problems, [
      "package.json loads ../icon.png (the manifest), outside the extension's folder",
      'missing: media/step.png, which package.json loads (the manifest)',
    ]);
    assert.deepEqual(manifestFiles(null), []);
  });

  it("reads a .vsix's entries as the extension's files, undoing vsce's renames", () => {
    assert.deepEqual(
      vsixFiles([
        'extension.vsixmanifest',
        '[Content_Types].xml',
        'extension/',
        'extension/package.json',
        'extension/readme.md',
        'extension/changelog.md',
        'extension/LICENSE.txt',
        'extension/dist/extension.js',
      ]),
      {
        files: ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/extension.js'],
        problems: [],
      },
    );
    assert.deepEqual(vsixFiles(['extension/package.json', 'stray.txt']), {
      files: ['package.json'],
      problems: [
        'missing: extension.vsixmanifest (vsce writes it in every package)',
        'missing: [Content_Types].xml (vsce writes it in every package)',
        "extra: stray.txt (outside the extension's folder)",
      ],
    });
  });

  it('reports a package whose manifest is not JSON', () => {
    assert.deepEqual(followReferences(fakePackage({ 'package.json': '{' })), ['package.json is not JSON']);
  });
});
