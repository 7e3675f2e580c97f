/**
 * The inline-completion loop without VS Code: for one cursor, answer from the prefix cache or, once
 * the adaptive debounce has passed without a newer keystroke and the gate allows, ask the gateway
 * (FIM or chat), stream the answer, clean it and cache it. A newer call or the caller's signal
 * aborts the request in flight, which closes its connection. The host's provider is a thin
 * adapter over this class, and the benchmark drives it directly against the simulator.
 */
import type { GatewayClient } from '../../api/client';
import type { ChatDelta } from '../../api/types';
import { systemClock } from '../util/clock';
import type { Clock } from '../util/clock';
import { Emitter } from '../util/emitter';
import { PrefixCache } from './cache';
import { cleanCompletion, unitComplete } from './clean';
import { buildContext, DEFAULT_BUDGET } from './context';
import type { ContextBudget, CursorPosition, TextLines } from './context';
import { AdaptiveDebounce, DEFAULT_DEBOUNCE, RequestGate } from './pacing';
import type { DebounceLimits } from './pacing';
import { chatRequest, fimRequest } from './requests';
import type { InlineMode } from './modelChoice';

/** More raw text than this is never read: the suggestion is cut long before it. */
export const MAX_RAW_TEXT = 2_000;
/** A request that has not finished by then is aborted. */
export const REQUEST_DEADLINE_MS = 10_000;

export type InlineClient = Pick<GatewayClient, 'streamChat' | 'streamCompletion'>;

export interface InlineDocument {
  /** The document's identity (its URI). */
  key: string;
  lines: TextLines;
  position: CursorPosition;
  /** Workspace-relative, `/` separators; '' for an untitled file. */
  path: string;
  languageId: string;
}

export interface InlineTarget {
  model: string;
  mode: InlineMode;
}

export interface InlineSuggestion {
  text: string;
  /** From the prefix cache: nothing was sent. */
  cached: boolean;
  model?: string;
  mode?: InlineMode;
}

export interface Spend {
  model: string;
  /** What the gateway said the request cost (`usage.cost`), when it said. */
  cost: number | undefined;
}

export interface InlineEngineDeps {
  client: () => InlineClient;
  /** The model and the way to ask, resolved per request (undefined: no model, nothing is sent). */
  target: () => InlineTarget | undefined | Promise<InlineTarget | undefined>;
  clock?: Clock;
  /** A fine clock for the host's own time (performance.now). */
  hrNow?: () => number;
  random?: () => number;
  budget?: ContextBudget;
  debounce?: DebounceLimits;
}

/** Where the host's own time went in the last request that returned a suggestion. */
export interface InlineTimings {
  /** hrNow() when the reply's last piece arrived. */
  lastByteAt: number;
  /** hrNow() when the cleaned suggestion was returned. */
  returnedAt: number;
}

export class InlineEngine {
  readonly cache = new PrefixCache();
  readonly debounce: AdaptiveDebounce;
  readonly gate: RequestGate;
  readonly stats = { requests: 0, cancelled: 0, failed: 0, served: 0 };
  lastTimings: InlineTimings | undefined;
  private inFlight: AbortController | undefined;
  /** Requests running (an aborted older one may still be ending while a newer one runs). */
  private running = 0;
  /** Bumped by cancel(): a call still waiting out its debounce then sends nothing. */
  private generation = 0;
  private readonly busy = new Emitter<boolean>();
  private readonly spent = new Emitter<Spend>();
  /** True while a request to the gateway runs, false after it. */
  readonly onDidChangeBusy = this.busy.event;
  /** Each request's cost, as the gateway reported it. */
  readonly onDidSpend = this.spent.event;
  private readonly clock: Clock;
  private readonly hrNow: () => number;

  constructor(private readonly deps: InlineEngineDeps) {
    this.clock = deps.clock ?? systemClock;
    this.hrNow = deps.hrNow ?? (() => performance.now());
    this.debounce = new AdaptiveDebounce(deps.debounce ?? DEFAULT_DEBOUNCE);
    this.gate = new RequestGate(deps.random);
  }

  /**
   * A suggestion at the document's cursor, or undefined (cancelled, blocked, nothing worth
   * showing). Never throws: failures go to the gate.
   */
  async complete(doc: InlineDocument, signal: AbortSignal): Promise<InlineSuggestion | undefined> {
    this.debounce.keystroke(this.clock.now());
    const context = buildContext(doc.lines, doc.position, doc, this.deps.budget ?? DEFAULT_BUDGET);
    const cached = this.cache.lookup(doc.key, context.prefix, context.suffix);
    if (cached !== undefined) return { text: cached, cached: true };
    if (this.gate.blocked(this.clock.now())) return undefined;
    const generation = this.generation;
    if (!(await this.wait(this.debounce.delayMs, signal))) return undefined;
    // Turned off, snoozed or paused while this call waited: nothing is sent.
    if (this.gate.blocked(this.clock.now()) || generation !== this.generation) return undefined;
    const target = await this.deps.target();
    if (!target || signal.aborted || generation !== this.generation) return undefined;

    this.inFlight?.abort();
    const request = new AbortController();
    this.inFlight = request;
    const onAbort = (): void => request.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const ask =
      target.mode === 'fim' ? fimRequest(target.model, context) : chatRequest(target.model, context);
    const started = this.clock.now();
    this.stats.requests++;
    if (this.running++ === 0) this.busy.fire(true);
    let raw = '';
    let cost: number | undefined;
    let lastByteAt = 0;
    let overflow = false;
    const deadline = this.clock.setTimeout(() => request.abort(), REQUEST_DEADLINE_MS);
    try {
      const client = this.deps.client();
      const options = { signal: request.signal, maxRetries: 0 };
      const stream: AsyncIterable<ChatDelta> =
        ask.mode === 'fim'
          ? client.streamCompletion(ask.body, options)
          : client.streamChat(ask.body, options);
      for await (const delta of stream) {
        if (delta.type === 'usage') cost = delta.usage.cost;
        if (delta.type !== 'content') continue;
        raw += delta.text;
        // Enough read: the unit is whole, or the reply is past any suggestion's length. Leaving
        // the loop ends the stream; the abort below closes its connection.
        if (raw.length >= MAX_RAW_TEXT) {
          overflow = true;
          break;
        }
        if (delta.text.includes('\n') && unitComplete({ ...context, text: raw, from: target.mode })) break;
      }
      lastByteAt = this.hrNow();
      request.abort();
      this.gate.succeeded();
      this.debounce.recordLatency(this.clock.now() - started);
      this.spent.fire({ model: target.model, cost });
    } catch (error) {
      if (request.signal.aborted) this.stats.cancelled++;
      else {
        this.stats.failed++;
        this.gate.failed(error, this.clock.now());
      }
      return undefined;
    } finally {
      this.clock.clearTimeout(deadline);
      signal.removeEventListener('abort', onAbort);
      if (this.inFlight === request) this.inFlight = undefined;
      if (--this.running === 0) this.busy.fire(false);
    }
    // A reply that long without a whole unit is not a suggestion.
    const text = overflow
      ? undefined
      : cleanCompletion({
          prefix: context.prefix,
          suffix: context.suffix,
          text: raw,
          from: target.mode,
        });
    // Kept even when the cursor has moved on: typing its start finds it.
    if (text !== undefined) this.cache.store(doc.key, context.prefix, context.suffix, text);
    this.lastTimings = { lastByteAt, returnedAt: this.hrNow() };
    if (text === undefined || signal.aborted) return undefined;
    this.stats.served++;
    return { text, cached: false, model: target.model, mode: target.mode };
  }

  /** Aborts the request in flight, if any, and every call still waiting to send one. */
  cancel(): void {
    this.generation++;
    this.inFlight?.abort();
  }

  dispose(): void {
    this.cancel();
    this.busy.dispose();
    this.spent.dispose();
  }

  /** True after `ms`, false as soon as the signal aborts. */
  private wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.clock.clearTimeout(timer);
        resolve(false);
      };
      const timer = this.clock.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
