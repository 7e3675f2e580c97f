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

const DAY_KEY = /^\d{4}-\d{2}-\d{2}$/;

export function isCostSource(value: unknown): value is CostSource {
  return typeof value === 'string' && (COST_SOURCES as readonly string[]).includes(value);
}

/** Whether `cost` is a figure worth recording: finite, positive, not absurd. */
export function isRecordableCost(cost: unknown): cost is number {
  return typeof cost === 'number' && Number.isFinite(cost) && cost > 0 && cost <= MAX_RECORDED_USD;
}

export class CostLedger {
  private readonly days = new Map<string, DayCosts>();

  /** Adds one cost; false (and nothing recorded) for a figure that is not a cost. */
  record(source: CostSource, cost: number, at: number): boolean {
    if (!isCostSource(source) || !isRecordableCost(cost)) return false;
    const key = dayKey(at);
    const day = this.days.get(key) ?? {};
    day[source] = (day[source] ?? 0) + cost;
    this.days.set(key, day);
    return true;
  }

  day(key: string): DayCosts {
    return { ...this.days.get(key) };
  }

  /** The newest day with any cost, or undefined for an empty ledger. */
  newestDay(): string | undefined {
    return [...this.days.keys()].sort().pop();
  }

  /** Drops days older than `KEEP_DAYS` before `now`'s day. */
  prune(now: number): void {
    const oldest = dayKey(now - KEEP_DAYS * 86_400_000);
    for (const key of [...this.days.keys()]) if (key < oldest) this.days.delete(key);
  }

  encode(): string {
    const days: Record<string, DayCosts> = {};
    for (const key of [...this.days.keys()].sort()) days[key] = this.day(key);
    return JSON.stringify({ version: LEDGER_VERSION, days });
  }

  /**
   * A stored ledger. `problem` says what was wrong when the text is not a ledger at all (the
   * caller keeps such a file aside); single odd entries are skipped quietly. Never throws.
   */
  static decode(text: string): { ledger: CostLedger; problem?: string } {
    const ledger = new CostLedger();
    const parsed = tryParseJson(text);
    if (!parsed.ok || !isRecord(parsed.value) || !isRecord(parsed.value.days))
      return { ledger, problem: 'it is not a cost ledger' };
    if (parsed.value.version !== LEDGER_VERSION)
      return { ledger, problem: `its version ${JSON.stringify(parsed.value.version)} is not known` };
    for (const [key, day] of Object.entries(parsed.value.days)) {
      if (!DAY_KEY.test(key) || !isRecord(day)) continue;
      const costs: DayCosts = {};
      for (const source of COST_SOURCES) {
        const cost = day[source];
        if (isRecordableCost(cost)) costs[source] = cost;
      }
      if (Object.keys(costs).length > 0) ledger.days.set(key, costs);
    }
    return { ledger };
  }
}

/** One day summed over several ledgers (every window's), with the total. */
export function sumDay(ledgers: Iterable<CostLedger>, key: string): { total: number; bySource: DayCosts } {
  const bySource: DayCosts = {};
  let total = 0;
  for (const ledger of ledgers) {
    const day = ledger.day(key);
    for (const source of COST_SOURCES) {
      const cost = day[source];
      if (cost === undefined) continue;
      bySource[source] = (bySource[source] ?? 0) + cost;
      total += cost;
    }
  }
  return { total, bySource };
}
