// The `lint` tier of scripts/test.mjs: ESLint (no warnings allowed) and Prettier's check, each
// counted as one test, so a lint error or an unformatted file fails `npm test`.
// Writes its counts where GATEWAY_TIER_RESULT asks, like the other tiers (test/launch/results.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checks = [
  {
    name: 'eslint',
    fix: 'see "npm run lint"',
    bin: 'node_modules/eslint/bin/eslint.js',
    args: ['.', '--max-warnings', '0'],
  },
  {
    name: 'prettier --check',
    fix: '"npm run format" rewrites the files listed',
    bin: 'node_modules/prettier/bin/prettier.cjs',
    args: ['--check', '.'],
  },
];

const started = Date.now();
const result = { tier: 'lint', passed: 0, failed: 0, pending: 0, failures: [] };
for (const check of checks) {
  console.log(`\n--- ${check.name} ---`);
  const run = spawnSync(process.execPath, [path.join(root, check.bin), ...check.args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status === 0) {
    result.passed++;
    console.log(`  ✔ ${check.name}`);
  } else {
    result.failed++;
    result.failures.push(`${check.name} failed (exit ${run.status ?? run.signal}): ${check.fix}`);
    console.log(`  ✘ ${check.name}`);
  }
}
result.durationMs = Date.now() - started;

const file = process.env.GATEWAY_TIER_RESULT;
if (file) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(result, null, 2));
}
process.exit(result.failed > 0 ? 1 : 0);
