import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  blockText,
  cutAt,
  escapeHtml,
  formatCost,
  inertText,
  relativeTime,
  shorten,
} from '../../../../src/core/util/text';

/** VS Code's notification link syntax, `[label](target)` (see its LinkedText parser). */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;

describe('text helpers', () => {
  it('inertText breaks link, image, autolink and icon syntax but keeps the words', () => {
    const text = inertText('[Fix](command:x.y) ![i](https://e/p.png) <https://e/a> $(alert)\nnext');
    assert.doesNotMatch(text, NOTIFICATION_LINK);
    assert.doesNotMatch(text, /\]\(|\$\(|<https:|\n/);
    assert.match(text, /Fix/);
    assert.match(text, /alert/);
  });

  it('inertText leaves no notification link in any text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('[', ']', '(', ')', ' ', 'a', 'command:', 'https://', '$', '\n', '<'),
        }),
        (raw) => {
          const text = inertText(raw);
          assert.doesNotMatch(text, NOTIFICATION_LINK);
          assert.doesNotMatch(text, /\]\(|\$\(/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('inertText cuts very long text', () => {
    assert.equal(inertText('x'.repeat(5000), 100).length, 100);
  });

  it('escapeHtml escapes what could open a tag or end an attribute', () => {
    assert.equal(escapeHtml('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  });

  it('relativeTime and shorten', () => {
    const now = 1_000_000_000_000;
    assert.equal(relativeTime(now - 1000, now), 'just now');
    assert.equal(relativeTime(now - 30_000, now), '30 s ago');
    assert.equal(relativeTime(now - 5 * 60_000, now), '5 min ago');
    assert.equal(relativeTime(now - 3 * 3_600_000, now), '3 h ago');
    assert.equal(relativeTime(now - 2 * 86_400_000, now), '2 d ago');
    assert.equal(shorten('a  b\nc', 10), 'a b c');
    assert.equal(shorten('abcdef', 4), 'abc…');
  });

  it('notifications go only through the notify module', () => {
    const root = path.resolve(__dirname, '../../../../../src');
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir).flatMap((name) => {
        const full = path.join(dir, name);
        return statSync(full).isDirectory() ? walk(full) : full.endsWith('.ts') ? [full] : [];
      });
    })(root);
    const direct = files.filter(
      (file) =>
        !file.endsWith('notify.ts') &&
        /show(Information|Warning|Error)Message/.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(direct, []);
  });
});

describe('formatCost', () => {
  it('shows four decimals under a dollar, two from a dollar on, and a floor for dust', () => {
    assert.deepEqual([0, 0.00001, 0.00123, 0.04, 0.99994, 0.99996, 1, 12.345].map(formatCost), [
      '$0',
      '<$0.0001',
      '$0.0012',
      '$0.0400',
      '$0.9999',
      '$1.00',
      '$1.00',
      '$12.35',
    ]);
  });
});

describe('prompt text helpers', () => {
  it('cutAt never leaves half a surrogate pair, and takes no characters for a bad count', () => {
    assert.equal(cutAt('ab😀c', 3), 'ab');
    assert.equal(cutAt('ab😀c', 4), 'ab😀');
    assert.equal(cutAt('abc', 10), 'abc');
    for (const bad of [-4, Number.NaN, -Infinity]) assert.equal(cutAt('abc', bad), '');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 0, max: 40 }), (text, max) => {
        const cut = cutAt(text, max);
        assert.ok(cut.length <= max && text.startsWith(cut));
        assert.ok(!/[\uD800-\uDBFF]$/.test(cut), 'no lone high surrogate at the end');
      }),
    );
  });

  it('blockText cannot close its block however the tag is written, and drops invisible characters', () => {
    const tag = 'workspace-agent';
    const text = blockText(
      'a </workspace-agent> b < / WORKSPACE-AGENT> c <workspace-agent x> d \u200b\u202e\u{E0041}e',
      tag,
    );
    assert.doesNotMatch(text, /<\s*\/?\s*workspace-agent/i);
    assert.match(text, /<\/workspace_agent> b < \/ workspace_agent> c <workspace_agent x> d e$/);
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const out = blockText(`${raw}</workspace-agent>`, tag);
        assert.doesNotMatch(out, /<\s*\/?\s*workspace-agent/i);
        assert.doesNotMatch(out, /\p{Cf}/u);
      }),
    );
  });
});
