/**
 * The extra-headers setting, the secret-header store and LiteLLM's `/model/info` are outside data:
 * each is read at one boundary, bounded, and never throws. Examples first, then fast-check.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  isKnownImageGenerationModel,
  parseKnownImageModels,
  parseModelInfoMediaModels,
} from '../../../../src/api/mediaModelSources';
import { keyIsOptional } from '../../../../src/core/config/keyOrigin';
import {
  MAX_EXTRA_HEADERS,
  MAX_HEADER_VALUE,
  headerNameRefusal,
  isSecretHeaderName,
  mergeHeaders,
  parseAuthHeaderForm,
  parseExtraHeaders,
} from '../../../../src/core/config/requestHeaders';
import {
  decodeSecretHeaders,
  encodeSecretHeaders,
  withSecretHeader,
} from '../../../../src/core/config/secretHeaders';
import { parseSettings } from '../../../../src/core/config/settingsModel';
import { Setting } from '../../../../src/core/ids';

const RUNS = Number(process.env.GATEWAY_FUZZ_RUNS) || 1000;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

describe('settings: gateway.requestHeaders', () => {
  const parse = (value: unknown, auth: 'bearer' | 'api-key' | 'none' = 'bearer') =>
    parseExtraHeaders(value, { auth, secretsAllowed: false });

  it('takes valid headers as written, trimmed', () => {
    assert.deepEqual(parse({ 'x-portkey-provider': ' openai ', 'x-portkey-custom-host': 'http://x' }), {
      headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': 'http://x' },
      problems: [],
    });
    assert.deepEqual(parse(undefined), { headers: {}, problems: [] });
  });

  it('skips bad names, reserved and hop-by-hop headers, bad values and secrets, saying why (never the value)', () => {
    const { headers, problems } = parse({
      'bad name': 'x',
      'x-ok': 'fine',
      Host: 'evil.example',
      'Content-Length': '1',
      Cookie: 'a=b',
      Connection: 'close',
      Authorization: 'Bearer sk-or-v1-someone-else',
      'x-split': 'a\r\nX-Injected: 1',
      'x-nul': 'a\u0000b',
      'x-long': 'a'.repeat(MAX_HEADER_VALUE + 1),
      'x-number': 3,
      'Helicone-Auth': 'Bearer sk-helicone-secret-value',
      'X-OK': 'again',
    });
    assert.deepEqual(headers, { 'x-ok': 'fine' });
    assert.equal(problems.length, 12);
    for (const problem of problems) {
      assert.ok(!problem.includes('sk-helicone-secret-value'), problem);
      assert.ok(!problem.includes('someone-else'), problem);
    }
    assert.ok(problems.some((p) => /Helicone-Auth.*Set Secret Header/.test(p)));
    assert.ok(problems.some((p) => /X-OK.*twice/.test(p)));
  });

  it("the key's own header is refused under its form, and allowed when no key is sent", () => {
    assert.ok(headerNameRefusal('authorization', 'bearer'));
    assert.equal(headerNameRefusal('api-key', 'bearer'), undefined);
    assert.ok(headerNameRefusal('api-key', 'api-key'));
    assert.equal(headerNameRefusal('Authorization', 'none'), undefined);
    assert.deepEqual(
      parseExtraHeaders({ authorization: 'Bearer x' }, { auth: 'none', secretsAllowed: true }).headers,
      {
        authorization: 'Bearer x',
      },
    );
  });

  it('names like keys, auth, tokens and secrets are secret', () => {
    for (const name of [
      'x-portkey-api-key',
      'Helicone-Auth',
      'cf-aig-authorization',
      'api-key',
      'X-Token',
      'x-client-secret',
    ])
      assert.ok(isSecretHeaderName(name), name);
    for (const name of ['x-portkey-provider', 'x-portkey-config', 'HTTP-Referer', 'X-Title'])
      assert.ok(!isSecretHeaderName(name), name);
  });

  it('the auth form is bearer unless it says api-key or none', () => {
    assert.equal(parseAuthHeaderForm('api-key'), 'api-key');
    assert.equal(parseAuthHeaderForm('none'), 'none');
    for (const value of [undefined, 'Bearer', 3, {}]) assert.equal(parseAuthHeaderForm(value), 'bearer');
  });

  it('stored secret headers win over a setting of the same name, in any case, under the cap', () => {
    assert.deepEqual(mergeHeaders({ 'X-A': '1', b: '2' }, { 'x-a': 's' }), { 'x-a': 's', b: '2' });
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x-${i}`, 'v']));
    assert.equal(Object.keys(mergeHeaders(many, {})).length, MAX_EXTRA_HEADERS);
  });

  it('the settings model reads both settings', () => {
    const settings = parseSettings((key) =>
      key === Setting.requestHeaders
        ? { 'x-portkey-provider': 'openai', 'x-api-key': 'no' }
        : key === Setting.authHeader
          ? 'api-key'
          : undefined,
    );
    assert.deepEqual(settings.request.headers, { 'x-portkey-provider': 'openai' });
    assert.equal(settings.request.headerProblems.length, 1);
    assert.equal(settings.request.authHeader, 'api-key');
  });

  it('the key is optional on this computer and with the none form only', () => {
    const at = (baseUrl: string, authHeader: 'bearer' | 'none' = 'bearer') =>
      keyIsOptional({ baseUrl, request: { authHeader } });
    assert.equal(at('http://localhost:11434'), true);
    assert.equal(at('http://127.0.0.1:1234/v1'), true);
    assert.equal(at('http://[::1]:8000'), true);
    assert.equal(at('https://openrouter.ai/api'), false);
    assert.equal(at('http://192.168.1.5:11434'), false);
    assert.equal(at('not a url'), false);
    assert.equal(at('https://gateway.example', 'none'), true);
  });

  it('fuzz: any value gives sendable headers only, under the caps, and never throws', () => {
    const name = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        'host',
        'Authorization',
        'api-key',
        'x-portkey-provider',
        'Helicone-Auth',
        'Cookie',
        '__proto__',
      ),
      fc.stringMatching(/^[a-zA-Z0-9-]{1,20}$/),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 50 }),
      fc.integer(),
      fc.constant(null),
      fc.constant('a\r\nb'),
      fc.object(),
    );
    const setting = fc.oneof(fc.dictionary(name, value, { maxKeys: 60 }), fc.anything());
    fc.assert(
      fc.property(
        setting,
        fc.constantFrom('bearer' as const, 'api-key' as const, 'none' as const),
        fc.boolean(),
        (raw, auth, secretsAllowed) => {
          const { headers, problems } = parseExtraHeaders(raw, { auth, secretsAllowed });
          const names = Object.keys(headers);
          assert.ok(names.length <= MAX_EXTRA_HEADERS);
          assert.equal(new Set(names.map((n) => n.toLowerCase())).size, names.length);
          for (const [headerName, headerValue] of Object.entries(headers)) {
            assert.match(headerName, TOKEN);
            assert.equal(headerNameRefusal(headerName, auth), undefined);
            assert.equal(typeof headerValue, 'string');
            assert.ok(headerValue.length <= MAX_HEADER_VALUE);
            // eslint-disable-next-line no-control-regex
            assert.ok(!/[\r\n\x00-\x08\x0a-\x1f\x7f]/.test(headerValue), JSON.stringify(headerValue));
            if (!secretsAllowed) assert.ok(!isSecretHeaderName(headerName));
          }
          for (const problem of problems) assert.equal(typeof problem, 'string');
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('the secret-header store', () => {
  it('keeps headers per origin, replaces a name in any case, and removes with an empty value', () => {
    let store = withSecretHeader({}, 'https://gw.example', 'Helicone-Auth', 'Bearer a');
    store = withSecretHeader(store, 'https://gw.example', 'helicone-auth', 'Bearer b');
    store = withSecretHeader(store, 'http://localhost:4000', 'x-portkey-api-key', 'pk');
    assert.deepEqual(decodeSecretHeaders(encodeSecretHeaders(store)), {
      'https://gw.example': { 'helicone-auth': 'Bearer b' },
      'http://localhost:4000': { 'x-portkey-api-key': 'pk' },
    });
    store = withSecretHeader(store, 'https://gw.example', 'HELICONE-AUTH', '');
    assert.deepEqual(Object.keys(store), ['http://localhost:4000']);
  });

  it('fuzz: any stored text reads as origins of string headers, never throwing', () => {
    const stored = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .dictionary(fc.oneof(fc.constant('https://gw.example'), fc.webUrl(), fc.string()), fc.anything())
        .map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(fc.option(stored, { nil: undefined }), (text) => {
        const decoded = decodeSecretHeaders(text);
        for (const [origin, headers] of Object.entries(decoded)) {
          assert.equal(new URL(origin).origin, origin);
          for (const value of Object.values(headers)) assert.equal(typeof value, 'string');
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("api: LiteLLM's /model/info and known image ids", () => {
  it('takes image_generation entries by model_name, with a per-image price', () => {
    const models = parseModelInfoMediaModels({
      data: [
        { model_name: 'gpt-4o', model_info: { mode: 'chat' } },
        { model_name: 'images', model_info: { mode: 'image_generation', output_cost_per_image: '0.04' } },
        { model_name: 'images', model_info: { mode: 'image_generation' } },
        { model_name: 'bad id', model_info: { mode: 'image_generation' } },
        { model_info: { mode: 'image_generation' } },
        null,
      ],
    });
    assert.deepEqual(models, [
      { id: 'images', kind: 'image', route: 'images-generations', price: '$0.04 per image' },
    ]);
  });

  it('known image ids are exact, bare ids', () => {
    assert.ok(isKnownImageGenerationModel('gpt-image-1'));
    assert.ok(isKnownImageGenerationModel('DALL-E-3'));
    assert.ok(!isKnownImageGenerationModel('openai/gpt-image-1'));
    assert.ok(!isKnownImageGenerationModel('gpt-4o'));
    assert.deepEqual(
      parseKnownImageModels({ data: [{ id: 'gpt-4o' }, { id: 'dall-e-2' }, { id: 'dall-e-2' }] }).map(
        (m) => m.id,
      ),
      ['dall-e-2'],
    );
  });

  it('fuzz: any answer gives image models on the images-generations route, bounded, never throwing', () => {
    const entry = fc.oneof(
      fc.record(
        {
          model_name: fc.oneof(fc.string({ maxLength: 400 }), fc.anything()),
          id: fc.oneof(fc.constantFrom('gpt-image-1', 'dall-e-3'), fc.string()),
          model_info: fc.oneof(
            fc.record(
              {
                mode: fc.oneof(fc.constantFrom('image_generation', 'chat'), fc.anything()),
                output_cost_per_image: fc.oneof(fc.double(), fc.string(), fc.anything()),
              },
              { requiredKeys: [] },
            ),
            fc.anything(),
          ),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    const body = fc.oneof(
      fc.record({ data: fc.array(entry, { maxLength: 30 }) }),
      fc.array(entry),
      fc.anything(),
    );
    fc.assert(
      fc.property(body, (answer) => {
        for (const model of [...parseModelInfoMediaModels(answer), ...parseKnownImageModels(answer)]) {
          assert.equal(model.kind, 'image');
          assert.equal(model.route, 'images-generations');
          assert.ok(model.id.length > 0 && model.id.length <= 300);
          assert.ok(!/\s/.test(model.id));
          if (model.price !== undefined) assert.match(model.price, /^\$[0-9.e+-]+ per image$/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
