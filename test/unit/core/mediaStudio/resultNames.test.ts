import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  candidateNames,
  cleanRelativeFolder,
  insertionText,
  relativePosix,
  slugFromPrompt,
} from '../../../../src/core/mediaStudio/resultNames';

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
});
