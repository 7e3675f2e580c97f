import * as assert from 'node:assert/strict';
import { startPortkey } from '../../simulator/portkey';
import type { PortkeyGateway } from '../../simulator/portkey';
import { freshKey, withSimulator } from './helpers';

// Portkey's open-source gateway from npm, started the way the integration tests start it. These
// check the harness itself with plain fetch; the client's own tests through it stand beside the
// other gateways' tests.
describe('Portkey gateway harness (@portkey-ai/gateway in front of the simulator)', function () {
  this.timeout(60_000);
  const ctx = withSimulator();
  let portkey: PortkeyGateway;

  before(async () => {
    portkey = await startPortkey(`${ctx.sim.baseUrl}/v1`);
  });
  after(async () => {
    await portkey?.close();
  });

  it('listens on loopback only and passes a streamed chat through to the upstream, whole', async () => {
    assert.match(portkey.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const key = freshKey('portkey');
    const response = await fetch(`${portkey.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { ...portkey.headers, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'a/b',
        messages: [{ role: 'user', content: 'hello through portkey' }],
        stream: true,
      }),
    });
    assert.equal(response.status, 200, portkey.output());
    const text = await response.text();
    assert.match(text, /data: \[DONE\]/);
    const seen = ctx.sim.requests.filter((r) => r.path.endsWith('/v1/chat/completions'));
    assert.equal(seen.length, 1);
  });

  it('refuses a request without its provider header, as a user without the setting would see', async () => {
    const response = await fetch(`${portkey.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${freshKey('portkey')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'a/b', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { message?: string };
    assert.match(String(body.message), /x-portkey-config or x-portkey-provider/);
  });
});
