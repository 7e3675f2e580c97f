/**
 * Polls the status of unfinished media jobs and writes the answers into the model. Owns all the
 * timing: the schedule per job, a cap on requests in flight across jobs, backing off when the
 * gateway struggles, and pausing while the window is in the background.
 *
 * One timer serves all jobs: it wakes the poller when the earliest waiting job is due, and the
 * poller then starts as many due checks as the cap allows, the longest-overdue first.
 */

import type { MediaRecord } from '../../api/types';
import { systemClock } from '../util/clock';
import type { Clock, TimerHandle } from '../util/clock';
import type { IDisposable } from '../util/emitter';
import { isFinal, isFinalStatus } from './mediaJob';
import type { MediaJob } from './mediaJob';
import type { MediaJobModel, MediaJobsChange } from './mediaJobModel';
import { classifyPollFailure } from './pollFailure';
import {
  failureDelayMs,
  MAX_POLL_AGE_MS,
  maxIntervalDelayMs,
  normalizeMaxInterval,
  pollDelayMs,
  retryAfterDelayMs,
} from './pollSchedule';
import type { PollScheduleOptions } from './pollSchedule';

export const DEFAULT_MAX_CONCURRENT = 4;
export const CLOSE_TO_DONE_AGE_MS = 60_000;
/** Why a job that never ended within MAX_POLL_AGE_MS is no longer asked for. */
export const GAVE_UP = 'Still not finished a day after it started; no longer asked for.';

/**
 * Whether a job is still polled while the window is unfocused. Polling in the background only
 * pays off when the user is likely waiting for that result to pop up as a notification:
 *  - a job the gateway reports as 'processing' is being generated right now, and
 *  - a job younger than a minute is one the user just started (most images take seconds).
 * A 'queued' job that is older may wait a long time; it is checked again once the window is
 * focused.
 */
export function isCloseToDone(job: MediaJob, now: number): boolean {
  return job.status === 'processing' || now - job.createdAt < CLOSE_TO_DONE_AGE_MS;
}

export interface MediaJobPollerOptions {
  model: MediaJobModel;
  /** `GET /v1/media/{id}`; must reject promptly once `signal` aborts. */
  getStatus: (id: string, signal: AbortSignal) => Promise<MediaRecord>;
  clock?: Clock;
  /** Status requests in flight at once, across all jobs. */
  maxConcurrent?: number;
  /** Longest wait between two checks of a job. */
  maxIntervalMs?: number;
  /** A source of numbers in [0, 1) for the jitter; Math.random by default. */
  random?: () => number;
  /** Every failed check, for the log. */
  onError?: (id: string, error: unknown) => void;
}

interface PollState {
  /** When the next check is due, epoch ms. */
  dueAt: number;
  /** Consecutive failed checks, for the backoff. */
  failures: number;
  /** The key was rejected: not polled again until `pollNow` or `resume`. */
  held: boolean;
  /** Asked for by `pollNow`: checked even while the window is unfocused. */
  manual: boolean;
  /** Set while a check is in flight, so one job never has two. */
  request?: AbortController;
}

type CheckResult = { ok: true; record: MediaRecord } | { ok: false; error: unknown };

export class MediaJobPoller implements IDisposable {
  private readonly model: MediaJobModel;
  private readonly getStatus: MediaJobPollerOptions['getStatus'];
  private readonly clock: Clock;
  private readonly maxConcurrent: number;
  private readonly schedule: PollScheduleOptions;
  private readonly onError: MediaJobPollerOptions['onError'];

  private readonly states = new Map<string, PollState>();
  private readonly modelSubscription: IDisposable;
  private wake: { at: number; timer: TimerHandle } | undefined;
  private focused = true;
  /** After a 429 with Retry-After no job is checked before this: the limit is per key, not per job. */
  private rateLimitedUntil = 0;
  private disposed = false;

  private inFlightCount = 0;
  private peakInFlightCount = 0;
  private requestTotal = 0;

  constructor(options: MediaJobPollerOptions) {
    this.model = options.model;
    this.getStatus = options.getStatus;
    this.clock = options.clock ?? systemClock;
    const cap = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
    this.maxConcurrent = Number.isFinite(cap) ? Math.max(1, Math.floor(cap)) : DEFAULT_MAX_CONCURRENT;
    this.schedule = {
      maxIntervalMs: normalizeMaxInterval(options.maxIntervalMs),
      random: options.random ?? Math.random,
    };
    this.onError = options.onError;
    this.modelSubscription = this.model.onDidChange((change) => this.onModelChange(change));
  }

  /** Status requests in flight now. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  get peakInFlight(): number {
    return this.peakInFlightCount;
  }

  /** Status requests started since construction. */
  get requestCount(): number {
    return this.requestTotal;
  }

  /** True while the job is scheduled or being checked; false once final, removed or held. */
  isPolling(id: string): boolean {
    const state = this.states.get(id);
    return state !== undefined && !state.held;
  }

  /** Starts polling a newly added job: the first check comes about a second after its creation. */
  track(id: string): void {
    if (this.startTracking(id)) this.pump();
  }

  /**
   * Polls every unfinished job of the model, e.g. after a reload or a new API key. Each continues
   * where its schedule stood, so one last checked long ago is checked at once; jobs held because
   * the key was rejected are tried again.
   */
  resume(): void {
    for (const job of this.model.running()) {
      const state = this.states.get(job.id);
      if (!state) this.startTracking(job.id);
      else if (state.held) {
        state.held = false;
        state.dueAt = this.clock.now();
      }
    }
    this.pump();
  }

  /** Checks one job, or every unfinished one, as soon as the cap allows: a manual refresh. */
  pollNow(id?: string): void {
    const jobs = id === undefined ? this.model.running() : [this.model.get(id)];
    const now = this.clock.now();
    for (const job of jobs) {
      if (!job || isFinal(job)) continue;
      this.startTracking(job.id);
      const state = this.states.get(job.id);
      // A check already under way answers the refresh.
      if (!state || state.request) continue;
      state.held = false;
      state.manual = true;
      state.dueAt = now;
    }
    this.pump();
  }

  /** While unfocused only jobs that are close to done are polled (see `isCloseToDone`). */
  setFocused(focused: boolean): void {
    if (this.focused === focused) return;
    this.focused = focused;
    this.pump();
  }

  /** Cancels the timer and aborts every check in flight. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.modelSubscription.dispose();
    if (this.wake) this.clock.clearTimeout(this.wake.timer);
    this.wake = undefined;
    for (const state of this.states.values()) state.request?.abort();
    this.states.clear();
  }

  private startTracking(id: string): boolean {
    if (this.disposed || this.states.has(id)) return false;
    const job = this.model.get(id);
    if (!job || isFinal(job)) return false;
    const now = this.clock.now();
    const delay = pollDelayMs(job.pollCount, this.schedule);
    const since = job.lastCheckedAt ?? job.createdAt;
    // min(): a clock that went backwards since the last check must not push the next one far out.
    this.states.set(id, {
      dueAt: Math.min(since + delay, now + delay),
      failures: 0,
      held: false,
      manual: false,
    });
    return true;
  }

  /** Starts every due check the cap allows, then sets the timer for the next one. */
  private pump(): void {
    if (this.disposed) return;
    const now = this.clock.now();
    while (this.inFlightCount < this.maxConcurrent && now >= this.rateLimitedUntil) {
      const id = this.mostOverdue(now);
      if (id === undefined) break;
      this.startCheck(id, this.states.get(id)!);
    }
    this.setWakeTimer(now);
  }

  private mostOverdue(now: number): string | undefined {
    let best: { id: string; dueAt: number; createdAt: number } | undefined;
    for (const [id, state] of this.states) {
      if (state.dueAt > now || !this.isWaiting(id, state, now)) continue;
      const createdAt = this.model.get(id)?.createdAt ?? 0;
      // Oldest due first; on a tie, the older job.
      if (!best || state.dueAt < best.dueAt || (state.dueAt === best.dueAt && createdAt < best.createdAt)) {
        best = { id, dueAt: state.dueAt, createdAt };
      }
    }
    return best?.id;
  }

  /** Not in flight, not held, and allowed by the focus rule. */
  private isWaiting(id: string, state: PollState, now: number): boolean {
    if (state.request || state.held) return false;
    if (this.focused || state.manual) return true;
    const job = this.model.get(id);
    return job !== undefined && isCloseToDone(job, now);
  }

  private setWakeTimer(now: number): void {
    let at: number | undefined;
    // At the cap, the next answer pumps; no timer needed.
    if (this.inFlightCount < this.maxConcurrent) {
      for (const [id, state] of this.states) {
        if (!this.isWaiting(id, state, now)) continue;
        const due = Math.max(state.dueAt, this.rateLimitedUntil);
        if (at === undefined || due < at) at = due;
      }
    }
    if (this.wake?.at === at) return;
    if (this.wake) this.clock.clearTimeout(this.wake.timer);
    this.wake = undefined;
    if (at === undefined) return;
    const timer = this.clock.setTimeout(
      () => {
        this.wake = undefined;
        this.pump();
      },
      Math.max(0, at - now),
    );
    this.wake = { at, timer };
  }

  private startCheck(id: string, state: PollState): void {
    const job = this.model.get(id);
    if (job && this.clock.now() - job.createdAt >= MAX_POLL_AGE_MS) {
      this.states.delete(id);
      this.model.markUnknown(id, GAVE_UP);
      return;
    }
    const request = new AbortController();
    state.request = request;
    state.manual = false;
    this.inFlightCount++;
    this.peakInFlightCount = Math.max(this.peakInFlightCount, this.inFlightCount);
    this.requestTotal++;
    void this.runCheck(id, state, request);
  }

  private async runCheck(id: string, state: PollState, request: AbortController): Promise<void> {
    let result: CheckResult;
    try {
      result = { ok: true, record: await this.getStatus(id, request.signal) };
    } catch (error) {
      result = { ok: false, error };
    }
    this.inFlightCount--;
    if (state.request === request) state.request = undefined;

    // Removed, finished elsewhere or disposed meanwhile: the answer no longer matters.
    const stillWanted = !this.disposed && !request.signal.aborted && this.states.get(id) === state;
    if (stillWanted) {
      try {
        if (result.ok) this.onAnswer(id, state, result.record);
        else this.onCheckFailed(id, state, result.error);
      } catch (error) {
        // A model listener threw; the job's next check is already scheduled.
        this.report(id, error);
      }
    }
    this.pump();
  }

  // In both handlers the poll state is settled before the model changes, because the model's
  // change event re-enters the poller.

  private onAnswer(id: string, state: PollState, record: MediaRecord): void {
    state.failures = 0;
    // No status, or one we do not know: still in progress, checked again on the growing schedule.
    if (record.status !== undefined && isFinalStatus(record.status)) this.states.delete(id);
    else state.dueAt = this.clock.now() + pollDelayMs(this.nextCheckIndex(id), this.schedule);
    this.model.applyRecord(id, record);
  }

  private onCheckFailed(id: string, state: PollState, error: unknown): void {
    this.report(id, error);
    const failure = classifyPollFailure(error);
    const checkIndex = this.nextCheckIndex(id);
    switch (failure.kind) {
      case 'notFound':
        this.states.delete(id);
        this.model.markUnknown(id);
        return;
      case 'needsUser':
        // Every further request with this key would fail the same way.
        state.held = true;
        this.model.recordProblem(id, failure.problem);
        return;
      case 'rateLimited': {
        state.failures++;
        if (failure.retryAfterSeconds === undefined) {
          this.retryLater(
            id,
            state,
            failure.label,
            failureDelayMs(state.failures, checkIndex, this.schedule),
          );
          return;
        }
        const asked = retryAfterDelayMs(failure.retryAfterSeconds, () => 0);
        this.rateLimitedUntil = Math.max(this.rateLimitedUntil, this.clock.now() + asked);
        this.retryLater(
          id,
          state,
          failure.label,
          retryAfterDelayMs(failure.retryAfterSeconds, this.schedule.random),
        );
        return;
      }
      case 'transient':
        state.failures++;
        this.retryLater(id, state, failure.label, failureDelayMs(state.failures, checkIndex, this.schedule));
        return;
      case 'refused':
        state.failures++;
        this.retryLater(id, state, failure.label, maxIntervalDelayMs(this.schedule));
        return;
    }
  }

  private retryLater(id: string, state: PollState, label: string, delayMs: number): void {
    state.dueAt = this.clock.now() + delayMs;
    const seconds = Math.max(1, Math.round(delayMs / 1000));
    this.model.recordProblem(id, `${label}, retrying in ${seconds} s`);
  }

  /** The check that just ended was number pollCount; the next one is pollCount + 1. */
  private nextCheckIndex(id: string): number {
    return (this.model.get(id)?.pollCount ?? 0) + 1;
  }

  private onModelChange(change: MediaJobsChange): void {
    for (const id of change.changed) {
      const state = this.states.get(id);
      if (!state) continue;
      const job = this.model.get(id);
      if (job && !isFinal(job)) continue;
      // Removed, or made final by someone else: stop, and cancel a check under way.
      this.states.delete(id);
      state.request?.abort();
    }
    // A status change may also make a parked job close to done.
    this.pump();
  }

  private report(id: string, error: unknown): void {
    try {
      this.onError?.(id, error);
    } catch {
      // Logging must not break polling.
    }
  }
}
