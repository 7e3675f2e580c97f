import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** What each test tier reports to the aggregate runner (scripts/test.mjs). */
export interface TierResult {
  tier: string;
  passed: number;
  failed: number;
  pending: number;
  failures: string[];
  /** e.g. "VS Code 1.100.3" for the tiers that run inside one. */
  host?: string;
  durationMs: number;
}

/** Writes the tier's result where the aggregate runner asked for it (GATEWAY_TIER_RESULT). */
export function reportTier(result: TierResult): void {
  const file = process.env.GATEWAY_TIER_RESULT;
  if (!file) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(result, null, 2));
}

/** Collects pass/fail/pending counts from a mocha runner. */
export function countMochaRun(runner: Mocha.Runner): {
  passed: number;
  failed: number;
  pending: number;
  failures: string[];
} {
  const counts = { passed: 0, failed: 0, pending: 0, failures: [] as string[] };
  runner.on('pass', () => counts.passed++);
  runner.on('pending', () => counts.pending++);
  runner.on('fail', (test, error: Error) => {
    counts.failed++;
    counts.failures.push(`${test.fullTitle()}: ${error?.message ?? error}`);
  });
  return counts;
}

/** Every `*.test.js` below `dir`, sorted, so a tier's files always run in the same order. */
export function findTests(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...findTests(full));
    else if (name.endsWith('.test.js')) found.push(full);
  }
  return found.sort();
}
