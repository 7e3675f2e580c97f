/** Shared set-up of the API client tests: a simulator per suite, clients with a fake retry clock. */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient } from '../../../src/api/client';
export { freePort } from '../../launch/ports';
import type { ClientInternals, GatewayClient } from '../../../src/api/client';
import { GatewayError } from '../../../src/api/errors';
import type { GatewayErrorKind } from '../../../src/api/errors';
import { ChatAccumulator } from '../../../src/api/fold';
import type { RetryTiming } from '../../../src/api/retry';
import type {
  ChatCompletion,
  ChatDelta,
  ChatRequest,
  ClientOptions,
  MediaRecord,
  RequestLogEntry,
} from '../../../src/api/types';
import { startGatewaySimulator } from '../../simulator';
import type { GatewaySimulator, SimulatorOptions } from '../../simulator';

/** Retry pauses recorded but not waited for, and no jitter, so retry tests take no time. */
export class InstantTiming implements RetryTiming {
  readonly sleeps: number[] = [];
  random = (): number => 0.5;
  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return Promise.resolve();
  }
}

export interface TestClient {
  client: GatewayClient;
  key: string;
  timing: InstantTiming;
  log: RequestLogEntry[];
}

let keyCounter = 0;
/** A fresh key per test keeps the simulator's per-key counters apart. */
export function freshKey(label = 'test'): string {
  keyCounter += 1;
  return `sk-${label}-${process.pid}-${keyCounter}-secretpart`;
}

export function makeClient(
  sim: GatewaySimulator,
  overrides: Partial<ClientOptions> = {},
  internals: ClientInternals = {},
): TestClient {
  const timing = new InstantTiming();
  const log: RequestLogEntry[] = [];
  const key = freshKey();
  const client = createGatewayClient(
    {
      baseUrl: sim.baseUrl,
      apiKey: () => key,
      timeoutMs: 5_000,
      streamIdleTimeoutMs: 5_000,
      log: (entry) => log.push(entry),
      ...overrides,
    },
    { timing, ...internals },
  );
  return { client, key, timing, log };
}

export function withSimulator(options: SimulatorOptions = {}): { readonly sim: GatewaySimulator } {
  const holder: { sim?: GatewaySimulator } = {};
  before(async () => {
    holder.sim = await startGatewaySimulator({
      chunkDelayMs: 0,
      mediaTimings: { queuedMs: 40, processingMs: 40 },
      ...options,
    });
  });
  after(async () => {
    await holder.sim?.close();
  });
  return {
    get sim(): GatewaySimulator {
      if (!holder.sim) throw new Error('simulator not started');
      return holder.sim;
    },
  };
}

export function userRequest(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'vendor/model-1', messages: [{ role: 'user', content: text }], ...extra };
}

export interface StreamOutcome {
  deltas: ChatDelta[];
  completion: ChatCompletion;
  error?: GatewayError;
}

/** Reads a stream to its end or its error, keeping what arrived. */
export async function collect(stream: AsyncIterable<ChatDelta>): Promise<StreamOutcome> {
  const deltas: ChatDelta[] = [];
  const accumulator = new ChatAccumulator();
  try {
    for await (const delta of stream) {
      deltas.push(delta);
      accumulator.add(delta);
    }
  } catch (error) {
    if (!GatewayError.is(error)) throw error;
    return { deltas, completion: accumulator.completion, error };
  }
  return { deltas, completion: accumulator.completion };
}

export async function expectGatewayError(
  promise: Promise<unknown>,
  kind: GatewayErrorKind,
): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(GatewayError.is(error), `expected a GatewayError, got ${String(error)}`);
    assert.equal(error.kind, kind, `kind of: ${error.message}`);
    return error;
  }
  assert.fail(`expected a GatewayError of kind ${kind}`);
}

export function requestsTo(
  sim: GatewaySimulator,
  method: string,
  pathPart: string,
): GatewaySimulator['requests'] {
  return sim.requests.filter((request) => request.method === method && request.path.includes(pathPart));
}

/** Starts a media job with the client and polls it until it ends; its last record. */
export async function finishedMedia(client: GatewayClient, prompt: string): Promise<MediaRecord> {
  const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt });
  for (;;) {
    const record = await client.getMedia(started.id);
    if (record.status === 'completed' || record.status === 'failed') return record;
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** A loopback server with one handler, standing in for a gateway the simulator does not play. */
export async function tinyServer(
  handler: Parameters<typeof createServer>[1],
): Promise<{ sim: GatewaySimulator; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    // Only its base URL is read by `makeClient`.
    sim: { baseUrl: `http://127.0.0.1:${port}/api` } as GatewaySimulator,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
