/**
 * The client against hostile gateways, over loopback: wrong-typed fields, keep-alive-only and
 * endless streams, huge bodies, media records without a real status, and credentials in URLs.
 */
import * as assert from 'node:assert/strict';
import type { GatewayError } from '../../../src/api/errors';
import { normalizeMediaRecord } from '../../../src/api/media';
import type { GatewayDataProblem } from '../../../src/api/types';
import { isFinalStatus } from '../../../src/core/media/mediaJob';
import {
  collect,
  expectGatewayError,
  freePort,
  makeClient,
  tinyServer,
  userRequest,
  withSimulator,
} from './helpers';

function problemsSink(): { problems: GatewayDataProblem[]; onProblem: (p: GatewayDataProblem) => void } {
  const problems: GatewayDataProblem[] = [];
  return { problems, onProblem: (problem) => problems.push(problem) };
}

describe('api: hostile gateway data', () => {
  const ctx = withSimulator();

  it('finishes a stream whose usage, citations, tool calls and content have the wrong types', async () => {
    const sink = problemsSink();
    const { client } = makeClient(ctx.sim, { onProblem: sink.onProblem });
    const outcome = await collect(client.streamChat(userRequest('hello #sim:hostile-types')));
    assert.equal(outcome.error, undefined);
    const { completion } = outcome;
    assert.equal(completion.finishReason, 'stop');
    assert.match(completion.content, /hello/);
    // Only the one well-formed citation survives, without its wrong-typed title.
    assert.deepEqual(completion.annotations, [
      { type: 'url_citation', url_citation: { url: 'https://docs.example.com/ok' } },
    ]);
    // Every usage field was wrong: no usage at all rather than a wrong one.
    assert.equal(completion.usage, undefined);
    assert.deepEqual(completion.toolCalls, []);
    assert.ok(completion.reasoningDetails.every((detail) => typeof detail.type === 'string'));
    const paths = sink.problems.map((problem) => problem.path);
    for (const expected of [
      'chat.usage.prompt_tokens',
      'chat.usage.completion_tokens',
      'chat.usage.total_tokens',
      'chat.usage.cost',
      'chat.annotations[].url_citation.url',
      'chat.delta.content',
      'chat.tool_calls[].function.name',
      'chat.choice.finish_reason',
    ])
      assert.ok(paths.includes(expected), `${expected} reported; got ${paths.join(', ')}`);
    assert.equal(new Set(paths).size, paths.length, 'each path is reported once');
    // A second reply with the same faults reports nothing new.
    const before = sink.problems.length;
    await collect(client.streamChat(userRequest('again #sim:hostile-types')));
    assert.equal(sink.problems.length, before);
    assert.ok(sink.problems.every((problem) => !problem.message.includes('evil.example')));
    await client.close();
  });

  it('reads a whole reply with wrong-typed fields into the promised types', async () => {
    const { client } = makeClient(ctx.sim);
    const reply = await client.chat(userRequest('whole #sim:hostile-types'));
    assert.match(reply.content, /whole/);
    assert.equal(reply.usage, undefined);
    assert.deepEqual(reply.toolCalls, []);
    assert.deepEqual(reply.reasoningDetails, []);
    assert.equal(reply.annotations.length, 1);
    await client.close();
  });

  it('keeps numeric-string costs and counts that are right', async () => {
    const server = await tinyServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          choices: [{ index: 0, message: { content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 4.5, total_tokens: 7, cost: ' 0.0012 ' },
        }),
      );
    });
    const { client } = makeClient(server.sim);
    const reply = await client.chat(userRequest('x'));
    assert.deepEqual(reply.usage, { prompt_tokens: 3, total_tokens: 7, cost: 0.0012 });
    await client.close();
    await server.close();
  });
});

describe('api: bounds on streams and bodies', () => {
  const ctx = withSimulator();
  const hints = {
    maxResponseBytes: 'limits.bytes',
    maxStreamMs: 'limits.minutes',
    streamIdleTimeoutMs: 'limits.idle',
  };

  it('gives up a stream of nothing but keep-alives after the idle limit, and says why', async () => {
    const { client } = makeClient(ctx.sim, { streamIdleTimeoutMs: 400, limitHints: hints });
    const started = Date.now();
    const outcome = await collect(client.streamChat(userRequest('#sim:keepalive:50')));
    const took = Date.now() - started;
    assert.equal(outcome.error?.kind, 'timeout');
    assert.match(outcome.error?.message ?? '', /keep-alive messages do not count/);
    assert.match(outcome.error?.message ?? '', /limits\.idle/);
    assert.ok(took >= 350 && took < 3000, `gave up after ${took} ms`);
    await client.close();
  });

  it('stops an endless stream at the total time limit, naming the setting', async () => {
    const { client } = makeClient(ctx.sim, { maxStreamMs: 600, limitHints: hints });
    const started = Date.now();
    const outcome = await collect(client.streamChat(userRequest('#sim:endless:10')));
    const took = Date.now() - started;
    assert.equal(outcome.error?.kind, 'timeout');
    assert.match(outcome.error?.message ?? '', /longer than the limit of 0\.6 s.*"limits\.minutes"/);
    assert.match(outcome.completion.content, /more 0 /, 'what arrived is kept');
    assert.ok(took < 3000, `stopped after ${took} ms`);
    const closed = await ctx.sim.waitForClosedConnection(undefined, 3000);
    assert.ok(closed);
    await client.close();
  });

  it('stops a stream larger than the size limit, naming the setting', async () => {
    const { client } = makeClient(ctx.sim, { maxResponseBytes: 1024 * 1024, limitHints: hints });
    const outcome = await collect(client.streamChat(userRequest('#sim:huge:4')));
    assert.equal(outcome.error?.kind, 'invalid_response');
    assert.match(outcome.error?.message ?? '', /larger than the limit of 1 MB.*"limits\.bytes"/);
    assert.ok(outcome.completion.content.length <= 1024 * 1024);
    await client.close();
  });

  it('refuses a whole JSON reply over 8 MB', async () => {
    const { client } = makeClient(ctx.sim, { limitHints: hints });
    const error = await expectGatewayError(client.chat(userRequest('#sim:huge:9')), 'invalid_response');
    assert.match(error.message, /larger than the limit of 8 MB/);
    assert.doesNotMatch(error.message, /limits\.bytes/, 'a fixed cap names no setting');
    await client.close();
  });

  /**
   * The error of a non-streaming chat whose answer (`status`, starting with `head`) then comes a
   * byte every 50 ms: never idle for the 400 ms limit, so only the 600 ms total can stop it.
   */
  async function trickledChat(status: number, head: string): Promise<GatewayError> {
    let timer: ReturnType<typeof setInterval> | undefined;
    const server = await tinyServer((_request, response) => {
      response.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'text/plain' });
      response.write(head);
      timer = setInterval(() => response.write(' '), 50);
    });
    const { client } = makeClient(server.sim, {
      maxStreamMs: 600,
      streamIdleTimeoutMs: 400,
      maxRetries: 0,
      limitHints: hints,
    });
    try {
      return await Promise.race([
        expectGatewayError(client.chat(userRequest('x')), 'timeout'),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still reading')), 3000)),
      ]);
    } finally {
      clearInterval(timer);
      await client.close();
      await server.close();
    }
  }

  it('stops a whole JSON reply trickled in below the idle limit at the total time limit', async () => {
    // Without a total cap the call (a non-streaming chat, the model list, a media job's status)
    // would wait for 8 MB of such bytes.
    const error = await trickledChat(200, '{"id":"x","choices":[');
    assert.match(error.message, /longer than the limit of 0\.6 s.*"limits\.minutes"/);
  });

  it('stops an error body trickled in below the idle limit at the total time limit', async () => {
    // Without it, the 64 KiB kept of an error body took an hour at this pace.
    const error = await trickledChat(503, 'overloaded');
    assert.match(error.message, /longer than the limit of 0\.6 s/);
  });

  it('keeps at most 64 KiB of an error body', async () => {
    const server = await tinyServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('y'.repeat(5 * 1024 * 1024));
    });
    const { client } = makeClient(server.sim, { maxRetries: 0 });
    const error = await expectGatewayError(client.chat(userRequest('x')), 'http');
    assert.ok(error.message.length < 2000);
    await client.close();
    await server.close();
  });
});

describe('api: media records without a real end', () => {
  // Long enough that the first check always sees a job in progress, even on a busy machine.
  const ctx = withSimulator({ mediaTimings: { queuedMs: 250, processingMs: 250 } });

  async function statusesOf(prompt: string): Promise<{ statuses: string[]; error?: string }> {
    const { client } = makeClient(ctx.sim);
    const started = await client.startMedia({ model: 'openai/gpt-image-1', prompt });
    const statuses: string[] = [];
    for (let i = 0; i < 200; i++) {
      const record = await client.getMedia(started.id);
      const status = record.status ?? '(none)';
      if (statuses.at(-1) !== status) statuses.push(status);
      if (record.status !== undefined && isFinalStatus(record.status)) {
        await client.close();
        return { statuses, error: record.error };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`never ended: ${statuses.join(' → ')}`);
  }

  it('reads a record without status as "no status" until the real one comes', async () => {
    assert.deepEqual((await statusesOf('a fox #sim:no-status')).statuses, ['(none)', 'completed']);
  });

  it('reads an unknown status as "no status", never as an end', async () => {
    assert.deepEqual((await statusesOf('a fox #sim:odd-status')).statuses, ['(none)', 'completed']);
  });

  it('maps final synonyms; a cancellation or an expiry is an end of its own', async () => {
    assert.equal((await statusesOf('a #sim:final-status:succeeded')).statuses.at(-1), 'completed');
    assert.equal((await statusesOf('a #sim:final-status:DONE')).statuses.at(-1), 'completed');
    // A cancellation and an expiry are ends of their own, not failures.
    assert.equal((await statusesOf('a #sim:final-status:cancelled')).statuses.at(-1), 'cancelled');
    assert.equal((await statusesOf('a #sim:final-status:CANCELED')).statuses.at(-1), 'cancelled');
    assert.equal((await statusesOf('a #sim:final-status:expired')).statuses.at(-1), 'expired');
    const aborted = await statusesOf('a #sim:final-status:aborted');
    assert.equal(aborted.statuses.at(-1), 'failed');
    assert.match(aborted.error ?? '', /aborted/);
    // Status words are never object keys: the prototype's names are just unknown words.
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const record = normalizeMediaRecord({ id: 'j', status: key }, 'j');
      assert.equal(record.status, undefined, key);
      assert.equal(isFinalStatus(record.status ?? 'queued'), false);
    }
  });
});

describe('api: credentials in URLs never leave the client', () => {
  const PASSWORD = 'pr0xy-Pa55w0rd';

  it('redacts proxy credentials from the error and the log when the proxy cannot be reached', async () => {
    const port = await freePort();
    // A name only a proxy would resolve: loopback targets never go through one.
    const sim = { baseUrl: 'http://gateway.test:9/api' };
    const { client, log } = makeClient(sim as never, {
      proxy: { url: `http://alice:${PASSWORD}@127.0.0.1:${port}` },
      maxRetries: 0,
    });
    const error = await expectGatewayError(client.chat(userRequest('x')), 'network');
    const texts = [error.message, ...log.map((entry) => JSON.stringify(entry))];
    for (const text of texts) {
      assert.ok(!text.includes(PASSWORD), text);
      assert.ok(!text.includes('alice:'), text);
    }
    await client.close();
  });

  it('redacts a proxy URL and its password that a gateway echoes in an error body', async () => {
    const server = await tinyServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `upstream via http://alice:${PASSWORD}@proxy.corp:3128 failed (password ${PASSWORD})`,
            metadata: {
              raw: `ftp://bob:hunter22@files.example/x`,
              provider_name: `p http://u:${PASSWORD}@h`,
            },
          },
        }),
      );
    });
    const { client, log } = makeClient(server.sim, {
      proxy: { url: `http://alice:${PASSWORD}@127.0.0.1:1` },
      maxRetries: 0,
    });
    const error = await expectGatewayError(client.chat(userRequest('x')), 'http');
    const texts = [error.message, error.provider ?? '', ...log.map((entry) => JSON.stringify(entry))];
    for (const text of texts) {
      assert.ok(!text.includes(PASSWORD), text);
      assert.ok(!text.includes('hunter22'), text);
    }
    assert.match(error.message, /http:\/\/\[redacted\]@proxy\.corp:3128/);
    await client.close();
    await server.close();
  });
});
