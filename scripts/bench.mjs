// Measures what Gateway AI costs its users and how it behaves under load, and compares each
// figure with a goal or a peer. Prints one table and writes bench/results.json.
//   npm run bench
//   npm run bench -- webview          (only the named sections; or GATEWAY_BENCH_SECTIONS=size,webview)
// Sections: size → activation → browserEntry → streaming → media → webview → renderSpeed →
// agentView → catalog → gallery → inline → agent. A section that fails prints its error and the
// others still run; the exit code is 1 if any section (or the build) failed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outBench = path.join(root, 'out', 'bench');
const require = createRequire(import.meta.url);

/** Each section lives in a compiled module under out/bench and exports one async function. */
const allSections = [
  { name: 'size', module: 'size.js', fn: 'benchSize' },
  { name: 'activation', module: 'activation.js', fn: 'benchActivation' },
  { name: 'browserEntry', module: 'browserEntry.js', fn: 'benchBrowserEntry' },
  { name: 'streaming', module: 'streaming.js', fn: 'benchStreaming' },
  { name: 'media', module: 'media.js', fn: 'benchMedia' },
  { name: 'webview', module: 'webview.js', fn: 'benchWebview' },
  { name: 'renderSpeed', module: 'renderSpeed.js', fn: 'benchRenderSpeed' },
  { name: 'agentView', module: 'agentView.js', fn: 'benchAgentView' },
  { name: 'catalog', module: 'catalog.js', fn: 'benchCatalog' },
  { name: 'gallery', module: 'gallery.js', fn: 'benchGallery' },
  { name: 'inline', module: 'inline.js', fn: 'benchInline' },
  { name: 'agent', module: 'agent.js', fn: 'benchAgent' },
];
const wanted = [
  ...process.argv.slice(2),
  ...(process.env.GATEWAY_BENCH_SECTIONS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean) ?? []),
];
const unknown = wanted.filter((name) => !allSections.some((section) => section.name === name));
if (unknown.length > 0) {
  console.error(
    `[bench] unknown section ${unknown.join(', ')}; sections: ${allSections.map((s) => s.name).join(', ')}`,
  );
  process.exit(1);
}
const sections =
  wanted.length > 0 ? allSections.filter((section) => wanted.includes(section.name)) : allSections;

function run(label, command, args) {
  console.log(`[bench] ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  return result.status === 0;
}

let failed = false;
const started = Date.now();

// The production build first: the figures must describe what ships.
if (!run('production build', process.execPath, ['esbuild.mjs', '--production'])) {
  console.error('[bench] the production build failed; nothing to measure');
  process.exit(1);
}
// tsc still emits when another part of the tree has type errors, so the bench can run on.
if (
  !run('compiling bench, src and test to out/', process.execPath, [
    path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.test.json',
  ])
) {
  console.error('[bench] the compile reported errors (above); measuring with what it emitted');
  failed = true;
}

const report = require(path.join(outBench, 'report.js'));
const rows = [];
const outcomes = [];
for (const section of sections) {
  const file = path.join(outBench, section.module);
  const sectionStart = Date.now();
  if (!existsSync(file)) {
    console.log(`[bench] ${section.name}: not available (out/bench/${section.module} does not exist)`);
    outcomes.push({ section: section.name, ok: false, error: 'not available', durationMs: 0, notes: [] });
    continue;
  }
  console.log(`[bench] ${section.name}…`);
  try {
    const result = await require(file)[section.fn]();
    rows.push(...result.rows);
    const notes = result.notes ?? [];
    outcomes.push({ section: section.name, ok: true, durationMs: Date.now() - sectionStart, notes });
    console.log(`[bench] ${section.name} done in ${((Date.now() - sectionStart) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`[bench] ${section.name} failed: ${message}`);
    outcomes.push({
      section: section.name,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      durationMs: Date.now() - sectionStart,
      notes: [],
    });
  }
}

console.log(`\nGateway AI bench, ${new Date().toISOString()}, Node ${process.version}\n`);
console.log(report.formatTable(rows));
const remarks = outcomes.flatMap((outcome) =>
  outcome.ok
    ? outcome.notes
    : [
        `${outcome.section}: ${outcome.error === 'not available' ? 'figure not available' : `FAILED: ${outcome.error}`}`,
      ],
);
if (remarks.length > 0) console.log(`\n${remarks.map((line) => `- ${line}`).join('\n')}`);
console.log(`\n${report.LEGEND.join('\n')}`);

const resultsFile = path.join(root, 'bench', 'results.json');
report.writeResults(resultsFile, rows, outcomes);
console.log(
  `\nWrote ${path.relative(root, resultsFile)} in ${((Date.now() - started) / 1000).toFixed(0)} s total.`,
);
// Handles left open by a section (keep-alive sockets, timers) must not keep the bench alive.
process.exit(failed ? 1 : 0);
