/**
 * Streaming throughput, measured two ways.
 *
 * Over sockets: the same long chat completion streamed from the gateway simulator through our
 * client and through the official `openai` SDK, alternating, then both with 1-byte vs 64 KB socket
 * writes. With 1-byte writes every byte is its own socket write and HTTP chunk on both ends, so
 * those figures are bound by the transport, not by either client's parsing.
 *
 * In process: the simulator's exact stream bytes, captured once, fed from memory to our streaming
 * pipeline and to the SDK's SSE decoding in 64 KiB and in 1-byte chunks. Without a socket in the
 * way, the 1-byte ÷ 64 KiB ratio shows what fragmentation costs the parser itself, and a
 * 200 KB ÷ 50 KB ratio at 1-byte chunks shows whether that cost grows linearly with the stream.
 *
 * The simulator runs on a worker thread so its own work does not slow the client being measured.
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ReadableStream } from 'node:stream/web';
import { Worker } from 'node:worker_threads';
import { createGatewayClient } from '../src/api';
import { chatDeltasFromSse } from '../src/api/chatStream';
import { readSseData } from '../src/api/transport/sse';
import { longReply } from '../test/simulator/replies';
import { median, round, KB, MB } from './report';
import type { BenchRow, SectionResult } from './report';

const MODEL = 'bench/long-stream';
const API_KEY = 'sk-bench-streaming';
const LONG_BYTES = 2_000_000;
const FRAGMENTED_BYTES = 200_000;
const RUNS = 5;

/**
 * In-process parsing: reply sizes asked of the simulator. Each event wraps 64 characters of reply
 * in about 250 bytes of JSON, so the streams come to about 1 MB, 100 KB, 200 KB and 50 KB.
 */
const PARSE_WIDE_BYTES = 200_000;
const PARSE_NARROW_BYTES = 20_000;
const LINEAR_LARGE_BYTES = 40_000;
const LINEAR_SMALL_BYTES = 10_000;
const WIDE_CHUNK = 64 * KB;
const PARSE_RUNS = 5;

interface SimulatorThread {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts the compiled simulator on its own thread. */
async function startSimulatorThread(): Promise<SimulatorThread> {
  const simulatorModule = path.join(__dirname, '..', 'test', 'simulator', 'index.js');
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     require(workerData).startGatewaySimulator({ chunkDelayMs: 0 }).then((sim) => parentPort.postMessage(sim.baseUrl));`,
    { eval: true, workerData: simulatorModule },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { baseUrl, stop: async () => void (await worker.terminate()) };
}

function chatRequest(marker: string): { model: string; messages: Array<{ role: 'user'; content: string }> } {
  return { model: MODEL, messages: [{ role: 'user', content: `Write a lot. ${marker}` }] };
}

type StreamRunner = (marker: string) => Promise<number>;

/** Streams once; resolves with the reply's size in bytes. */
function ourRunner(baseUrl: string): { run: StreamRunner; close: () => Promise<void> } {
  const client = createGatewayClient({ baseUrl, apiKey: () => API_KEY, maxRetries: 0 });
  return {
    run: async (marker) => {
      let text = '';
      for await (const delta of client.streamChat(chatRequest(marker)))
        if (delta.type === 'content') text += delta.text;
      return Buffer.byteLength(text);
    },
    close: () => client.close(),
  };
}

async function openAiRunner(baseUrl: string): Promise<StreamRunner> {
  const { default: OpenAI } = await import('openai');
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: API_KEY, maxRetries: 0 });
  return async (marker) => {
    const stream = await openai.chat.completions.create({ ...chatRequest(marker), stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return Buffer.byteLength(text);
  };
}

interface Timings {
  /** Wall-clock seconds per run. */
  seconds: number[][];
  /** Seconds this (the client's) thread was busy per run; the simulator's thread is not counted. */
  busySeconds: number[][];
  bytes: number[];
}

/** Runs alternate so drift hits every runner alike; `warmUp` unmeasured rounds come first. */
async function alternate(
  runners: Array<{ run: StreamRunner; marker: string }>,
  runs: number,
  warmUp = 1,
): Promise<Timings> {
  const seconds = runners.map(() => [] as number[]);
  const busySeconds = runners.map(() => [] as number[]);
  const bytes = runners.map(() => 0);
  for (let round = -warmUp; round < runs; round++) {
    for (const [index, runner] of runners.entries()) {
      const utilisation = performance.eventLoopUtilization();
      const started = performance.now();
      bytes[index] = await runner.run(runner.marker);
      if (round < 0) continue;
      seconds[index].push((performance.now() - started) / 1000);
      busySeconds[index].push(performance.eventLoopUtilization(utilisation).active / 1000);
    }
  }
  return { seconds, busySeconds, bytes };
}

/**
 * Both clients with 1-byte vs 64 KB socket writes, and ours with 1-byte writes at two sizes
 * (linearity). Every 1-byte write is a syscall and an HTTP chunk on both ends, so these rows
 * describe the transport as much as the client; the SDK's figures, taken alongside, show that.
 */
async function measureFragmentation(run: StreamRunner, openai: StreamRunner): Promise<BenchRow[]> {
  const small = `#sim:long:${FRAGMENTED_BYTES}`;
  const quarter = `#sim:long:${FRAGMENTED_BYTES / 4}`;
  // Fills the simulator's reply cache for both sizes, so no run pays for building a reply.
  await run(small);
  await run(quarter);
  // One run per 1-byte case: each takes seconds, and its spread is small next to its size.
  const timings = await alternate(
    [
      { run, marker: `${small} #sim:chunk:65536` },
      { run, marker: `${small} #sim:chunk:1` },
      { run, marker: `${quarter} #sim:chunk:1` },
      { run: openai, marker: `${small} #sim:chunk:1` },
      { run: openai, marker: `${small} #sim:chunk:65536` },
    ],
    1,
    0,
  );
  const perByte = (index: number, busy = false): number =>
    median((busy ? timings.busySeconds : timings.seconds)[index]) / timings.bytes[index];
  const rate = (index: number): number => timings.bytes[index] / MB / median(timings.seconds[index]);
  const busyPerKb = (index: number): number => perByte(index, true) * 1024 * 1e6;
  const wallRatio = perByte(1) / perByte(0);
  const busyRatio = perByte(1, true) / perByte(0, true);
  const openAiWallRatio = perByte(3) / perByte(4);
  const openAiBusyRatio = perByte(3, true) / perByte(4, true);
  const linearity = perByte(1) / perByte(2);
  const kb = FRAGMENTED_BYTES / 1e3;
  const transport = 'sockets, transport-bound';
  return [
    {
      name: `chat stream ${kb} KB, 64 KB socket writes`,
      value: round(rate(0)),
      unit: 'MB/s',
      peer: `openai SDK ${round(rate(4))} MB/s`,
    },
    {
      name: `chat stream ${kb} KB, 1-byte socket writes (${transport})`,
      value: round(rate(1), 3),
      unit: 'MB/s',
      peer: `openai SDK ${round(rate(3), 3)} MB/s`,
    },
    {
      name: `client busy per KB, ${kb} KB at 1-byte socket writes (${transport})`,
      value: round(busyPerKb(1), 1),
      unit: 'µs/KB',
      peer: `openai SDK ${round(busyPerKb(3), 1)} µs/KB`,
      ratio: round(busyPerKb(1) / busyPerKb(3)),
      goal: '≤ 1.0× the openai SDK',
      met: busyPerKb(1) <= busyPerKb(3),
    },
    // No "near 1" goal, and no ratio to the SDK's figure: per-write costs put both clients far above
    // 1, and a ratio of ratios would count our faster 64 KB path against us. The in-process rows
    // carry the parser's own fragmentation figure.
    {
      name: `time per byte, 1-byte ÷ 64 KB socket writes, wall (${transport})`,
      value: round(wallRatio, 1),
      unit: '×',
      peer: `openai SDK ${round(openAiWallRatio, 1)}×`,
    },
    {
      name: `time per byte, 1-byte ÷ 64 KB socket writes, client busy (${transport})`,
      value: round(busyRatio, 1),
      unit: '×',
      peer: `openai SDK ${round(openAiBusyRatio, 1)}×`,
    },
    {
      name: `time per byte at 1-byte socket writes, ${kb} KB ÷ ${kb / 4} KB (sockets)`,
      value: round(linearity),
      unit: '×',
      ratio: round(linearity),
      goal: 'near 1 (linear)',
      met: linearity < 1.5,
    },
  ];
}

/** The raw `text/event-stream` bytes the simulator sends for a long reply of `size` bytes. */
async function captureStream(baseUrl: string, size: number): Promise<Buffer> {
  const response = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ ...chatRequest(`#sim:long:${size}`), stream: true }),
  });
  if (!response.ok) throw new Error(`the simulator answered ${response.status} to a long stream request`);
  return Buffer.from(await response.arrayBuffer());
}

interface CapturedStream {
  bytes: Buffer;
  /** The reply text the stream carries, built independently of any parser. */
  expected: string;
}

async function captureStreams(baseUrl: string): Promise<Map<number, CapturedStream>> {
  const streams = new Map<number, CapturedStream>();
  for (const size of [PARSE_WIDE_BYTES, PARSE_NARROW_BYTES, LINEAR_LARGE_BYTES, LINEAR_SMALL_BYTES]) {
    const bytes = await captureStream(baseUrl, size);
    // The point is to parse a realistic stream; one without comments or the end marker is not.
    const text = bytes.toString('utf8');
    if (!text.includes('\n: ') || !text.includes('data: [DONE]'))
      throw new Error(`the stream of a ${size}-byte reply lacks SSE comments or [DONE]`);
    streams.set(size, { bytes, expected: longReply(MODEL, size) });
  }
  return streams;
}

/** A stream's size for a row's name, 1024-based like every size in the table. */
function sizeLabel(bytes: number): string {
  const kb = Math.round(bytes / KB);
  // Past 999 KB, MB reads better than a four-digit KB figure.
  return kb >= 1000 ? `${round(bytes / MB)} MB` : `${kb} KB`;
}

/** Cut once, outside the timed region, so the runs time parsing rather than slicing. */
function slices(bytes: Buffer, chunkSize: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkSize)
    chunks.push(bytes.subarray(offset, offset + chunkSize));
  return chunks;
}

/**
 * A web stream over prepared chunks, one per read. Both parsers get the same kind of source, the
 * kind `fetch` hands the SDK, so its per-chunk cost is the same on both sides.
 */
function sourceOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]);
      else controller.close();
    },
  });
}

/** Reads a whole stream; resolves with the reply's content text (or nothing, for the bare read). */
type StreamParser = (source: ReadableStream<Uint8Array>) => Promise<string | undefined>;

/** Reads the source and nothing else: the part of every parser's per-chunk cost that is not parsing. */
const bareRead: StreamParser = async (source) => {
  for await (const chunk of source) void chunk;
  return undefined;
};

/** Our streaming pipeline exactly as `streamChat` runs it on a response body, minus the socket. */
const ourParser: StreamParser = async (source) => {
  let text = '';
  for await (const delta of chatDeltasFromSse(readSseData(source), API_KEY))
    if (delta.type === 'content') text += delta.text;
  return text;
};

/** The part of a chat chunk the SDK comparison reads; typed here so the bench needs no SDK types. */
interface SdkChatChunk {
  choices: Array<{ delta?: { content?: string | null } }>;
}

/** The SDK's own SSE decoding and JSON parsing, as `chat.completions.create({ stream: true })` runs it. */
async function openAiParser(): Promise<StreamParser> {
  const { Stream } = await import('openai/core/streaming');
  return async (source) => {
    // The Response only carries the body; the SDK reads `response.body` and nothing else here.
    const response = new Response(source);
    let text = '';
    for await (const chunk of Stream.fromSSEResponse<SdkChatChunk>(response, new AbortController()))
      text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  };
}

interface ParseCase {
  parse: StreamParser;
  stream: CapturedStream;
  chunks: Uint8Array[];
  label: string;
}

/** Median seconds per byte for each case; runs alternate and each checks the text it produced. */
async function alternateParsing(cases: ParseCase[], runs: number): Promise<number[]> {
  const seconds = cases.map(() => [] as number[]);
  for (let round = -1; round < runs; round++) {
    for (const [index, parseCase] of cases.entries()) {
      const source = sourceOf(parseCase.chunks);
      const started = performance.now();
      const text = await parseCase.parse(source);
      const elapsed = (performance.now() - started) / 1000;
      // A parser that drops or garbles content would look fast; its figure must not count.
      if (text !== undefined && text !== parseCase.stream.expected) {
        throw new Error(
          `${parseCase.label} produced ${text.length} characters that differ from the ${parseCase.stream.expected.length} expected`,
        );
      }
      if (round >= 0) seconds[index].push(elapsed);
    }
  }
  return seconds.map((list, index) => median(list) / cases[index].stream.bytes.length);
}

async function measureParsing(streams: Map<number, CapturedStream>): Promise<BenchRow[]> {
  const openai = await openAiParser();
  const stream = (size: number): CapturedStream => streams.get(size)!;
  const wide = stream(PARSE_WIDE_BYTES);
  const narrow = stream(PARSE_NARROW_BYTES);
  const large = stream(LINEAR_LARGE_BYTES);
  const small = stream(LINEAR_SMALL_BYTES);
  const perByte = await alternateParsing(
    [
      {
        parse: ourParser,
        stream: wide,
        chunks: slices(wide.bytes, WIDE_CHUNK),
        label: 'our client, 64 KiB chunks',
      },
      {
        parse: openai,
        stream: wide,
        chunks: slices(wide.bytes, WIDE_CHUNK),
        label: 'openai SDK, 64 KiB chunks',
      },
      {
        parse: ourParser,
        stream: narrow,
        chunks: slices(narrow.bytes, 1),
        label: 'our client, 1-byte chunks',
      },
      { parse: openai, stream: narrow, chunks: slices(narrow.bytes, 1), label: 'openai SDK, 1-byte chunks' },
      {
        parse: ourParser,
        stream: large,
        chunks: slices(large.bytes, 1),
        label: `our client, ${sizeLabel(large.bytes.length)} stream in 1-byte chunks`,
      },
      {
        parse: ourParser,
        stream: small,
        chunks: slices(small.bytes, 1),
        label: `our client, ${sizeLabel(small.bytes.length)} stream in 1-byte chunks`,
      },
      {
        parse: openai,
        stream: large,
        chunks: slices(large.bytes, 1),
        label: `openai SDK, ${sizeLabel(large.bytes.length)} stream in 1-byte chunks`,
      },
      {
        parse: openai,
        stream: small,
        chunks: slices(small.bytes, 1),
        label: `openai SDK, ${sizeLabel(small.bytes.length)} stream in 1-byte chunks`,
      },
      {
        parse: bareRead,
        stream: narrow,
        chunks: slices(narrow.bytes, 1),
        label: 'bare stream read, 1-byte chunks',
      },
    ],
    PARSE_RUNS,
  );
  const [oursWide, sdkWide, oursNarrow, sdkNarrow, oursLarge, oursSmall, sdkLarge, sdkSmall, readNarrow] =
    perByte as [number, number, number, number, number, number, number, number, number];
  const rate = (secondsPerByte: number): number => 1 / secondsPerByte / MB;
  const throughputRatio = sdkWide / oursWide;
  const fragmentation = oursNarrow / oursWide;
  const sdkFragmentation = sdkNarrow / sdkWide;
  const linearity = oursLarge / oursSmall;
  const sdkLinearity = sdkLarge / sdkSmall;
  return [
    {
      name: `SSE parse in process, ${sizeLabel(wide.bytes.length)} stream in 64 KiB chunks`,
      value: round(rate(oursWide)),
      unit: 'MB/s',
      peer: `openai SDK ${round(rate(sdkWide))} MB/s`,
      ratio: round(throughputRatio),
      goal: '≥ 1.0× the openai SDK',
      met: throughputRatio >= 1,
    },
    {
      name: `SSE parse in process, ${sizeLabel(narrow.bytes.length)} stream in 1-byte chunks`,
      value: round(rate(oursNarrow), 3),
      unit: 'MB/s',
      peer: `openai SDK ${round(rate(sdkNarrow), 3)} MB/s; reading the source alone ${round(rate(readNarrow), 3)} MB/s`,
      ratio: round(sdkNarrow / oursNarrow),
      goal: '≥ 1.0× the openai SDK',
      met: oursNarrow <= sdkNarrow,
    },
    // No ratio to the SDK's figure, as with the socket rows. This row shows the fixed per-chunk
    // cost; the next one shows that it does not grow with the stream.
    {
      name: 'SSE parse time per byte in process, 1-byte ÷ 64 KiB chunks',
      value: round(fragmentation, 1),
      unit: '×',
      peer: `openai SDK ${round(sdkFragmentation, 1)}×`,
    },
    {
      name: `SSE parse time per byte in process at 1-byte chunks, ${sizeLabel(large.bytes.length)} ÷ ${sizeLabel(small.bytes.length)} stream`,
      value: round(linearity),
      unit: '×',
      peer: `openai SDK ${round(sdkLinearity)}×`,
      ratio: round(linearity),
      goal: 'near 1 (linear)',
      met: linearity < 1.5,
    },
  ];
}

export async function benchStreaming(): Promise<SectionResult> {
  const simulator = await startSimulatorThread();
  const ours = ourRunner(simulator.baseUrl);
  let socketRows: BenchRow[];
  let streams: Map<number, CapturedStream>;
  try {
    const openai = await openAiRunner(simulator.baseUrl);
    const long = `#sim:long:${LONG_BYTES}`;
    const versus = await alternate(
      [
        { run: ours.run, marker: long },
        { run: openai, marker: long },
      ],
      RUNS,
    );
    const oursRate = versus.bytes[0] / MB / median(versus.seconds[0]);
    const openAiRate = versus.bytes[1] / MB / median(versus.seconds[1]);
    if (versus.bytes[0] !== versus.bytes[1])
      throw new Error(
        `the two clients read different replies (${versus.bytes[0]} vs ${versus.bytes[1]} bytes)`,
      );

    const fragmentation = await measureFragmentation(ours.run, openai);
    const ratio = oursRate / openAiRate;
    socketRows = [
      {
        name: `chat stream ${LONG_BYTES / 1e6} MB, gateway client`,
        value: round(oursRate),
        unit: 'MB/s',
        peer: `openai SDK ${round(openAiRate)} MB/s`,
        ratio: round(ratio),
        goal: '≥ 1.0× the openai SDK',
        met: ratio >= 1,
      },
      { name: `chat stream ${LONG_BYTES / 1e6} MB, openai SDK`, value: round(openAiRate), unit: 'MB/s' },
      ...fragmentation,
    ];
    streams = await captureStreams(simulator.baseUrl);
  } finally {
    await ours.close();
    await simulator.stop();
  }
  // Parsing is timed with the simulator gone, so nothing else runs while it is measured.
  const parsingRows = await measureParsing(streams);
  return {
    rows: [...socketRows, ...parsingRows],
    notes: [
      `Streaming over sockets: median of ${RUNS} alternating runs per client after one warm-up each; the simulator serves a cached reply from a worker thread.`,
      'Socket fragmentation (rows marked transport-bound): with 1-byte writes every byte is its own socket write and HTTP chunk, so wall time per byte is bound by per-write costs on both ends of the socket, for the openai SDK as much as for us; "client busy" counts only the client thread (event-loop active time); the 200 KB ÷ 50 KB row at 1-byte writes shows the cost stays linear in the bytes.',
      `SSE parse in process: the simulator's exact stream bytes for a long reply (its comments and [DONE] included), read from memory through a web ReadableStream by our SSE parser and chunk reader and by the openai SDK's Stream.fromSSEResponse; median of ${PARSE_RUNS} alternating runs after one warm-up. 1-byte chunks use a smaller stream than 64 KiB chunks, so the two are compared per byte; every run's text is checked against the reply the simulator was asked for. The 1-byte ÷ 64 KiB ratio is a fixed per-chunk cost (a stream read, shown alone on the 1-byte row, then a decode and a parser call per byte) set against fast bulk parsing; the ratio of two stream sizes at 1-byte chunks, near 1, shows that cost stays linear in the stream.`,
    ],
  };
}
