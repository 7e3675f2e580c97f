/**
 * What the media preview and the gallery pages may tell the host. A page runs the gateway's text,
 * so what it posts is outside data: the host acts only on what these parsers let through.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_THUMBNAIL_CHARS, parseGalleryMessage } from '../../../../src/core/protocol/galleryProtocol';
import { parsePreviewMessage } from '../../../../src/core/protocol/mediaPreviewProtocol';

/** Values a hostile page could post, with the shapes of real messages mixed in. */
const posted = fc.oneof(
  fc.anything(),
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('save', 'openSource', 'ready', 'action', 'thumbnail'), fc.string()),
      index: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      file: fc.constantFrom('/etc/passwd', '../../secret.png', 'file:///home/me/.ssh/id_rsa'),
      path: fc.string(),
      url: fc.webUrl(),
      action: fc.oneof(fc.constantFrom('open', 'save', 'delete', 'exec'), fc.string()),
      ids: fc.oneof(fc.array(fc.string()), fc.array(fc.anything()), fc.string()),
      id: fc.oneof(fc.string(), fc.integer()),
      dataUrl: fc.oneof(
        fc.constantFrom(
          'data:image/png;base64,iVBORw0KGgo=',
          'data:image/svg+xml;base64,PHN2Zz4=',
          'data:text/html;base64,PHNjcmlwdD4=',
          'file:///etc/passwd',
          'https://e.x/a.png',
        ),
        fc.string(),
      ),
    },
    { requiredKeys: [] },
  ),
);

describe('page messages: what the preview and the gallery may ask of the host', () => {
  it('the media preview names only the index of a result: never a file, a path or a URL', () => {
    assert.deepEqual(parsePreviewMessage({ type: 'save', index: 0 }), { type: 'save', index: 0 });
    assert.deepEqual(parsePreviewMessage({ type: 'openSource', index: 3 }), { type: 'openSource', index: 3 });
    // Anything else the page adds is dropped: the host looks the result up by index itself.
    assert.deepEqual(
      parsePreviewMessage({ type: 'save', index: 1, file: '/etc/passwd', url: 'https://e.x/' }),
      { type: 'save', index: 1 },
    );
    for (const bad of [
      { type: 'save', file: '/etc/passwd' },
      { type: 'save', index: '../../secret.png' },
      { type: 'save', index: -1 },
      { type: 'save', index: 1.5 },
      { type: 'save', index: Number.NaN },
      { type: 'open', index: 0 },
      { type: 'openSource', url: 'command:workbench.action.reloadWindow' },
      'save',
      null,
      [0],
    ])
      assert.equal(parsePreviewMessage(bad), undefined, JSON.stringify(bad));
  });

  it('the preview: any value posted gives nothing, or exactly a known action and a whole index (fuzzed)', () => {
    fc.assert(
      fc.property(posted, (value) => {
        const message = parsePreviewMessage(value);
        if (message === undefined) return;
        assert.deepEqual(Object.keys(message).sort(), ['index', 'type']);
        assert.ok(message.type === 'save' || message.type === 'openSource');
        assert.ok(Number.isInteger(message.index) && message.index >= 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('the gallery names results by job id only, and sends thumbnails only as image data URLs', () => {
    assert.deepEqual(parseGalleryMessage({ type: 'ready', extra: 1 }), { type: 'ready' });
    assert.deepEqual(parseGalleryMessage({ type: 'action', action: 'save', ids: ['a', 'b'], file: '/x' }), {
      type: 'action',
      action: 'save',
      ids: ['a', 'b'],
    });
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    assert.deepEqual(parseGalleryMessage({ type: 'thumbnail', id: 'a', dataUrl: png }), {
      type: 'thumbnail',
      id: 'a',
      dataUrl: png,
    });
    for (const bad of [
      { type: 'action', action: 'exec', ids: ['a'] },
      { type: 'action', action: 'delete', ids: [] },
      { type: 'action', action: 'delete', ids: 'a' },
      { type: 'action', action: 'delete', ids: [{ path: '/etc/passwd' }] },
      { type: 'action', action: 'delete', ids: ['x'.repeat(501)] },
      { type: 'action', action: 'delete', ids: Array.from({ length: 10_001 }, () => 'a') },
      { type: 'thumbnail', id: 'a', dataUrl: 'file:///etc/passwd' },
      { type: 'thumbnail', id: 'a', dataUrl: 'https://tracker.example/a.png' },
      { type: 'thumbnail', id: 'a', dataUrl: 'data:image/svg+xml;base64,PHN2Zz4=' },
      { type: 'thumbnail', id: 'a', dataUrl: 'data:text/html;base64,PHNjcmlwdD4=' },
      { type: 'thumbnail', id: 'a', dataUrl: `data:image/png;base64,${'A'.repeat(MAX_THUMBNAIL_CHARS)}` },
      { type: 'thumbnail', id: 7, dataUrl: png },
      { type: 'openFile', path: '/etc/passwd' },
      undefined,
    ])
      assert.equal(parseGalleryMessage(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
  });

  it('the gallery: any value posted gives nothing, or a known message with only its own fields (fuzzed)', () => {
    const actions = new Set(['open', 'insert', 'rerun', 'variation', 'save', 'delete']);
    fc.assert(
      fc.property(posted, (value) => {
        const message = parseGalleryMessage(value);
        if (message === undefined) return;
        switch (message.type) {
          case 'ready':
            assert.deepEqual(Object.keys(message), ['type']);
            break;
          case 'action':
            assert.deepEqual(Object.keys(message).sort(), ['action', 'ids', 'type']);
            assert.ok(actions.has(message.action));
            assert.ok(message.ids.length > 0 && message.ids.every((id) => typeof id === 'string'));
            break;
          case 'thumbnail':
            assert.deepEqual(Object.keys(message).sort(), ['dataUrl', 'id', 'type']);
            assert.equal(typeof message.id, 'string');
            assert.match(message.dataUrl, /^data:image\/(webp|png|jpeg);base64,[A-Za-z0-9+/]*={0,2}$/);
            break;
          default:
            assert.fail(`unknown message ${JSON.stringify(message)}`);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
