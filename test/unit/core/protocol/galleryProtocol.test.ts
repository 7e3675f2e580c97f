import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_EXCERPT, parseGalleryHostMessage } from '../../../../src/core/protocol/galleryProtocol';

const anyJson = fc.jsonValue();

describe('gallery protocol: what the page receives', () => {
  it('keeps well-formed items, repairs odd fields and leaves out items without an id', () => {
    const parsed = parseGalleryHostMessage({
      type: 'items',
      items: [
        {
          id: 'j1',
          prompt: 'a red square',
          model: 'sim/image',
          status: 'completed',
          parameters: 'size: 64x64',
          createdAt: 5,
          kind: 'image',
          src: 'https://file+.vscode-resource.vscode-cdn.net/tmp/r.png',
          saved: true,
          cost: 0.01,
          progress: 0.5,
        },
        { id: 'j2', prompt: 7, kind: 'script', src: 'https://evil.example/x.png', cost: -1, createdAt: 'x' },
        { prompt: 'no id' },
        'junk',
      ],
    });
    assert.ok(parsed);
    assert.deepEqual(
      parsed.items.map((item) => item.id),
      ['j1', 'j2'],
    );
    assert.equal(parsed.items[0].src, 'https://file+.vscode-resource.vscode-cdn.net/tmp/r.png');
    assert.equal(parsed.items[0].cost, 0.01);
    assert.equal(parsed.items[0].progress, 0.5);
    const odd = parsed.items[1];
    assert.deepEqual(
      [odd.prompt, odd.kind, odd.src, odd.cost, odd.createdAt, odd.saved],
      ['', 'none', undefined, undefined, 0, false],
    );
  });

  it('F9: keeps the beginning of a text result as text, cut to the excerpt length', () => {
    const parsed = parseGalleryHostMessage({
      type: 'items',
      items: [
        { id: 't1', kind: 'text', excerpt: `<b>a poem</b>\n${'x'.repeat(5000)}` },
        { id: 't2', kind: 'text', excerpt: 42 },
      ],
    });
    assert.equal(parsed?.items[0].excerpt?.length, MAX_EXCERPT);
    assert.ok(parsed?.items[0].excerpt?.startsWith('<b>a poem</b>\n'));
    assert.equal(parsed?.items[1].excerpt, undefined);
  });

  it('never throws, and every item it returns has the declared types (fuzzed)', () => {
    const item = fc.record(
      {
        id: fc.oneof(fc.string(), anyJson),
        prompt: anyJson,
        model: anyJson,
        status: anyJson,
        parameters: anyJson,
        createdAt: anyJson,
        kind: fc.oneof(fc.constantFrom('image', 'video', 'text', 'none'), anyJson),
        src: fc.oneof(fc.constant('https://file+.vscode-resource.vscode-cdn.net/a.png'), anyJson),
        needsThumbnail: anyJson,
        saved: anyJson,
        error: anyJson,
        cost: anyJson,
        progress: fc.oneof(fc.double(), anyJson),
        excerpt: anyJson,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          anyJson,
          fc.record({ type: fc.constant('items'), items: fc.array(fc.oneof(item, anyJson)) }),
        ),
        (value) => {
          const parsed = parseGalleryHostMessage(value);
          for (const entry of parsed?.items ?? []) {
            assert.equal(typeof entry.id, 'string');
            for (const key of ['prompt', 'model', 'status', 'parameters'] as const)
              assert.equal(typeof entry[key], 'string');
            assert.ok(Number.isFinite(entry.createdAt));
            assert.ok(entry.src === undefined || entry.src.startsWith('https://file+.vscode-resource'));
            assert.ok(entry.cost === undefined || entry.cost >= 0);
            assert.ok(entry.progress === undefined || (entry.progress >= 0 && entry.progress <= 1));
            assert.ok(
              entry.excerpt === undefined ||
                (typeof entry.excerpt === 'string' && entry.excerpt.length <= MAX_EXCERPT),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
