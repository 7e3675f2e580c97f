import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { placements, untitledFilePath } from '../../../../src/core/inline/where';

describe('inline completions: where a document is', () => {
  it('lists every containing folder, innermost first, with the path relative to each', () => {
    const folders = ['/ws', '/ws/packages/app', '/other', '/ws2'];
    assert.deepEqual(placements('/ws/packages/app/.env', folders, false), [
      { folder: '/ws/packages/app', relative: '.env' },
      { folder: '/ws', relative: 'packages/app/.env' },
    ]);
    assert.deepEqual(placements('/ws2/a.ts', folders, false), [{ folder: '/ws2', relative: 'a.ts' }]);
    assert.deepEqual(placements('/wsx/a.ts', folders, false), []);
    assert.deepEqual(placements('/WS/a.ts', folders, false), []);
    assert.deepEqual(placements('/WS/a.ts', folders, true), [{ folder: '/ws', relative: 'a.ts' }]);
    assert.deepEqual(placements('/a.ts', ['/'], false), [{ folder: '/', relative: 'a.ts' }]);
  });

  it('a placement always is a folder the path is inside of', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.string(), { maxLength: 5 }),
        fc.boolean(),
        (path, folders, fold) => {
          for (const { folder, relative } of placements(path, folders, fold)) {
            assert.ok(folders.includes(folder));
            assert.equal(path.endsWith(relative), true);
            assert.ok(path.length > relative.length);
          }
        },
      ),
    );
  });

  it('tells an untitled file path from a bare title', () => {
    for (const path of ['/home/me/.env', 'c:/x/.env', 'C:\\x\\.env', 'dir/.env'])
      assert.equal(untitledFilePath(path), true, path);
    for (const path of ['Untitled-1', '', '.env']) assert.equal(untitledFilePath(path), false, path);
  });
});
