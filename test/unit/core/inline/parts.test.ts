import * as assert from 'node:assert/strict';
import { PrefixCache } from '../../../../src/core/inline/cache';
import { buildContext, linesOf } from '../../../../src/core/inline/context';
import { DEFAULT_EXCLUDE, excludedBy } from '../../../../src/core/inline/exclude';
import { AdaptiveDebounce, RequestGate } from '../../../../src/core/inline/pacing';
import type { Pause } from '../../../../src/core/inline/pacing';
import { chatRequest, fimRequest } from '../../../../src/core/inline/requests';
import { chooseInlineModel, chooseMode } from '../../../../src/core/inline/modelChoice';
import { GatewayError } from '../../../../src/api/errors';
import { parseCatalog } from '../../../../src/core/catalog/catalogCodec';
import { addToTally, localDay, parseTally, tallyCostText } from '../../../../src/core/inline/tally';
import fc from 'fast-check';

describe('inline completions: context, exclusion, cache, pacing, requests', () => {
  it('budgets the windows in tokens, in whole lines, with the cursor line whole', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const context = buildContext(
      linesOf(text),
      { line: 50, character: 4 },
      { path: 'a.ts', languageId: 'typescript' },
      {
        prefixTokens: 50,
        suffixTokens: 30,
      },
    );
    assert.ok(context.prefix.endsWith('\nline'), 'the prefix ends at the cursor');
    assert.ok(context.suffix.startsWith(` 50 ${'x'.repeat(30)}\n`), 'the suffix starts at the cursor');
    assert.ok(context.prefix.length <= 50 * 4 + 10 && context.prefix.split('\n').length >= 4);
    assert.ok(context.suffix.length <= 30 * 4 + 40);
    assert.equal(context.prefixComplete, false);
    const small = buildContext(
      linesOf('a\nb'),
      { line: 1, character: 1 },
      { path: 'b.py', languageId: 'python' },
    );
    assert.deepEqual([small.prefix, small.suffix, small.prefixComplete], ['a\nb', '', true]);
  });

  it('excludes secrets by default: .env files, keys, certificates and secrets folders', () => {
    for (const path of [
      '.env',
      '.env.local',
      'app/.ENV.production',
      'certs/server.pem',
      'id_rsa',
      'home/id_rsa.pub',
      'deploy/secrets/db.yaml',
      'secrets/x',
    ])
      assert.ok(excludedBy(path, DEFAULT_EXCLUDE), `${path} is excluded`);
    for (const path of ['src/env.ts', 'src/keys.ts', 'environment.md', 'mysecrets/a.txt'])
      assert.equal(excludedBy(path, DEFAULT_EXCLUDE), undefined, `${path} is not excluded`);
    assert.equal(excludedBy('src\\gen\\x.ts', ['src/gen/**']), 'src/gen/**');
    assert.equal(excludedBy('a/b.ts', ['a/?.ts']), 'a/?.ts');
  });

  it('answers from the cache when typing through a suggestion or deleting back into it', () => {
    const cache = new PrefixCache();
    cache.store('doc', 'const x = ', ';\n', 'compute(1)');
    assert.equal(cache.lookup('doc', 'const x = ', ';\n'), 'compute(1)');
    assert.equal(cache.lookup('doc', 'const x = comp', ';\n'), 'ute(1)');
    assert.equal(cache.lookup('doc', 'const x = co', ';\n'), 'mpute(1)', 'deleting back');
    assert.equal(cache.lookup('doc', 'const x = cx', ';\n'), undefined, 'typed something else');
    assert.equal(cache.lookup('doc', 'const x = compute(1)', ';\n'), undefined, 'typed all of it');
    assert.equal(cache.lookup('doc', 'const x = ', ')\n'), undefined, 'the text after changed');
    assert.equal(cache.lookup('other', 'const x = ', ';\n'), undefined, 'another document');
    assert.deepEqual([cache.hits, cache.misses], [3, 4]);
  });

  it('adapts the debounce to the typing rhythm and the latency, within limits', () => {
    const debounce = new AdaptiveDebounce({ minMs: 120, maxMs: 600 });
    assert.equal(debounce.delayMs, 120);
    for (let t = 0; t <= 800; t += 100) debounce.keystroke(t);
    assert.equal(debounce.delayMs, 150, '1.5 × a 100 ms rhythm');
    debounce.recordLatency(2000);
    assert.equal(debounce.delayMs, 600, 'capped');
    const fast = new AdaptiveDebounce({ minMs: 120, maxMs: 600 });
    fast.recordLatency(20);
    assert.equal(fast.delayMs, 120, 'never under the floor');
  });

  it('backs off after 429 (Retry-After or at least 250 ms with jitter) and pauses once on 401/402/403', () => {
    const gate = new RequestGate(() => 0);
    gate.failed(new GatewayError({ kind: 'http', status: 429, message: 'slow down' }), 1000);
    assert.equal(gate.blocked(1000), 'backoff');
    assert.equal(gate.backoffLeft(1000), 375, '500 ms × 0.75, above the 250 ms floor');
    gate.failed(new GatewayError({ kind: 'http', status: 429, message: 'slow down', retryAfter: 3 }), 2000);
    assert.equal(gate.backoffLeft(2000), 3000);
    gate.succeeded();
    assert.equal(gate.blocked(2000), undefined);
    gate.failed(new GatewayError({ kind: 'aborted', message: 'cancelled' }), 2000);
    assert.equal(gate.blocked(2000), undefined, 'a cancellation is no failure');

    const pauses: (Pause | undefined)[] = [];
    gate.onDidChangePause((p) => pauses.push(p));
    for (let i = 0; i < 5; i++)
      gate.failed(new GatewayError({ kind: 'http', status: 402, message: 'no credit' }), 3000 + i);
    assert.equal(gate.blocked(1e12), 'paused');
    assert.deepEqual(pauses, [{ reason: 'credits', message: 'no credit' }], 'one message for five failures');
    gate.resume();
    assert.equal(gate.blocked(3000), undefined);
    assert.equal(pauses.length, 2);
  });

  it('builds a FIM request with prompt and suffix, and a chat request that asks for the middle only', () => {
    const context = {
      path: 'src/a.py',
      languageId: 'python',
      prefix: 'def f(x):\n    ',
      suffix: '\nprint(f(1))',
      prefixComplete: true,
    };
    const f = fimRequest('m/coder', context);
    assert.equal(f.mode, 'fim');
    if (f.mode !== 'fim') return;
    assert.equal(f.body.prompt, '# Path: src/a.py\ndef f(x):\n    ');
    assert.equal(f.body.suffix, '\nprint(f(1))');
    assert.equal(f.body.max_tokens, 256, 'a block after an opener');
    assert.ok(f.body.stop && f.body.stop.length > 0);
    const c = chatRequest('m/chat', { ...context, prefix: 'x = ' });
    if (c.mode !== 'chat') return assert.fail('a chat request');
    assert.equal(c.body.max_tokens, 64, 'the rest of a line');
    const user = c.body.messages[1].content as string;
    assert.match(user, /File: src\/a\.py \(python\)/);
    assert.match(user, /x = <CURSOR>\nprint/);
    assert.match(c.body.messages[0].content as string, /only the text to insert/);
  });

  it('chooses FIM from the catalog hint, a known family off OpenRouter, or the setting', () => {
    const [hinted] = parseCatalog([{ id: 'a/b', supported_parameters: ['suffix'] }])!;
    assert.equal(chooseMode('auto', 'a/b', hinted, 'https://openrouter.ai/api'), 'fim');
    assert.equal(chooseMode('auto', 'mistralai/codestral-2501', undefined, 'https://gw.example/api'), 'fim');
    assert.equal(
      chooseMode('auto', 'mistralai/codestral-2501', undefined, 'https://openrouter.ai/api'),
      'chat',
    );
    assert.equal(chooseMode('auto', 'openai/gpt-4o-mini', undefined, 'https://gw.example/api'), 'chat');
    assert.equal(chooseMode('fim', 'openai/gpt-4o-mini', undefined, 'https://openrouter.ai/api'), 'fim');
  });

  it('picks a fast code model from the catalog when none is set', () => {
    const catalog = parseCatalog([
      {
        id: 'big/thinker',
        name: 'Thinker',
        pricing: { prompt: '0.00001', completion: '0.00003' },
        supported_parameters: ['reasoning'],
      },
      { id: 'small/flash', name: 'Flash', pricing: { prompt: '0.0000001', completion: '0.0000004' } },
      {
        id: 'mistralai/codestral',
        name: 'Codestral',
        pricing: { prompt: '0.0000003', completion: '0.0000009' },
      },
      { id: 'img/painter', name: 'Painter', architecture: { output_modalities: ['image'] } },
    ])!;
    assert.equal(chooseInlineModel('', catalog), 'mistralai/codestral');
    assert.equal(
      chooseInlineModel(
        '',
        catalog.filter((m) => !m.id.includes('codestral')),
      ),
      'small/flash',
    );
    assert.equal(chooseInlineModel(' my/model ', catalog), 'my/model');
    assert.equal(chooseInlineModel('', []), undefined);
  });

  it("keeps today's tally from globalState, tolerant of anything stored there", () => {
    const now = Date.UTC(2026, 10, 25, 12);
    const day = localDay(now);
    let tally = addToTally(undefined, now, { requests: 1, cost: 0.002 });
    tally = addToTally(tally, now, { accepted: 1 });
    assert.deepEqual(tally, { day, accepted: 1, requests: 1, cost: 0.002, unpriced: 0 });
    assert.deepEqual(parseTally({ ...tally, day: '2000-01-01' }, now), {
      day,
      accepted: 0,
      requests: 0,
      cost: 0,
      unpriced: 0,
    });
    fc.assert(
      fc.property(
        fc.anything(),
        fc.record({ accepted: fc.anything(), cost: fc.anything() }),
        (stored, change) => {
          const next = addToTally(stored, now, change as never);
          for (const value of [next.accepted, next.requests, next.cost, next.unpriced])
            assert.ok(Number.isFinite(value) && value >= 0, String(value));
          assert.ok(next.unpriced <= next.requests);
          assert.doesNotMatch(tallyCostText(next), /NaN|Infinity/);
          assert.equal(next.day, day);
        },
      ),
    );
  });

  it('never shows a cost the gateway did not report as $0.0000', () => {
    const now = Date.UTC(2026, 10, 25, 12);
    const unreported = addToTally(undefined, now, { requests: 1 });
    assert.equal(unreported.unpriced, 1);
    assert.equal(tallyCostText(unreported), 'cost not reported');
    const mixed = addToTally(addToTally(unreported, now, { requests: 1, cost: 0.0012 }), now, {
      requests: 1,
    });
    assert.equal(tallyCostText(mixed), '$0.0012 + 2 not reported');
    assert.equal(tallyCostText(addToTally(undefined, now, { requests: 1, cost: 0 })), '$0.0000');
    assert.equal(tallyCostText(parseTally(undefined, now)), '$0.0000');
    // A stored count of unpriced requests above the requests (edited storage) is cut to them.
    assert.equal(parseTally({ day: localDay(now), requests: 1, unpriced: 9, cost: 0 }, now).unpriced, 1);
  });
});
