// Starts the local gateway simulator (see test/simulator). Compiles the tests first so the
// simulator is always current. Arguments are passed on, e.g. `npm run gateway -- --port 8787`.
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

console.log('Compiling (tsc -p tsconfig.test.json)…');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.test.json'], {
  cwd: root,
  stdio: 'inherit',
});
const cli = path.join(root, 'out', 'test', 'simulator', 'cli.js');
// tsc still emits when another part of the tree has type errors; the simulator may be fine.
if (compiled.status !== 0) {
  if (!existsSync(cli)) {
    console.error(
      'Compilation failed and out/test/simulator/cli.js is missing; fix the errors above, or run `npm run compile-tests`.',
    );
    process.exit(compiled.status ?? 1);
  }
  console.warn('The compile reported errors (above); starting the simulator as emitted.');
}

const child = spawn(process.execPath, [cli, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
