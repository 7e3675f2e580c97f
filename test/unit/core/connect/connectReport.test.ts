import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { DIALECTS } from '../../../../src/api/dialects';
import { capabilityLines, needsKey, parsePastedGatewayUrl } from '../../../../src/core/connect/connectReport';

describe('Connect a Gateway: the pasted URL', () => {
  it('takes the forms users paste: …/v1, …/api/v1, a trailing slash', () => {
    for (const [pasted, base] of [
      ['https://litellm.example.com/v1', 'https://litellm.example.com/v1'],
      ['  https://openrouter.ai/api/v1/ ', 'https://openrouter.ai/api/v1'],
      ['https://openrouter.ai/api', 'https://openrouter.ai/api'],
      ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:11434/v1'],
      ['http://localhost:1234/v1/', 'http://localhost:1234/v1'],
    ])
      assert.deepEqual(parsePastedGatewayUrl(pasted), { baseUrl: base });
  });

  it('refuses plain http off this computer, credentials, queries and what is not a URL, saying why', () => {
    const problem = (text: string): string => {
      const parsed = parsePastedGatewayUrl(text);
      assert.ok('problem' in parsed, text);
      return parsed.problem;
    };
    assert.match(problem('http://gateway.example.com/v1'), /https/);
    assert.match(problem('https://user:sk-secret@gateway.example.com/v1'), /user name or password/);
    assert.match(problem('https://gateway.example.com/v1?key=x'), /query/);
    assert.match(problem('gateway.example.com'), /not a valid URL/);
    assert.match(problem(''), /Paste/);
    assert.match(problem('https://a.example/\u0007'), /control characters/);
  });

  it('never throws, and what it takes is an http(s) URL without query (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        (text) => {
          const parsed = parsePastedGatewayUrl(text);
          if ('baseUrl' in parsed) {
            const url = new URL(parsed.baseUrl);
            assert.ok(url.protocol === 'https:' || url.protocol === 'http:');
            assert.equal(url.search, '');
            assert.equal(url.hash, '');
          }
        },
      ),
    );
  });
});

describe('Connect a Gateway: what a gateway offers', () => {
  it('OpenRouter: tools per model, cost with each reply, its media routes, a key', () => {
    const lines = capabilityLines({
      dialect: DIALECTS.openrouter,
      answeredWithoutKey: true,
      chatModels: 300,
    });
    assert.deepEqual(lines.slice(0, 2), ['Kind: OpenRouter.', 'Chat models: 300 listed.']);
    assert.match(lines.join('\n'), /catalog entry lists them/);
    assert.match(lines.join('\n'), /Cost: reported with each reply/);
    assert.match(lines.join('\n'), /images \(\/v1\/images\)/);
    assert.match(lines.join('\n'), /Key: needed/);
  });

  it('LiteLLM: tools offered to every model, the cost header, a key when its list needs one', () => {
    const probe = { dialect: DIALECTS.litellm, answeredWithoutKey: false };
    const text = capabilityLines(probe).join('\n');
    assert.match(text, /Chat models: listed once a key is set/);
    assert.match(text, /offered to every model/);
    assert.match(text, /x-litellm-response-cost header/);
    assert.equal(needsKey(probe), true);
  });

  it('a local server: no key, no cost, no media', () => {
    const probe = { dialect: DIALECTS.local, answeredWithoutKey: true, chatModels: 2 };
    const text = capabilityLines(probe).join('\n');
    assert.equal(needsKey(probe), false);
    assert.match(text, /Key: not needed/);
    assert.match(text, /Media: none/);
    assert.match(text, /Cost: none/);
  });

  it('Portkey: names the header it needs; an OpenAI-style gateway: cost not reported, counted from tokens', () => {
    assert.match(
      capabilityLines({ dialect: DIALECTS.portkey, answeredWithoutKey: false }).join('\n'),
      /x-portkey-provider/,
    );
    assert.match(
      capabilityLines({ dialect: DIALECTS.openai, answeredWithoutKey: false }).join('\n'),
      /not reported; counted as tokens × the catalog price/,
    );
  });
});
