/**
 * Inline completions: what a typist costs the gateway and waits for, measured in plain Node. The
 * provider's logic lives in the core (`InlineEngine`: cache, adaptive debounce, cancellation,
 * cleaning), so this drives that engine and our real client against the simulator over loopback
 * at zero model time, as VS Code would: one call per keystroke, each change aborting the call
 * before it. The peer is a naive provider in the same run: a request per keystroke, no debounce,
 * no cache (the previous request cancelled, as VS Code cancels its token).
 *
 * The simulator answers as a perfect model would (the rest of the snippet being typed), so a
 * suggestion is typed through as a user accepting it word by word would, and the cache hit rate
 * is that of a scripted session: keys 80 ms apart, a pause after each word.
 */
import { performance } from 'node:perf_hooks';
import { createGatewayClient } from '../src/api';
import type { GatewayClient } from '../src/api';
import { linesOf, positionAt } from '../src/core/inline/context';
import { InlineEngine } from '../src/core/inline/engine';
import type { InlineDocument } from '../src/core/inline/engine';
import { startGatewaySimulator } from '../test/simulator';
import type { GatewaySimulator } from '../test/simulator';
import { median, round } from './report';
import type { BenchRow, SectionResult } from './report';

const MODEL = 'bench/coder';
const KEY_MS = 80;
const PAUSE_MS = 450;
const HEADER = '// Path: bench.ts\n';
const BURST = 'const total = items.';
const SNIPPET = [
  'function total(items: number[]): number {',
  '  let sum = 0;',
  '  for (const item of items) sum += item;',
  '  return sum;',
  '}',
].join('\n');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function doc(text: string): InlineDocument {
  return {
    key: 'bench.ts',
    lines: linesOf(text),
    position: positionAt(text, text.length),
    path: 'bench.ts',
    languageId: 'typescript',
  };
}

/** A provider as VS Code drives it: each call aborts the one before. */
interface Provider {
  call(text: string): Promise<string | undefined>;
}

class Ours implements Provider {
  readonly engine: InlineEngine;
  private previous: AbortController | undefined;
  constructor(client: GatewayClient, debounce?: { minMs: number; maxMs: number }) {
    this.engine = new InlineEngine({
      client: () => client,
      target: () => ({ model: MODEL, mode: 'fim' }),
      debounce,
    });
  }
  async call(text: string): Promise<string | undefined> {
    this.previous?.abort();
    const controller = new AbortController();
    this.previous = controller;
    return (await this.engine.complete(doc(text), controller.signal))?.text;
  }
}

class Naive implements Provider {
  private previous: AbortController | undefined;
  constructor(private readonly client: GatewayClient) {}
  async call(text: string): Promise<string | undefined> {
    this.previous?.abort();
    const controller = new AbortController();
    this.previous = controller;
    let reply = '';
    try {
      const stream = this.client.streamCompletion(
        { model: MODEL, prompt: text, suffix: '', max_tokens: 64 },
        { signal: controller.signal, maxRetries: 0 },
      );
      for await (const delta of stream) if (delta.type === 'content') reply += delta.text;
    } catch {
      return undefined;
    }
    return controller.signal.aborted ? undefined : reply;
  }
}

function completions(sim: GatewaySimulator): number {
  return sim.requests.filter((r) => r.path.endsWith('/v1/completions')).length;
}

/** Types `text` after `start` at KEY_MS per key, calling the provider at each key; waits for the last call. */
async function typeBurst(provider: Provider, start: string, text: string): Promise<void> {
  let last: Promise<unknown> = Promise.resolve();
  for (let i = 1; i <= text.length; i++) {
    last = provider.call(start + text.slice(0, i));
    if (i < text.length) await sleep(KEY_MS);
  }
  await last;
}

interface Session {
  calls: number;
  cacheHits: number;
  requests: number;
  /** Keystroke to a suggestion that needed a request (ms). */
  toGhost: number[];
  /** Debounce in force at each of those. */
  debounce: number[];
}

/**
 * Types the snippet: keys KEY_MS apart, a pause after each word. When a suggestion is shown, the
 * keys that follow it are its own characters (typing through it).
 */
async function session(provider: Provider, sim: GatewaySimulator, engine?: InlineEngine): Promise<Session> {
  const before = completions(sim);
  const result: Session = { calls: 0, cacheHits: 0, requests: 0, toGhost: [], debounce: [] };
  const hitsBefore = engine?.cache.hits ?? 0;
  for (let i = 1; i <= SNIPPET.length; i++) {
    const typed = SNIPPET.slice(0, i);
    const pause = /[\s(){};]/.test(SNIPPET[i - 1]) || i === SNIPPET.length;
    const hitsNow = engine?.cache.hits ?? 0;
    const requestsNow = completions(sim);
    const started = performance.now();
    const call = provider.call(typed);
    // Read after the call: the keystroke it records is part of the debounce it waits.
    const debounce = engine?.debounce.delayMs ?? 0;
    result.calls++;
    if (pause) {
      const shown = await call;
      const took = performance.now() - started;
      if (shown !== undefined && (engine?.cache.hits ?? 0) === hitsNow && completions(sim) > requestsNow) {
        result.toGhost.push(took);
        result.debounce.push(debounce);
      }
      await sleep(Math.max(0, PAUSE_MS - took));
    } else await sleep(KEY_MS);
  }
  result.cacheHits = (engine?.cache.hits ?? 0) - hitsBefore;
  result.requests = completions(sim) - before;
  return result;
}

export async function benchInline(): Promise<SectionResult> {
  const sim = await startGatewaySimulator({ chunkDelayMs: 0 });
  // A perfect model at zero model time: the rest of whatever is being typed.
  sim.completionScript = {
    text: (prompt) => {
      const typed = prompt.startsWith(HEADER) ? prompt.slice(HEADER.length) : prompt;
      const target = typed.startsWith(BURST.slice(0, 5)) ? `${BURST}length;` : SNIPPET;
      return target.startsWith(typed) ? target.slice(typed.length, typed.length + 60) : '';
    },
  };
  const client = createGatewayClient({
    baseUrl: sim.baseUrl,
    apiKey: () => 'sk-bench-inline',
    maxRetries: 0,
  });
  try {
    const ours = new Ours(client);
    const naive = new Naive(client);
    // Warm the connection and the debounce's latency figure, as a session in progress would have.
    await typeBurst(ours, '', 'x');
    await typeBurst(naive, '', 'x');

    let before = completions(sim);
    await typeBurst(ours, '', BURST);
    const burstOurs = completions(sim) - before;
    before = completions(sim);
    await typeBurst(naive, '', BURST);
    const burstNaive = completions(sim) - before;

    // The host's own time, from the reply's last byte to the suggestion returned (the debounce
    // set to zero here: it comes before the request, so it does not change this figure).
    const hostTimes: number[] = [];
    const undelayed = new Ours(client, { minMs: 0, maxMs: 0 });
    for (let i = 0; i < 100; i++) {
      await undelayed.call(SNIPPET.slice(0, 20 + (i % 80)));
      const timings = undelayed.engine.lastTimings;
      if (timings) hostTimes.push(timings.returnedAt - timings.lastByteAt);
      undelayed.engine.cache.clear();
    }

    ours.engine.cache.clear();
    const oursSession = await session(ours, sim, ours.engine);
    const naiveSession = await session(naive, sim);
    const naiveToGhost: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      await naive.call(SNIPPET.slice(0, 30 + i));
      naiveToGhost.push(performance.now() - started);
    }

    const hostP95 = percentile(hostTimes, 95);
    const toGhost = median(oursSession.toGhost);
    const debounce = median(oursSession.debounce);
    const hitRate = oursSession.cacheHits / oursSession.calls;
    const rows: BenchRow[] = [
      {
        name: `inline: requests typing ${BURST.length} chars at ${KEY_MS} ms/key`,
        value: burstOurs,
        unit: 'requests',
        peer: `naive provider: ${burstNaive}`,
        goal: '≤ 2',
        ratio: round(burstOurs / burstNaive, 3),
        met: burstOurs <= 2,
      },
      {
        name: 'inline: host time, last reply byte → items (p95)',
        value: round(hostP95, 3),
        unit: 'ms',
        goal: '≤ 5 ms',
        ratio: round(hostP95 / 5, 3),
        met: hostP95 <= 5,
      },
      {
        name: 'inline: keystroke → ghost text (p50, zero model time)',
        value: round(toGhost, 1),
        unit: 'ms',
        peer: `naive provider: ${round(median(naiveToGhost), 1)} ms`,
        goal: `≤ debounce ${round(debounce, 0)} + 30 ms`,
        ratio: round(toGhost / (debounce + 30), 3),
        met: toGhost <= debounce + 30,
      },
      {
        name: `inline: cache hit rate, scripted session (${SNIPPET.length} keys)`,
        value: round(hitRate * 100, 1),
        unit: '%',
        peer: 'naive provider: 0 %',
      },
      {
        name: 'inline: requests in that session',
        value: oursSession.requests,
        unit: 'requests',
        peer: `naive provider: ${naiveSession.requests}`,
        ratio: round(oursSession.requests / naiveSession.requests, 3),
      },
    ];
    return {
      rows,
      notes: [
        'inline: the core engine and the real client against the simulator over loopback, in plain Node (no VS Code, whose own 50 ms wait comes on top); zero model time.',
        `inline: ${hostTimes.length} host-time samples; ${oursSession.toGhost.length} keystroke → ghost samples at pauses that needed a request.`,
      ],
    };
  } finally {
    await client.close();
    await sim.close();
  }
}
