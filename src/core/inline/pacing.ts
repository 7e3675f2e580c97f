/**
 * When inline completions may ask the gateway: an adaptive debounce (from the user's typing rhythm
 * and the gateway's measured latency), a backoff after 429, 5xx and connection failures, and a
 * pause after 401, 402 and 403 that lasts until something changes (the key, the settings, the
 * user's resume), announced once, not once per keystroke.
 */
import { GatewayError } from '../../api/errors';
import { Emitter } from '../util/emitter';

export interface DebounceLimits {
  minMs: number;
  maxMs: number;
}

/** Peers wait a fixed 250-350 ms; we start lower and adapt (VS Code itself waits 50 ms first). */
export const DEFAULT_DEBOUNCE: DebounceLimits = { minMs: 120, maxMs: 600 };
/** Keystrokes further apart than this are a new burst, not the rhythm. */
const BURST_GAP_MS = 1_000;
const SMOOTHING = 0.3;

export class AdaptiveDebounce {
  private keyGap: number | undefined;
  private latency: number | undefined;
  private lastKeyAt: number | undefined;

  constructor(private readonly limits: DebounceLimits = DEFAULT_DEBOUNCE) {}

  /** A change in the editor at `now`. */
  keystroke(now: number): void {
    if (this.lastKeyAt !== undefined) {
      const gap = now - this.lastKeyAt;
      if (gap > 0 && gap < BURST_GAP_MS) this.keyGap = smooth(this.keyGap, gap);
    }
    this.lastKeyAt = now;
  }

  /** The time from a request to its last byte. */
  recordLatency(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.latency = smooth(this.latency, ms);
  }

  /**
   * Long enough that a steady typist's next key comes first (1.5 × their rhythm, up to 400 ms),
   * and that a slow model is not asked for what the next key will make stale (half its latency).
   */
  get delayMs(): number {
    const rhythm = this.keyGap === undefined ? 0 : Math.min(400, this.keyGap * 1.5);
    const model = this.latency === undefined ? 0 : this.latency / 2;
    return Math.round(Math.min(this.limits.maxMs, Math.max(this.limits.minMs, rhythm, model)));
  }

  get measuredLatencyMs(): number | undefined {
    return this.latency;
  }
}

function smooth(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}

export type PauseReason = 'key' | 'credits' | 'forbidden' | 'config';

export interface Pause {
  reason: PauseReason;
  /** What to tell the user, once (the gateway's words, already without the key). */
  message: string;
}

const BACKOFF_FLOOR_MS = 250;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Whether a request may go now; what failures do to that. */
export class RequestGate {
  private pause: Pause | undefined;
  private blockedUntil = 0;
  private failures = 0;
  private readonly paused = new Emitter<Pause | undefined>();
  /** Fires when completions pause (with why) and when they resume (undefined). */
  readonly onDidChangePause = this.paused.event;

  constructor(private readonly random: () => number = Math.random) {}

  get currentPause(): Pause | undefined {
    return this.pause;
  }

  /** Undefined when a request may go at `now`; otherwise why not. */
  blocked(now: number): 'paused' | 'backoff' | undefined {
    if (this.pause) return 'paused';
    return now < this.blockedUntil ? 'backoff' : undefined;
  }

  /** Milliseconds of backoff left at `now`. */
  backoffLeft(now: number): number {
    return Math.max(0, this.blockedUntil - now);
  }

  succeeded(): void {
    this.failures = 0;
    this.blockedUntil = 0;
  }

  /** Classifies a failed request. Cancellation is not a failure. */
  failed(error: unknown, now: number): void {
    const gatewayError = GatewayError.is(error) ? error : undefined;
    if (gatewayError?.kind === 'aborted') return;
    const status = gatewayError?.kind === 'http' ? gatewayError.status : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (status === 401) return this.pauseFor({ reason: 'key', message });
    if (status === 402) return this.pauseFor({ reason: 'credits', message });
    if (status === 403) return this.pauseFor({ reason: 'forbidden', message });
    if (gatewayError?.kind === 'config') return this.pauseFor({ reason: 'config', message });
    // 429, 5xx, connection failures, odd answers: back off, doubling, at least 250 ms plus jitter.
    const retryAfterMs =
      status === 429 && gatewayError?.retryAfter !== undefined
        ? Math.min(MAX_RETRY_AFTER_MS, gatewayError.retryAfter * 1000)
        : 0;
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** this.failures);
    const jittered = Math.max(BACKOFF_FLOOR_MS, Math.floor(ceiling * (0.75 + 0.25 * this.random())));
    this.failures = Math.min(this.failures + 1, 16);
    this.blockedUntil = now + Math.max(retryAfterMs, jittered);
  }

  /** Lifts a pause and any backoff (a new key, changed settings, the user's word). */
  resume(): void {
    const wasPaused = this.pause !== undefined;
    this.pause = undefined;
    this.succeeded();
    if (wasPaused) this.paused.fire(undefined);
  }

  private pauseFor(pause: Pause): void {
    if (this.pause) return;
    this.pause = pause;
    this.paused.fire(pause);
  }
}
