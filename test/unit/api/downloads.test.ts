/** F4: what one media record can make the client download, how much, how many at once, from where. */
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressPlace, downloadRefusal } from '../../../src/api/downloadPolicy';
import type { AddressPlace } from '../../../src/api/downloadPolicy';
import { Semaphore } from '../../../src/api/limiter';
import { MAX_MEDIA_OUTPUTS } from '../../../src/api/media';
import type { GatewayDataProblem, MediaRecord } from '../../../src/api/types';
import { createMediaJob } from '../../../src/core/media/mediaJob';
import { MediaJobModel } from '../../../src/core/media/mediaJobModel';
import { expectGatewayError, finishedMedia, makeClient, withSimulator } from './helpers';

const PNG_SIGNATURE = '89504e470d0a1a0a';

function urlOf(record: MediaRecord, index = 0): string {
  const output = record.outputs[index];
  assert.equal(output?.kind, 'url');
  return output.kind === 'url' ? output.url : '';
}

/** A server standing for something else on this computer: it counts who reaches it. */
async function bystander(): Promise<{ server: Server; origin: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_request, response) => {
    hits++;
    response.end('private data');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, hits: () => hits };
}

describe('api: media downloads are bounded', () => {
  const ctx = withSimulator();

  it('F4: a record with 100,000 results keeps the first 16 and says how many were left out', async () => {
    const problems: GatewayDataProblem[] = [];
    const { client } = makeClient(ctx.sim, { onProblem: (problem) => problems.push(problem) });
    const record = await finishedMedia(client, 'many #sim:many-outputs:100000');
    assert.equal(MAX_MEDIA_OUTPUTS, 16);
    assert.equal(record.outputs.length, 16);
    assert.equal(record.omittedOutputs, 100_000 - 16);
    assert.ok(
      problems.some((p) => p.path === 'media.outputs' && /100000 results/.test(p.message)),
      JSON.stringify(problems),
    );
    // The job tells the user, in the Media Jobs view.
    const model = new MediaJobModel();
    model.add(createMediaJob({ id: record.id, prompt: 'many', model: 'openai/gpt-image-1' }, Date.now()));
    const job = model.applyRecord(record.id, record);
    assert.equal(job?.outputs.length, 16);
    assert.equal(job?.lastProblem, 'The gateway sent 100000 results; only the first 16 are kept.');
  });

  it('F4: at most 4 downloads run at once; the others wait their turn, or leave when cancelled', async () => {
    const { client } = makeClient(ctx.sim);
    const record = await finishedMedia(client, 'twelve #sim:many-outputs:12');
    assert.equal(record.outputs.length, 12);
    ctx.sim.peakFilesInFlight = 0;
    const before = ctx.sim.fileRequests;
    const files = await Promise.all(
      record.outputs.map((_, index) => client.download(`${urlOf(record, index)}&delay=150`)),
    );
    for (const file of files)
      assert.equal(Buffer.from(file.bytes.subarray(0, 8)).toString('hex'), PNG_SIGNATURE);
    assert.equal(ctx.sim.fileRequests - before, 12);
    assert.equal(ctx.sim.peakFilesInFlight, 4);

    // A download cancelled while it waits for a turn never starts.
    const slow = record.outputs
      .slice(0, 4)
      .map((_, index) => client.download(`${urlOf(record, index)}&delay=300`));
    const abort = new AbortController();
    const waiting = client.download(urlOf(record, 5), { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const requested = ctx.sim.fileRequests;
    abort.abort();
    await expectGatewayError(waiting, 'aborted');
    await Promise.all(slow);
    assert.equal(ctx.sim.fileRequests, requested, 'the cancelled download sent no request');
  });

  it("F4: a redirect is followed only to the gateway or the result's own site, never elsewhere on this computer", async () => {
    const { client } = makeClient(ctx.sim);
    const record = await finishedMedia(client, 'a fox #sim:url');
    const other = await bystander();
    try {
      const redirect = (to: string) => `${ctx.sim.origin}/api/files/redirect?to=${encodeURIComponent(to)}`;
      const port = new URL(other.origin).port;
      for (const to of [`${other.origin}/admin`, `http://localhost:${port}/`, `http://[::1]:${port}/`]) {
        const error = await expectGatewayError(client.download(redirect(to)), 'invalid_response');
        assert.match(error.message, /was redirected to .* neither the gateway nor the result's own site/);
      }
      assert.equal(other.hits(), 0, 'nothing reached the other server');
      // To the gateway itself (here a relative Location): followed.
      const own = await client.download(redirect(new URL(urlOf(record)).pathname));
      assert.equal(Buffer.from(own.bytes.subarray(0, 8)).toString('hex'), PNG_SIGNATURE);
      // A result the record names on this computer, when the gateway is here too: fetched.
      const local = await client.download(`${other.origin}/result.bin`);
      assert.equal(Buffer.from(local.bytes).toString(), 'private data');
    } finally {
      other.server.close();
    }
  });

  it('the key goes to the gateway only: a result on another site is fetched without it, redirects included', async () => {
    const { client, key } = makeClient(ctx.sim);
    const record = await finishedMedia(client, 'a fox #sim:url');
    const gatewayFile = urlOf(record);
    // Another site (a storage host the record names), which records what it was sent.
    const sent: Array<{ path: string; authorization: string | undefined }> = [];
    const storage = createServer((request, response) => {
      sent.push({ path: request.url ?? '', authorization: request.headers.authorization });
      if (request.url === '/moved') response.writeHead(302, { location: '/result.bin' }).end();
      else if (request.url === '/to-gateway') response.writeHead(302, { location: gatewayFile }).end();
      else response.end('result bytes');
    });
    await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;
    try {
      const gatewayFiles = () => ctx.sim.requests.filter((r) => r.path.startsWith('/api/files/'));
      const before = gatewayFiles().length;
      assert.equal(
        Buffer.from((await client.download(`${origin}/result.bin`)).bytes).toString(),
        'result bytes',
      );
      assert.equal(Buffer.from((await client.download(`${origin}/moved`)).bytes).toString(), 'result bytes');
      const viaStorage = await client.download(`${origin}/to-gateway`);
      assert.equal(Buffer.from(viaStorage.bytes.subarray(0, 8)).toString('hex'), PNG_SIGNATURE);
      assert.deepEqual(sent, [
        { path: '/result.bin', authorization: undefined },
        { path: '/moved', authorization: undefined },
        { path: '/result.bin', authorization: undefined },
        { path: '/to-gateway', authorization: undefined },
      ]);
      // The gateway's own files are asked for with the key, also at the end of a redirect.
      await client.download(gatewayFile);
      const atGateway = gatewayFiles().slice(before);
      assert.equal(atGateway.length, 2);
      for (const request of atGateway) assert.equal(request.headers.authorization, `Bearer ${key}`);
    } finally {
      storage.close();
    }
  });

  it('F4: where the gateway is not on this computer, no result there or on a private network is fetched', async () => {
    const other = await bystander();
    try {
      // The gateway's name is not on this computer; a request to it never leaves (no such host).
      const { client } = makeClient(ctx.sim, { baseUrl: 'https://gateway.invalid/api' });
      for (const url of [`${other.origin}/x`, `http://localhost:${new URL(other.origin).port}/x`]) {
        const error = await expectGatewayError(client.download(url), 'invalid_response');
        assert.match(error.message, /on this computer and the gateway is not/);
      }
      assert.equal(other.hits(), 0);
    } finally {
      other.server.close();
    }
  });

  it('F4: judges hosts by their syntax: loopback, private and link-local ranges, IPv6 and localhost', () => {
    const places: Record<string, AddressPlace> = {
      'http://127.0.0.1/': 'loopback',
      'http://127.1.2.3/': 'loopback',
      'http://2130706433/': 'loopback', // 127.0.0.1 as one number
      'http://0x7f.1/': 'loopback',
      'http://0.0.0.0/': 'loopback',
      'http://127.0.0.1./': 'loopback',
      'http://localhost/': 'loopback',
      'http://LOCALHOST./': 'loopback',
      'http://a.b.localhost/': 'loopback',
      'http://[::1]/': 'loopback',
      'http://[::]/': 'loopback',
      'http://[::ffff:127.0.0.1]/': 'loopback',
      'http://[::ffff:10.1.2.3]/': 'private',
      'http://[64:ff9b::169.254.169.254]/': 'link-local',
      'http://10.0.0.1/': 'private',
      'http://172.16.0.1/': 'private',
      'http://172.31.255.255/': 'private',
      'http://192.168.1.1/': 'private',
      'http://100.64.0.1/': 'private',
      'http://[fc00::1]/': 'private',
      'http://[fd12:3456::1]/': 'private',
      'http://169.254.169.254/': 'link-local',
      'http://[fe80::1]/': 'link-local',
      'http://172.32.0.1/': 'public',
      'http://172.15.0.1/': 'public',
      'http://8.8.8.8/': 'public',
      'http://[2001:db8::1]/': 'public',
      'https://cdn.example.com/': 'public',
      'http://localhost.example.com/': 'public',
    };
    for (const [url, place] of Object.entries(places))
      assert.equal(addressPlace(new URL(url).hostname), place, url);

    const gateway = new URL('https://gateway.example/api');
    const named = new URL('https://cdn.example/r/1.png');
    const refusal = (target: string, redirected: boolean, from = gateway) =>
      downloadRefusal(new URL(target), { gateway: from, named, redirected });
    assert.equal(refusal('https://cdn.example/r/1.png', false), undefined);
    assert.equal(refusal('https://cdn.example/moved.png', true), undefined);
    assert.equal(refusal('https://gateway.example/files/1.png', true), undefined);
    assert.match(refusal('https://elsewhere.example/1.png', true) ?? '', /neither the gateway/);
    assert.match(refusal('http://cdn.example/r/1.png', true) ?? '', /neither the gateway/); // https → http
    for (const target of ['http://127.0.0.1:8080/', 'http://10.0.0.5/', 'http://169.254.169.254/latest/'])
      assert.match(refusal(target, false) ?? '', /was not downloaded/, target);
    // A gateway on this computer may name another local port; one on a private network, its peers.
    assert.equal(
      refusal('http://127.0.0.1:9000/r.png', false, new URL('http://127.0.0.1:4000/api')),
      undefined,
    );
    assert.equal(refusal('http://10.0.0.6/r.png', false, new URL('http://10.0.0.5/api')), undefined);
    assert.match(refusal('http://127.0.0.1/', false, new URL('http://10.0.0.5/api')) ?? '', /this computer/);
  });

  it('F4: a download over its byte cap is stopped while it streams, not read whole first', async () => {
    const { client } = makeClient(ctx.sim, { maxResponseBytes: 1024 * 1024 });
    const started = Date.now();
    const error = await expectGatewayError(
      client.download(`${ctx.sim.origin}/api/files/stream.bin?mb=512`),
      'invalid_response',
    );
    assert.match(error.message, /larger than the limit of 1 MB/);
    for (
      let tries = 0;
      tries < 100 && !ctx.sim.closedConnectionLog.some((c) => c.path.endsWith('stream.bin'));
      tries++
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(
      ctx.sim.closedConnectionLog.some((c) => c.path.endsWith('stream.bin')),
      'the client closed the connection mid-stream',
    );
    assert.ok(Date.now() - started < 5000, 'stopped early, not after 512 MB');
  });

  it('Semaphore: runs at most `limit` tasks, in order, and releases a slot on failure', async () => {
    const slots = new Semaphore(2);
    const order: string[] = [];
    let peak = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        peak = Math.max(peak, slots.running);
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((name) => slots.run(task(name, name === 'a'))),
    );
    assert.equal(peak, 2);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(order.slice(0, 2), ['start a', 'start b']);
    assert.equal(slots.running, 0);
  });
});
