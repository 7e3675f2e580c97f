/**
 * What the gateway cost, by local day and by where it was spent: the chat panel, VS Code's chat,
 * inline completions and media jobs. One ledger per window, each stored in a file of its own, so
 * windows never write over each other; "today" is the sum over every window's file. Pure: the
 * host reads and writes the files (src/host/cost/costTracker.ts), and the stored text is parsed
 * here, tolerant of anything.
 */
import { isRecord, tryParseJson } from '../../api/json';

export const COST_SOURCES = ['panel', 'vscodeChat', 'completions', 'media'] as const;
export type CostSource = (typeof COST_SOURCES)[number];

/** USD per source on one day; a source that spent nothing is absent. */
export type DayCosts = Partial<Record<CostSource, number>>;

/** Days kept in a window's file; older ones are dropped when it is written. */
export const KEEP_DAYS = 7;
/** More than this on one reply or job is not a cost but a broken figure. */
export const MAX_RECORDED_USD = 1e6;
const LEDGER_VERSION = 1;

/** `YYYY-MM-DD` of the local day `time` falls in. */
export function dayKey(time: number): string {
  const date = new Date(time);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Whether `key` is `YYYY-MM-DD` naming a real day (`2026-13-99` is not one). */
export function isDayKey(key: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!match) return false;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const day = new Date(Date.UTC(year, month - 1, date));
  return day.getUTCFullYear() === year && day.getUTCMonth() === month - 1 && day.getUTCDate() === date;
}

export function isCostSource(value: unknown): value is CostSource {
  return typeof value === 'string' && (COST_SOURCES as readonly string[]).includes(value);
}

/** Whether `cost` is a figure worth recording: finite, positive, not absurd. */
export function isRecordableCost(cost: unknown): cost is number {
  return typeof cost === 'number' && Number.isFinite(cost) && cost > 0 && cost <= MAX_RECORDED_USD;
}

export class CostLedger {
  private readonly days = new Map<string, DayCosts>();
  /**
   * USD of each day's figures that are estimates (tokens × the catalog's price, where the gateway
   * reported no cost): counted in the day's figures, as the caps need, and said apart. Stored
   * beside `days`, so a version that does not know it still reads the totals.
   */
  private readonly estimates = new Map<string, number>();

  /**
   * Adds one cost (`estimated`: tokens × price, the gateway reported none); false (and nothing
   * recorded) for a figure that is not a cost.
   */
  record(source: CostSource, cost: number, at: number, estimated = false): boolean {
    if (!isCostSource(source) || !isRecordableCost(cost)) return false;
    const key = dayKey(at);
    const day = this.days.get(key) ?? {};
    day[source] = (day[source] ?? 0) + cost;
    this.days.set(key, day);
    if (estimated) this.estimates.set(key, (this.estimates.get(key) ?? 0) + cost);
    return true;
  }

  day(key: string): DayCosts {
    return { ...this.days.get(key) };
  }

  /** USD of the day's figures that are estimated (0: none). */
  estimatedOn(key: string): number {
    return this.estimates.get(key) ?? 0;
  }

  /** The newest day with any cost, or undefined for an empty ledger. */
  newestDay(): string | undefined {
    return [...this.days.keys()].sort().pop();
  }

  /** Drops days older than `KEEP_DAYS` before `now`'s day. */
  prune(now: number): void {
    const oldest = dayKey(now - KEEP_DAYS * 86_400_000);
    for (const key of [...this.days.keys()]) if (key < oldest) this.days.delete(key);
    for (const key of [...this.estimates.keys()]) if (!this.days.has(key)) this.estimates.delete(key);
  }

  encode(): string {
    const days: Record<string, DayCosts> = {};
    for (const key of [...this.days.keys()].sort()) days[key] = this.day(key);
    const estimated = Object.fromEntries([...this.estimates.entries()].sort());
    return JSON.stringify({
      version: LEDGER_VERSION,
      days,
      ...(this.estimates.size ? { estimated } : {}),
    });
  }

  /**
   * A stored ledger. `problem` says what was wrong when the text is not a ledger at all, or has
   * days of which none could be read (the caller keeps such a file aside); single odd entries are
   * skipped quietly. `newer` marks a ledger of a later version (a window already updated): not
   * ours to read, nor to move. Never throws.
   */
  static decode(text: string): { ledger: CostLedger; problem?: string; newer?: true } {
    const ledger = new CostLedger();
    const parsed = tryParseJson(text);
    if (!parsed.ok || !isRecord(parsed.value)) return { ledger, problem: 'it is not a cost ledger' };
    const version = parsed.value.version;
    if (typeof version === 'number' && Number.isSafeInteger(version) && version > LEDGER_VERSION)
      return { ledger, newer: true };
    if (!isRecord(parsed.value.days)) return { ledger, problem: 'it is not a cost ledger' };
    if (version !== LEDGER_VERSION)
      return { ledger, problem: `its version ${JSON.stringify(version)} is not known` };
    const entries = Object.entries(parsed.value.days);
    for (const [key, day] of entries) {
      if (!isDayKey(key) || !isRecord(day)) continue;
      const costs: DayCosts = {};
      for (const source of COST_SOURCES) {
        const cost = day[source];
        if (isRecordableCost(cost)) costs[source] = cost;
      }
      if (Object.keys(costs).length > 0) ledger.days.set(key, costs);
    }
    if (entries.length > 0 && ledger.days.size === 0)
      return { ledger, problem: 'none of its days could be read' };
    // The estimated part of a day, where one was written: never more than the day's total.
    const estimated = isRecord(parsed.value.estimated) ? parsed.value.estimated : {};
    for (const [key, day] of ledger.days) {
      const part = estimated[key];
      const total = COST_SOURCES.reduce((sum, source) => sum + (day[source] ?? 0), 0);
      if (isRecordableCost(part)) ledger.estimates.set(key, Math.min(part, total));
    }
    return { ledger };
  }
}

/** What to do with another window's ledger file. */
export type LedgerFile =
  /** Read it into today's total. */
  | { kind: 'current'; ledger: CostLedger }
  /** A window long closed: every day it has is past `KEEP_DAYS`, the file can go. */
  | { kind: 'stale' }
  /** Written by a newer version of the extension: leave it be, and out of the total. */
  | { kind: 'newer' }
  /** Not a ledger we can read: keep it aside, never delete it. */
  | { kind: 'unreadable'; problem: string };

export function readLedgerFile(text: string, now: number): LedgerFile {
  const { ledger, problem, newer } = CostLedger.decode(text);
  if (newer) return { kind: 'newer' };
  if (problem !== undefined) return { kind: 'unreadable', problem };
  const newest = ledger.newestDay();
  return newest === undefined || newest < dayKey(now - KEEP_DAYS * 86_400_000)
    ? { kind: 'stale' }
    : { kind: 'current', ledger };
}

/** One day summed over several ledgers (every window's), with the total and its estimated part. */
export function sumDay(
  ledgers: Iterable<CostLedger>,
  key: string,
): { total: number; bySource: DayCosts; estimated: number } {
  const bySource: DayCosts = {};
  let total = 0;
  let estimated = 0;
  for (const ledger of ledgers) {
    estimated += ledger.estimatedOn(key);
    const day = ledger.day(key);
    for (const source of COST_SOURCES) {
      const cost = day[source];
      if (cost === undefined) continue;
      bySource[source] = (bySource[source] ?? 0) + cost;
      total += cost;
    }
  }
  return { total, bySource, estimated };
}
