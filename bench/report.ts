/**
 * The shape every bench section returns, and the one table they are printed in. Sections stay
 * independent of each other; only this file knows how a row is shown and saved.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  /** Who we compare against, e.g. "undici alone, plain Node". */
  peer?: string;
  /** What we aim for, e.g. "< 400 KB". */
  goal?: string;
  /** value ÷ the peer's or the goal's figure. */
  ratio?: number;
  /** Whether the goal is met, when a row has one; shown as ✓ or ✗. */
  met?: boolean;
}

export interface SectionResult {
  rows: BenchRow[];
  /** Remarks printed under the table, e.g. what limited a figure. */
  notes?: string[];
}

export interface SectionOutcome {
  section: string;
  ok: boolean;
  error?: string;
  durationMs: number;
  notes: string[];
}

export const KB = 1024;
export const MB = 1024 * KB;

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Rounds for display and for the JSON file: measured noise is not worth more digits. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function formatValue(row: BenchRow): string {
  // Counts stay whole; measured values get about three significant digits.
  const digits =
    Number.isInteger(row.value) || Math.abs(row.value) >= 100 ? 0 : Math.abs(row.value) >= 10 ? 1 : 2;
  return `${row.value.toFixed(digits)} ${row.unit}`;
}

function formatRatio(row: BenchRow): string {
  if (row.ratio === undefined || !Number.isFinite(row.ratio)) return '';
  const mark = row.met === undefined ? '' : row.met ? ' ✓' : ' ✗';
  return `${row.ratio.toFixed(row.ratio >= 10 ? 1 : 2)}×${mark}`;
}

function formatAgainst(row: BenchRow): string {
  const parts: string[] = [];
  if (row.goal) parts.push(`goal ${row.goal}`);
  if (row.peer) parts.push(`peer: ${row.peer}`);
  return parts.join('; ');
}

export function formatTable(rows: BenchRow[]): string {
  const header = ['figure', 'value', 'peer / goal', 'ratio'];
  const cells = rows.map((row) => [row.name, formatValue(row), formatAgainst(row), formatRatio(row)]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column].length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, column) => (column === 1 ? value.padStart(widths[column]) : value.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.map(line)].join('\n');
}

export const LEGEND = [
  'How to read: "ratio" is our value divided by the peer\'s or the goal\'s figure. For sizes and',
  'times below 1× is better (smaller, faster); for throughput (MB/s) above 1× is better. ✓/✗ says',
  "whether the row's goal is met. For media polling the ratio is the status requests made divided by",
  'the fewest the poll schedule allows for the same jobs (1× = no request wasted). KB and MB are',
  '1024-based; times are medians of several runs where the notes say so. A peer figure marked',
  '"stated" is a published number, not measured here; every other peer is measured in the same run.',
];

export function writeResults(file: string, rows: BenchRow[], sections: SectionOutcome[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const results = {
    timestamp: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    sections,
    rows,
  };
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
