import { writeFileSync, mkdirSync } from 'node:fs';
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
export function countMochaRun(runner: Mocha.Runner): { passed: number; failed: number; pending: number; failures: string[] } {
  const counts = { passed: 0, failed: 0, pending: 0, failures: [] as string[] };
  runner.on('pass', () => counts.passed++);
  runner.on('pending', () => counts.pending++);
  runner.on('fail', (test, error: Error) => {
    counts.failed++;
    counts.failures.push(`${test.fullTitle()}: ${error?.message ?? error}`);
  });
  return counts;
}
