/**
 * The browser store's checkpoint manifest at its boundary: what it writes reads back the same,
 * and anything else (any JSON, damaged text, paths that leave the folder, repeated paths) is
 * refused as a whole, never thrown on.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  MANIFEST_MAX_FILES,
  manifestEntries,
  manifestText,
  parseManifest,
} from '../../../../src/core/agent/checkpointManifest';
import type { ManifestFile } from '../../../../src/core/agent/checkpointManifest';

const ID = 'cp-abc123-00000001';
const OID = 'a'.repeat(64);
const file = (path: string, oid = OID): ManifestFile => ({ path, oid, size: 3, mtime: 1_700_000_000_000 });

describe('checkpoint manifest', () => {
  it('reads back what it writes, left-out list included', () => {
    const files = [file('src/a.ts'), file('b é.txt', 'b'.repeat(64)), { ...file('c'), mtime: -1 }];
    const text = manifestText({ id: ID, createdAt: 5, files, notCovered: ['node_modules/', '.env'] });
    const parsed = parseManifest(text, ID);
    assert.deepEqual(parsed?.files, files);
    assert.equal(parsed?.createdAt, 5);
    assert.deepEqual(parsed?.leftOut, { paths: ['node_modules/', '.env'], complete: true });
    assert.deepEqual(manifestEntries(parsed).get('src/a.ts'), { mode: '100644', oid: OID });
  });

  it("refuses another checkpoint's manifest, and a whole manifest for one bad entry", () => {
    const good = JSON.parse(
      manifestText({ id: ID, createdAt: 1, files: [file('a')], notCovered: [] }),
    ) as Record<string, unknown>;
    assert.ok(parseManifest(JSON.stringify(good), ID));
    assert.equal(parseManifest(JSON.stringify(good), 'cp-abc123-00000002'), undefined);
    for (const bad of [
      ['../etc/passwd', OID, 1, 1],
      ['/abs', OID, 1, 1],
      ['.git/config', OID, 1, 1],
      ['a\\b', OID, 1, 1],
      ['x', 'A'.repeat(64), 1, 1],
      ['x', OID, -1, 1],
      ['x', OID, 1.5, 1],
      ['x', OID, 1, null],
      ['x', OID, 1],
      'x',
      ['a', OID, 1, 1],
    ])
      assert.equal(
        parseManifest(JSON.stringify({ ...good, files: [['a', OID, 1, 1], bad] }), ID),
        undefined,
        JSON.stringify(bad),
      );
    assert.equal(
      parseManifest(
        JSON.stringify({
          ...good,
          files: Array.from({ length: MANIFEST_MAX_FILES + 1 }, (_, i) => [`f${i}`, OID, 1, 1]),
        }),
        ID,
      ),
      undefined,
    );
    // A damaged left-out list is read as "cannot say": a restore then removes nothing.
    assert.deepEqual(parseManifest(JSON.stringify({ ...good, leftOut: 7 }), ID)?.leftOut, {
      paths: [],
      complete: false,
    });
  });

  it('never throws, and what it accepts holds only paths inside the folder (property)', () => {
    const entry = fc.tuple(
      fc.oneof(fc.string(), fc.constantFrom('a', 'a/b', '..', '../x', '.git/x', '/x', 'a//b')),
      fc.oneof(fc.constant(OID), fc.string()),
      fc.oneof(fc.nat(), fc.double()),
      fc.oneof(fc.integer(), fc.constant(-1), fc.string()),
    );
    const manifest = fc.record({
      format: fc.oneof(fc.constant('gateway-checkpoint v1'), fc.string()),
      id: fc.oneof(fc.constant(ID), fc.string()),
      createdAt: fc.oneof(fc.nat(), fc.double(), fc.string()),
      files: fc.oneof(fc.array(entry, { maxLength: 8 }), fc.jsonValue()),
      leftOut: fc.oneof(fc.string(), fc.constant('gateway-left-out v1 complete\n../x\0a/')),
    });
    fc.assert(
      fc.property(
        fc.oneof(
          manifest.map((m) => JSON.stringify(m)),
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          const parsed = parseManifest(text, ID);
          if (!parsed) return;
          for (const f of parsed.files) {
            assert.ok(!f.path.split('/').some((p) => p === '..' || p === '' || p.toLowerCase() === '.git'));
            assert.match(f.oid, /^[0-9a-f]{64}$/);
          }
          assert.ok(parsed.leftOut.paths.every((p) => !p.split('/').includes('..')));
        },
      ),
      { numRuns: 2000 },
    );
    assert.equal(parseManifest(undefined, ID), undefined);
    assert.equal(parseManifest('{', ID), undefined);
  });
});
