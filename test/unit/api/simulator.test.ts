import * as assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { gradientPng } from '../../simulator/png';
import { parseScenarioList, scenariosFromMarkers } from '../../simulator/scenarios';
import { withSimulator } from './helpers';

describe('simulator: controls and assets', () => {
  const ctx = withSimulator();

  it('sets scenarios and reports requests over its HTTP control endpoints', async () => {
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(`${ctx.sim.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/__sim/scenario', { name: 'tools', key: 'sk-control' });
    const chat = await fetch(`${ctx.sim.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-control', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'a/b', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const reply = (await chat.json()) as { choices: Array<{ finish_reason: string }> };
    assert.equal(reply.choices[0].finish_reason, 'tool_calls');
    const listed = (await (await fetch(`${ctx.sim.origin}/__sim/requests`)).json()) as {
      requests: Array<{ path: string; scenarios: string[] }>;
    };
    assert.deepEqual(listed.requests.at(-1)?.scenarios, ['tools']);
    await post('/__sim/reset', {});
    assert.equal(ctx.sim.requests.length, 0);
  });

  it('echoes the routing, reasoning and plugins it was asked for, and names the provider it was limited to', async () => {
    const asked = {
      provider: { only: ['Beta Inference'], sort: 'price' },
      reasoning: { effort: 'xhigh' },
      plugins: [{ id: 'context-compression' }],
      tools: [{ type: 'openrouter:web_search' }],
    };
    const chat = await fetch(`${ctx.sim.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-echo', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'a/b', messages: [{ role: 'user', content: 'hi' }], ...asked }),
    });
    const reply = (await chat.json()) as { provider: string };
    assert.deepEqual(JSON.parse(decodeURIComponent(chat.headers.get('x-sim-echo') ?? '')), asked);
    assert.equal(reply.provider, 'Beta Inference');
  });

  it('counts requests for tracking images and serves unknown paths as 404', async () => {
    const before = ctx.sim.imageRequests;
    const image = await fetch(`${ctx.sim.origin}/img/track-1.png`);
    assert.equal(image.headers.get('content-type'), 'image/png');
    await image.arrayBuffer();
    assert.equal(ctx.sim.imageRequests, before + 1);
    assert.equal((await fetch(`${ctx.sim.baseUrl}/v2/unknown`)).status, 404);
  });

  it('makes valid PNG files (checked chunk CRCs, inflatable pixel data)', () => {
    const png = gradientPng(16, 8, 3);
    assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a');
    let offset = 8;
    const types: string[] = [];
    while (offset < png.length) {
      const length = png.readUInt32BE(offset);
      const type = png.subarray(offset + 4, offset + 8).toString('ascii');
      types.push(type);
      if (type === 'IDAT')
        assert.equal(inflateSync(png.subarray(offset + 8, offset + 8 + length)).length, (1 + 16 * 3) * 8);
      offset += 12 + length;
    }
    assert.deepEqual(types, ['IHDR', 'IDAT', 'IEND']);
  });

  it('parses scenario specs and #sim markers', () => {
    assert.deepEqual(parseScenarioList('429:3, chunk:1 crlf'), [
      { name: '429', arg: '3' },
      { name: 'chunk', arg: '1' },
      { name: 'crlf' },
    ]);
    assert.deepEqual(scenariosFromMarkers('please #sim:long:5000 and #sim:drop.'), [
      { name: 'long', arg: '5000' },
      { name: 'drop', arg: undefined },
    ]);
  });
});
