/**
 * Money set aside for paid tool calls (media jobs) from before they start until their cost is
 * known, so the spend caps count a call the moment it is sent rather than when its job ends.
 * Pure; the host keeps one per window beside its cost ledger, and the caps read today's held total
 * next to the ledger's.
 *
 * How a hold ends (the first end counts; later ones are ignored):
 * - `reported`: the job reported its cost. The hold is let go: the job's own record in the ledger
 *   (source `media`) counts the real figure from then on, in place of the estimate.
 * - `unreported`: the job was sent but no cost came back (it ended without one, failed without
 *   one, was removed, or was never seen to end). We cannot know it was free, so the estimate is
 *   kept for the rest of the day (in this window's memory) and counts against the daily cap.
 * - `notSent`: nothing reached the gateway (refused before it started): the hold is let go.
 */
import { dayKey, isRecordableCost } from './costLedger';

export type HoldEnd = { kind: 'reported'; cost: number } | { kind: 'unreported' } | { kind: 'notSent' };

export interface SpendHold {
  /** The estimate set aside (USD); 0 when the call had no known price. */
  readonly amount: number;
  /** How it ended; undefined while open. */
  readonly end: HoldEnd | undefined;
  /** What counts for the call now: the estimate while open, then as its end says. */
  readonly counted: number;
  /** Ends the hold; only the first call counts. */
  settle(end: HoldEnd): void;
}

export class SpendHolds {
  private readonly open = new Map<number, { amount: number; day: string }>();
  private readonly kept = new Map<string, number>();
  private next = 1;

  /** Sets `amount` aside (a figure that is not a cost is held as 0) on the day of `at`. */
  hold(amount: number | undefined, at: number): SpendHold {
    const id = this.next++;
    const held = isRecordableCost(amount) ? amount : 0;
    const day = dayKey(at);
    this.open.set(id, { amount: held, day });
    let ended: HoldEnd | undefined;
    return {
      amount: held,
      get end() {
        return ended;
      },
      get counted() {
        if (!ended) return held;
        // A reported 0 beside a priced estimate is no cost at all (LiteLLM reports 0 for a model it
        // has no price for): the estimate stands.
        if (ended.kind === 'reported')
          return Number.isFinite(ended.cost) && ended.cost > 0 ? ended.cost : held;
        return ended.kind === 'unreported' ? held : 0;
      },
      settle: (end) => {
        if (ended) return;
        ended = end;
        this.open.delete(id);
        const none = end.kind === 'unreported' || (end.kind === 'reported' && !(end.cost > 0));
        if (none && held > 0) this.kept.set(day, (this.kept.get(day) ?? 0) + held);
      },
    };
  }

  /** What is held on `day`: open holds and estimates kept for calls whose cost never came. */
  total(day: string): number {
    let sum = this.kept.get(day) ?? 0;
    for (const hold of this.open.values()) if (hold.day === day) sum += hold.amount;
    return sum;
  }

  /** How many holds are still open (tests, and the log). */
  get openCount(): number {
    return this.open.size;
  }
}
