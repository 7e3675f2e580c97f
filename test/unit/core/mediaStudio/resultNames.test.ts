import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  candidateNames,
  cleanRelativeFolder,
  insertionText,
  isReservedWindowsName,
  relativePosix,
  slugFromPrompt,
  symlinkOnTheWay,
} from '../../../../src/core/mediaStudio/resultNames';
import type { PathKind } from '../../../../src/core/mediaStudio/resultNames';
import { isPortableFileName } from '../media/portableNames';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('result names and insertion text', () => {
  it('slugs prompts into safe names, with numbered alternatives', () => {
    assert.equal(slugFromPrompt('A red square!'), 'a-red-square');
    assert.equal(slugFromPrompt('Crème brûlée ../../etc'), 'creme-brulee-etc');
    assert.equal(slugFromPrompt('日本'), 'media');
    const names = candidateNames('A red square', 'PNG');
    assert.deepEqual(
      [names.next().value, names.next().value, names.next().value],
      ['a-red-square.png', 'a-red-square-2.png', 'a-red-square-3.png'],
    );
    fc.assert(
      fc.property(fc.string(), (prompt) => assert.match(slugFromPrompt(prompt), /^[a-z0-9]+(-[a-z0-9]+)*$/)),
    );
  });

  it('keeps the save folder inside the workspace', () => {
    assert.equal(cleanRelativeFolder('assets/generated/'), 'assets/generated');
    assert.equal(cleanRelativeFolder('/../..\\x/./y'), 'x/y');
    assert.equal(cleanRelativeFolder(''), '');
    fc.assert(fc.property(fc.string(), (v) => assert.ok(!cleanRelativeFolder(v).split('/').includes('..'))));
  });

  it('computes relative paths between POSIX paths', () => {
    assert.equal(relativePosix('/ws/docs', '/ws/assets/generated/a.png'), '../assets/generated/a.png');
    assert.equal(relativePosix('/ws', '/ws/assets/a.png'), 'assets/a.png');
    assert.equal(relativePosix('/ws/assets', '/ws/assets/a.png'), 'a.png');
  });

  it('writes a Markdown image or link in Markdown, the path elsewhere', () => {
    const base = { relativePath: 'assets/generated/a red (1).png', prompt: 'a [red] square' };
    assert.equal(
      insertionText({ ...base, languageId: 'markdown', kind: 'image' }),
      '![a \\[red\\] square](assets/generated/a%20red%20(1).png)'.replace('(1)', '%281%29'),
    );
    assert.equal(
      insertionText({ ...base, languageId: 'markdown', kind: 'video' }),
      '[a \\[red\\] square](assets/generated/a%20red%20%281%29.png)',
    );
    assert.equal(insertionText({ ...base, languageId: 'typescript', kind: 'image' }), base.relativePath);
  });

  it('keeps a prompt inert in MDX (braces escaped) and never cuts an emoji in half', () => {
    const mdx = insertionText({
      languageId: 'mdx',
      relativePath: 'a.txt',
      kind: 'text',
      prompt: 'a cat {globalThis.PWNED = 1} <Boom />',
    });
    assert.equal(mdx, '[a cat \\{globalThis.PWNED = 1\\} \\<Boom /\\>](a.txt)');
    const long = `${'x'.repeat(58)}🐱🐱🐱`;
    const label = insertionText({
      languageId: 'markdown',
      relativePath: 'a.png',
      kind: 'image',
      prompt: long,
    });
    assert.equal(label, `![${'x'.repeat(58)}🐱…](a.png)`);
    assert.ok(!LONE_SURROGATE.test(label), 'no lone surrogate');
    // A flag is two code points, a family emoji several: each stays whole or goes whole.
    const flags = insertionText({
      languageId: 'markdown',
      relativePath: 'a.png',
      kind: 'image',
      prompt: `${'x'.repeat(58)}🇩🇪👨‍👩‍👧🇫🇷`,
    });
    assert.equal(flags, `![${'x'.repeat(58)}🇩🇪…](a.png)`);
  });

  it('a Markdown insertion is always one well-formed image or link (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.string({ unit: 'binary' }),
          // Around the 60-character cut.
          fc.string({ unit: 'grapheme', minLength: 55, maxLength: 80 }),
          fc.string({ unit: 'binary', minLength: 55, maxLength: 80 }),
        ),
        fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 3 }),
        (prompt, segments) => {
          const text = insertionText({
            languageId: 'markdown',
            relativePath: segments.join('/'),
            kind: 'image',
            prompt,
          });
          assert.match(text, /^!\[(?:[^\]\\\n{}]|\\.)*\]\([^\s()]*\)$/);
          assert.ok(LONE_SURROGATE.test(prompt) || !LONE_SURROGATE.test(text), 'no lone surrogate made');
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('suspected: reserved Windows names (nul, con) are used as file names (confirmed, fixed)', () => {
    for (const prompt of ['NUL', 'con', 'Aux!', 'com1', 'LPT9', 'prn?']) {
      const names = candidateNames(prompt, 'png');
      const first = names.next().value as string;
      assert.ok(isPortableFileName(first), `${prompt} → ${first}`);
      assert.ok(!isReservedWindowsName(first), `${prompt} → ${first}`);
    }
    assert.equal(candidateNames('nul', 'png').next().value, 'nul-media.png');
    assert.equal(candidateNames('console', 'png').next().value, 'console.png', 'only the device names');
    assert.equal(cleanRelativeFolder('media/aux/con.d/x'), 'media/_aux/_con.d/x');
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('png', 'MP4', 'txt', ''), fc.nat(3), (prompt, ext, n) => {
        const names = candidateNames(prompt, ext, n ? String(n) : '');
        for (let i = 0; i < 3; i++) assert.ok(isPortableFileName(names.next().value as string));
      }),
    );
    fc.assert(
      fc.property(fc.string(), (folder) => {
        for (const segment of cleanRelativeFolder(folder).split('/').filter(Boolean))
          assert.ok(!isReservedWindowsName(segment), segment);
      }),
    );
  });

  it('suspected: `..` segments of the save folder are followed (refuted: they are dropped)', () => {
    for (const folder of ['..', '../outside', 'a/../../b', '..\\..\\b', '/abs/../x', './../.', 'a/./../b']) {
      const clean = cleanRelativeFolder(folder);
      const segments = clean.split('/');
      assert.ok(!segments.includes('..') && !segments.includes('.'), `${folder} → ${clean}`);
      // Joined under the workspace root, the folder stays inside it.
      assert.ok(path.posix.join('/ws', clean).startsWith('/ws'), `${folder} → ${clean}`);
    }
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('..', '.', 'a', '', '\\', '/', '..\\', 'b/..'), { maxLength: 8 }),
        (parts) => {
          const clean = cleanRelativeFolder(parts.join('/'));
          assert.ok(path.posix.normalize(path.posix.join('/ws', clean)).startsWith('/ws'));
        },
      ),
    );
  });

  it('suspected: a symlinked save folder is followed (confirmed, fixed: saving refuses it)', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gateway-save-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'gateway-outside-'));
    try {
      mkdirSync(path.join(root, 'assets'));
      symlinkSync(outside, path.join(root, 'assets', 'generated'), 'dir');
      symlinkSync(outside, path.join(root, 'linked'), 'dir');
      // As the host looks at each folder (vscode.workspace.fs.stat marks links): lstat.
      const kindOf = (relative: string): Promise<PathKind> => {
        try {
          const stat = lstatSync(path.join(root, relative));
          return Promise.resolve(stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'folder' : 'file');
        } catch {
          return Promise.resolve('missing');
        }
      };
      assert.equal(await symlinkOnTheWay('assets/generated', kindOf), 'assets/generated');
      assert.equal(await symlinkOnTheWay('assets/generated/deeper', kindOf), 'assets/generated');
      assert.equal(await symlinkOnTheWay('linked', kindOf), 'linked');
      assert.equal(await symlinkOnTheWay('assets', kindOf), undefined);
      assert.equal(await symlinkOnTheWay('assets/new/folder', kindOf), undefined, 'missing folders are made');
      assert.equal(await symlinkOnTheWay('', kindOf), undefined, 'the workspace root itself');
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
