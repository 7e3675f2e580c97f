// The flake hunter: runs one tier (or several, or the whole test command) N times in a row and
// prints each failure with how often it failed. Use it after any change to a test helper or a wait.
//
//   npm run test:repeat -- --tier e2e --times 5
//   npm run test:repeat -- --tier unit --times 20      (a new property seed each run)
//   npm run test:repeat -- --tier all --times 3        (the whole test command)
//
// It builds once (as `npm test` does), then runs scripts/test.mjs for each round. Each round gets
// its own property-test seed, printed beside its counts, so a failure can be replayed with
// GATEWAY_TEST_SEED=<seed>. Exits 1 when any round failed.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const resultsDir = path.join(root, '.test-work', 'results');
const TIERS = ['lint', 'unit', 'webview', 'integration', 'package', 'e2e', 'web'];

function usage(message) {
  console.error(
    `${message}\nusage: npm run test:repeat -- --tier <${TIERS.join('|')}|all>[,<tier>…] --times <N> [--no-build]`,
  );
  process.exit(2);
}

const args = process.argv.slice(2);
let tierArg = 'all';
let times = 5;
let build = true;
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--tier') tierArg = args[++i] ?? usage('--tier needs a value');
  else if (arg === '--times') times = Number(args[++i]);
  else if (arg === '--no-build') build = false;
  else usage(`unknown argument: ${arg}`);
}
if (!Number.isInteger(times) || times < 1 || times > 1000)
  usage('--times takes a whole number from 1 to 1000');
const tiers = tierArg === 'all' ? [] : tierArg.split(',').map((t) => t.trim());
for (const t of tiers) if (!TIERS.includes(t)) usage(`unknown tier: ${t}`);
const label = tiers.length ? tiers.join(',') : 'the whole test command';

if (build) {
  console.log('=== build (once, as npm test does) ===');
  const built = spawnSync('npm', ['run', 'pretest'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

/** Failure text without the parts that change from run to run (times, ports, seeds). */
function failureKey(text) {
  return text
    .split('\n')[0]
    .replace(/\b\d+(\.\d+)? ?m?s\b/g, '… ms')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:…')
    .replace(/seed:? ?-?\d+/gi, 'seed …')
    .slice(0, 300);
}

const rounds = [];
const tally = new Map();
for (let round = 1; round <= times; round++) {
  const seed = randomInt(-0x8000_0000, 0x7fff_ffff);
  console.log(`\n=== round ${round}/${times}: ${label}, property seed ${seed} ===`);
  const started = Date.now();
  const env = { ...process.env, GATEWAY_TEST_SEED: String(seed) };
  if (tiers.length) env.GATEWAY_TEST_TIERS = tiers.join(',');
  else delete env.GATEWAY_TEST_TIERS;
  const run = spawnSync(process.execPath, ['scripts/test.mjs'], { cwd: root, stdio: 'inherit', env });
  const results = existsSync(resultsDir)
    ? readdirSync(resultsDir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(readFileSync(path.join(resultsDir, f), 'utf8')))
    : [];
  const passed = results.reduce((n, r) => n + r.passed, 0);
  let failed = results.reduce((n, r) => n + r.failed, 0);
  const failures = results.flatMap((r) => r.failures ?? []);
  if (run.status !== 0 && failed === 0) {
    failed = 1;
    failures.push(`the run exited with ${run.status} before reporting a failure`);
  }
  for (const f of failures) {
    const key = failureKey(f);
    const entry = tally.get(key) ?? { count: 0, rounds: [] };
    entry.count++;
    entry.rounds.push(`${round} (seed ${seed})`);
    tally.set(key, entry);
  }
  rounds.push({ round, seed, passed, failed, seconds: (Date.now() - started) / 1000 });
}

console.log(`\n=== ${times} rounds of ${label} ===`);
for (const r of rounds)
  console.log(
    `round ${String(r.round).padStart(3)}: ${String(r.passed).padStart(4)} passed, ${r.failed} failed, ${r.seconds.toFixed(1)} s, seed ${r.seed}`,
  );
if (tally.size === 0) console.log('No test failed in any round.');
else {
  console.log('\nFailures, most frequent first:');
  for (const [key, { count, rounds: where }] of [...tally].sort((a, b) => b[1].count - a[1].count))
    console.log(`  ${count}/${times}  ${key}\n         in round ${where.join(', ')}`);
}
const failedRounds = rounds.filter((r) => r.failed > 0).length;
console.log(`${failedRounds} of ${times} rounds failed`);
process.exit(failedRounds > 0 ? 1 : 0);
