// Packages the extension as `npm run package` does (vsce package --no-dependencies, which runs the
// production build through `vscode:prepublish`), into the file given, then restores the
// development build in dist/:
//
//   node scripts/package-vsix.mjs [--out <file.vsix>]
//
// Prints the .vsix's absolute path as the only line on stdout; vsce's own messages go to stderr.
// Without --out, the file is .test-work/package/<name>-<version>.vsix. Other scripts import
// `packageVsix(out)`, which returns the same path.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the .vsix goes when no --out is given. */
export function defaultVsixPath() {
  const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return path.join(root, '.test-work', 'package', `${name}-${version}.vsix`);
}

/**
 * Builds the .vsix at `out` (relative to the current folder), replacing any file there, and
 * returns its absolute path. Throws with vsce's output when packaging fails.
 */
export function packageVsix(out = defaultVsixPath()) {
  const target = path.resolve(out);
  mkdirSync(path.dirname(target), { recursive: true });
  rmSync(target, { force: true });
  const vsce = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
  try {
    const output = execFileSync(vsce, ['package', '--no-dependencies', '--out', target], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180_000,
    });
    if (output.trim()) process.stderr.write(`${output.trim()}\n`);
  } catch (error) {
    const text = [error.stdout, error.stderr].filter(Boolean).join('\n').trim();
    throw new Error(`vsce package failed${text ? `:\n${text}` : `: ${error.message}`}`);
  } finally {
    // vsce's prepublish step wrote the production build over dist/: put the development build
    // back, so the tiers and the inner loop that run from dist/ see what `npm run build` makes.
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return target;
}

function outArgument(argv) {
  const at = argv.indexOf('--out');
  if (at === -1) return undefined;
  const value = argv[at + 1];
  if (!value || value.startsWith('--')) throw new Error('--out needs a file name');
  return value;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.stdout.write(`${packageVsix(outArgument(process.argv.slice(2)))}\n`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
