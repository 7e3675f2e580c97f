// Runs every test tier in order and ends with one line, summed over all tiers:
//   N passed, N failed
// Tiers: lint (ESLint and Prettier's check, one test each), unit (plain Node), webview (the chat
// front end in Chromium), integration (inside a real VS Code extension host), package (the .vsix
// this run builds, checked against build/bundles.mjs), end-to-end (that .vsix installed into the
// real workbench in Chromium, driven as a new user would), web (that .vsix run from its browser
// entry in the workbench's web worker extension host, against a gateway that answers CORS). The
// integration tier runs twice: in VS Code 1.100.3 (the oldest supported) and in VS Code 1.139.1
// (language-model provider API, built-in chat); its counts are summed with the rest.
// `npm test` builds first (pretest). Pick tiers with GATEWAY_TEST_TIERS=lint,unit,webview,...
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const resultsDir = path.join(root, '.test-work', 'results');
const electron = process.env.GATEWAY_TEST_RUNNER === 'electron';

const tiers = [
  { name: 'lint', args: ['scripts/lint-tier.mjs'] },
  { name: 'unit', args: ['out/test/launch/runMochaTier.js', 'unit', 'unit'] },
  { name: 'webview', args: ['out/test/launch/runMochaTier.js', 'webview', 'webview', '60000'] },
  ...(electron
    ? [{ name: 'integration', args: ['out/test/launch/runElectronTests.js'] }]
    : ['4.100.3', '4.139.1'].map((version) => ({
        name: 'integration',
        label: `integration@${version}`,
        args: ['out/test/launch/runServerTests.js', version],
      }))),
  // The .vsix this run builds (scripts/package-vsix.mjs), checked against build/bundles.mjs; the
  // e2e tier then installs that same file into fresh profiles.
  { name: 'package', args: ['out/test/launch/runMochaTier.js', 'package', 'package', '240000'], vsix: true },
  { name: 'e2e', args: ['out/test/launch/runMochaTier.js', 'e2e', 'e2e', '180000'], vsix: true },
  // The same .vsix in VS Code for the Web's extension host (a web worker), its `browser` entry.
  { name: 'web', args: ['out/test/launch/runMochaTier.js', 'web', 'web', '180000'], vsix: true },
];

function packageName() {
  const { name, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return `${name}-${version}`;
}

const wanted = process.env.GATEWAY_TEST_TIERS?.split(',')
  .map((t) => t.trim())
  .filter(Boolean);
const selected = wanted ? tiers.filter((t) => wanted.includes(t.name)) : tiers;

rmSync(resultsDir, { recursive: true, force: true });
const summary = [];
const vsixFile = path.join(root, '.test-work', 'vsix', `${packageName()}.vsix`);
let vsixBuilt;
for (const tier of selected) {
  if (!existsSync(path.join(root, tier.args[0]))) {
    console.error(
      `\n${tier.args[0]} is missing: run "npm test" (it builds first) or "npm run compile-tests".`,
    );
    process.exit(1);
  }
  const label = tier.label ?? tier.name;
  console.log(`\n=== ${label} tests ===`);
  const resultFile = path.join(resultsDir, `${label}.json`);
  const started = Date.now();
  const env = { ...process.env, GATEWAY_TIER_RESULT: resultFile };
  if (tier.vsix) {
    // Built once per run, the way `npm run package` builds it; a failure to package fails the tier.
    vsixBuilt ??= spawnSync(process.execPath, ['scripts/package-vsix.mjs', '--out', vsixFile], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    }).status;
    if (vsixBuilt === 0) env.GATEWAY_VSIX = vsixFile;
    else {
      summary.push({
        tier: tier.name,
        passed: 0,
        failed: 1,
        pending: 0,
        failures: [`the .vsix could not be built for the ${label} tier (exit ${vsixBuilt})`],
        durationMs: Date.now() - started,
      });
      continue;
    }
  }
  const run = spawnSync(process.execPath, tier.args, { cwd: root, stdio: 'inherit', env });
  let result;
  if (existsSync(resultFile)) {
    result = JSON.parse(readFileSync(resultFile, 'utf8'));
  } else {
    // The tier could not start or crashed before counting: one failure, so it cannot pass unseen.
    result = {
      tier: tier.name,
      passed: 0,
      failed: 1,
      pending: 0,
      failures: [`the ${label} tier did not run (exit ${run.status})`],
    };
  }
  if (run.status !== 0 && result.failed === 0) {
    result.failed = 1;
    result.failures = [...(result.failures ?? []), `the ${label} tier exited with ${run.status}`];
  }
  result.durationMs = Date.now() - started;
  summary.push(result);
}

console.log('\n=== summary ===');
for (const r of summary) {
  const host = r.host ? ` in ${r.host}` : '';
  console.log(
    `${r.tier.padEnd(12)} ${String(r.passed).padStart(4)} passed, ${r.failed} failed, ${r.pending ?? 0} pending${host} (${(r.durationMs / 1000).toFixed(1)} s)`,
  );
  for (const f of r.failures ?? []) console.log(`  ✘ ${f}`);
}
const passed = summary.reduce((n, r) => n + r.passed, 0);
const failed = summary.reduce((n, r) => n + r.failed, 0);
if (passed === 0) console.log('No test ran.');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
