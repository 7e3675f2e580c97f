/**
 * build/bundles.mjs is the one list of what the extension is made of. These checks keep everything
 * else in step with it: package.json `files` (what vsce packs), the build (what esbuild writes),
 * the repository (the static files) and the sources (the paths the host hands to webviews).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../launch/paths';
import { bundleTable } from '../../package/bundleTable';
import { resourcePathLiterals } from '../../package/packageContents';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function posixRelative(from: string, file: string): string {
  return path.relative(from, file).split(path.sep).join('/');
}

describe('the bundle table (build/bundles.mjs)', function () {
  this.timeout(60_000);

  it('package.json `files` lists exactly the documents and the shipped files of the table', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      files?: string[];
    };
    assert.deepEqual(manifest.files, bundleTable().packageFilesField);
    assert.deepEqual(bundleTable().packageFilesField, [
      ...bundleTable().documents,
      ...bundleTable().shippedFiles,
    ]);
  });

  it('there is no .vscodeignore beside `files` (vsce refuses to package with both)', () => {
    assert.ok(!existsSync(path.join(repoRoot, '.vscodeignore')));
  });

  it('every source, copied file and static file it names is in the repository', () => {
    const table = bundleTable();
    const named = [
      table.hostBundle.source,
      table.hostKindSource,
      ...table.webviewBundles.map((b) => b.source),
      ...table.copiedFiles.map((c) => c.from),
      ...table.staticFiles,
      ...table.documents,
    ];
    assert.deepEqual(
      named.filter((file) => !existsSync(path.join(repoRoot, file))),
      [],
    );
  });

  it('names each bundle once', () => {
    const table = bundleTable();
    const names = [table.hostBundle, ...table.webviewBundles].map((b) => b.name);
    assert.deepEqual(names, [...new Set(names)]);
  });

  it('`node esbuild.mjs` writes exactly the built files of the table, with a source map per bundle', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'gateway-build-'));
    try {
      execFileSync(process.execPath, ['esbuild.mjs', `--outdir=${path.join(out, 'dist')}`], {
        cwd: repoRoot,
        stdio: 'pipe',
      });
      const written = filesUnder(out)
        .map((file) => posixRelative(out, file))
        .sort();
      const bundles = [...bundleTable().hostBundleFiles, ...bundleTable().webviewBundleFiles];
      assert.deepEqual(written, [...bundleTable().builtFiles, ...bundles.map((b) => `${b}.map`)].sort());
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('every dist/ or media/ path the extension sources name is a shipped file', () => {
    const sources = [
      path.join(repoRoot, 'src', 'extension.ts'),
      ...filesUnder(path.join(repoRoot, 'src', 'host')),
    ];
    const named = sources.flatMap((file) =>
      resourcePathLiterals(readFileSync(file, 'utf8')).map((resource) => ({
        resource,
        source: posixRelative(repoRoot, file),
      })),
    );
    assert.ok(named.length >= bundleTable().webviewBundleFiles.length, 'the pages name their scripts');
    const shipped = new Set(bundleTable().shippedFiles);
    assert.deepEqual(
      named.filter((n) => !shipped.has(n.resource)),
      [],
    );
  });

  it('esbuild.mjs keeps no list of sources of its own', () => {
    const config = readFileSync(path.join(repoRoot, 'esbuild.mjs'), 'utf8');
    assert.doesNotMatch(config, /['"`](src|node_modules)\//);
  });
});
